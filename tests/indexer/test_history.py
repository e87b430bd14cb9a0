"""The history channel on real git repositories built in the test: past fixes vote for where a bug lives."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from indexer import FusionParams, open_index
from indexer.history import HISTORY_FILE, load_history, parse_log, read_commits, update_history
from indexer.history_rank import HistoryRanker, commit_weight
from tests.conftest import git
from tests.indexer.conftest import HashingEmbedder

DAY = 86400
START = 1_600_000_000


def commit(repo: Path, message: str, files: dict[str, str | None], day: int = 0) -> str:
    """Write (or delete, for None) the files and commit them at START + `day` days; returns the sha."""
    for path, text in files.items():
        target = repo / path
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    stamp = f"@{START + day * DAY} +0000"
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", message], cwd=repo, check=True, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def project(repo: Path) -> Path:
    """A small project whose history holds a fix for an empty-cache crash in pkg/store.py."""
    (repo / ".gitignore").write_text(".ensemble/\n")
    commit(repo, "Start the project", {
        "pkg/store.py": "def keep(entries, folder):\n    return [e for e in entries if e]\n",
        "pkg/cache.py": "class Cache:\n    \"\"\"The cache of parsed pages.\"\"\"\n\n    def get(self, key):\n        return key\n",
        "pkg/render.py": "def render(page):\n    return page.title\n",
        "pkg/cli.py": "def main(argv):\n    return 0\n",
    }, day=0)
    commit(repo, "Render titles in bold", {"pkg/render.py": "def render(page):\n    return '**' + page.title\n"},
           day=10)
    commit(repo, "Fix crash when the cache directory is empty on first start",
           {"pkg/store.py": "def keep(entries, folder):\n    return [e for e in entries or [] if e]\n"}, day=20)
    commit(repo, "Add a --verbose flag", {"pkg/cli.py": "def main(argv):\n    return int('-v' in argv)\n"}, day=30)
    return repo


def test_a_query_like_an_old_fix_ranks_that_fixs_file_first(project: Path, embedder: HashingEmbedder):
    query = "Crash on first start: the cache directory is empty and the app dies"
    without = open_index(project, embedder=embedder, history=False).search(query, k=4)
    assert without[0].path == "pkg/cache.py"  # today's code alone: the file that says "cache"
    index = open_index(project, embedder=embedder, params=FusionParams(history=2.0))
    assert index.search(query, k=4)[0].path == "pkg/store.py"
    assert (project / ".ensemble" / "index" / HISTORY_FILE).is_file()  # cached beside the index
    votes = index.history_ranker.similar_fixes(query)
    assert max(votes, key=votes.__getitem__) == "pkg/store.py"


def test_a_shallow_clone_ranks_without_history_and_says_so(project: Path, tmp_path: Path, embedder: HashingEmbedder):
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{project}", str(shallow))
    index = open_index(shallow, embedder=embedder, params=FusionParams(history=2.0))
    assert index.history is not None and index.history.load() is None
    assert "shallow clone" in index.history.note and "--filter=blob:none --unshallow" in index.history.note
    query = "Crash on first start: the cache directory is empty and the app dies"
    assert index.search(query, k=1)[0].path == "pkg/cache.py"  # today's ranking, unchanged


def test_an_update_reads_only_the_new_commits(project: Path, embedder: HashingEmbedder):
    first = open_index(project, embedder=embedder)
    assert first.history.read == 5  # the fixture's initial commit and four more
    again = open_index(project, embedder=embedder)
    assert again.history.read == 0
    commit(project, "Fix a typo in the render of subtitles", {"pkg/render.py": "def render(page):\n    return page\n"},
           day=40)
    updated = open_index(project, embedder=embedder)
    assert updated.history.read == 1
    assert [c.subject for c in updated.history.load().commits[:2]] == [
        "Fix a typo in the render of subtitles", "Add a --verbose flag"]
    assert len(load_history(project / ".ensemble" / "index").commits) == updated.history.count == 6


def test_a_rewritten_branch_reads_the_history_again(project: Path, embedder: HashingEmbedder):
    open_index(project, embedder=embedder)
    git(project, "reset", "-q", "--hard", "HEAD~1")
    commit(project, "Another tip", {"pkg/cli.py": "def main(argv):\n    return 2\n"}, day=31)
    index = open_index(project, embedder=embedder)
    assert index.history.read == 5
    assert "Add a --verbose flag" not in [c.subject for c in index.history.load().commits]


def test_merges_and_mass_changes_count_less_than_a_focused_fix(repo: Path, monkeypatch: pytest.MonkeyPatch):
    commit(repo, "Start", {f"pkg/m{i}.py": f"V{i} = {i}\n" for i in range(30)} | {"pkg/parse.py": "X = 1\n"}, day=0)
    commit(repo, "Fix overflow in number parsing", {"pkg/parse.py": "X = 2\n"}, day=1)
    commit(repo, "Reformat: fix overflow of long lines everywhere",
           {f"pkg/m{i}.py": f"V{i} = {i}  # wrapped\n" for i in range(30)}, day=1)
    git(repo, "mv", "pkg/m0.py", "pkg/moved0.py")
    for i in range(1, 12):
        git(repo, "mv", f"pkg/m{i}.py", f"pkg/moved{i}.py")
    commit(repo, "Fix overflow: move number modules", {}, day=1)
    git(repo, "checkout", "-q", "-b", "topic", "HEAD~1")
    commit(repo, "wip", {"pkg/m20.py": "V20 = 'topic'\n"}, day=1)
    git(repo, "checkout", "-q", "main")
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):  # the merge on the same day as the fix
        monkeypatch.setenv(name, f"@{START + DAY} +0000")
    git(repo, "merge", "-q", "--no-ff", "-m", "Fix overflow in number parsing", "topic")
    history = update_history(repo, repo / "idx", git(repo, "rev-parse", "HEAD").strip(), save=False).history
    merge = history.commits[0]
    assert merge.parents == 2 and [c.path for c in merge.changes] == ["pkg/m20.py"]  # its branch's files, once
    mass_rename = next(c for c in history.commits if c.subject.endswith("move number modules"))
    focused = next(c for c in history.commits if c.parents == 1 and c.subject == "Fix overflow in number parsing"
                   and c.changes[0].path == "pkg/parse.py")
    head_time = history.commits[0].time
    assert commit_weight(mass_rename, head_time) < commit_weight(focused, head_time) / 12
    files = set(git(repo, "ls-files").split())
    votes = HistoryRanker(history, files).similar_fixes("overflow when parsing a long number")
    best = max(votes, key=votes.__getitem__)
    assert best == "pkg/parse.py"
    assert votes["pkg/m20.py"] < votes["pkg/parse.py"]  # the same message as a merge counts half
    assert votes["pkg/m25.py"] < votes["pkg/parse.py"] / 10  # a 30-file reformat's vote is spread thin


def test_renamed_files_get_the_votes_of_their_old_names_and_deleted_files_none(project: Path):
    commit(project, "Fix crash on empty render input", {"pkg/render.py": "def render(page):\n    return page or ''\n"},
           day=40)
    git(project, "mv", "pkg/store.py", "pkg/storage.py")
    commit(project, "Rename store to storage", {}, day=50)
    commit(project, "Drop the renderer", {"pkg/render.py": None}, day=60)
    history = update_history(project, project / "idx", git(project, "rev-parse", "HEAD").strip(), save=False).history
    files = set(git(project, "ls-files").split())
    votes = HistoryRanker(history, files).similar_fixes("crash: the cache directory is empty")
    assert "pkg/storage.py" in votes and "pkg/store.py" not in votes
    assert "pkg/render.py" not in HistoryRanker(history, files).similar_fixes("crash on empty render input")


def test_a_file_of_the_same_name_created_after_a_delete_gets_no_old_votes(repo: Path):
    commit(repo, "Add the legacy parser", {"pkg/parser.py": "OLD = 1\n"}, day=0)
    commit(repo, "Fix unicode crash in the legacy parser", {"pkg/parser.py": "OLD = 2\n"}, day=1)
    commit(repo, "Remove the legacy parser", {"pkg/parser.py": None}, day=2)
    commit(repo, "New parser", {"pkg/parser.py": "NEW = 1\n"}, day=3)
    history = update_history(repo, repo / "idx", git(repo, "rev-parse", "HEAD").strip(), save=False).history
    votes = HistoryRanker(history, {"pkg/parser.py"}).similar_fixes("unicode crash")
    assert votes == {}


def test_no_history_after_the_indexed_commit_is_read(project: Path, embedder: HashingEmbedder):
    base = git(project, "rev-parse", "HEAD~2").strip()  # before the cache fix
    commits = read_commits(project, base)
    assert "Fix crash when the cache directory is empty on first start" not in [c.subject for c in commits]
    git(project, "checkout", "-q", base)
    index = open_index(project, embedder=embedder, params=FusionParams(history=2.0))
    assert index.history.load().head == base
    assert [c.subject for c in index.history.load().commits] == ["Render titles in bold", "Start the project",
                                                                  "initial"]
    assert index.history_ranker.similar_fixes("the cache directory is empty") == {}


def test_co_change_and_recency_are_weak_signals_from_the_same_history(project: Path):
    commit(project, "Store and cache agree on keys", {
        "pkg/store.py": "def keep(entries, folder):\n    return list(entries or [])\n",
        "pkg/cache.py": "class Cache:\n    def get(self, key):\n        return str(key)\n"}, day=35)
    history = update_history(project, project / "idx", git(project, "rev-parse", "HEAD").strip(), save=False).history
    ranker = HistoryRanker(history, set(git(project, "ls-files").split()))
    together = ranker.cochange({"pkg/store.py": 1.0})
    assert max(together, key=together.__getitem__) == "pkg/cache.py"
    recent = ranker.recency()
    assert recent["pkg/store.py"] == 1.0 and recent["pkg/cli.py"] < 1.0 and recent["pkg/render.py"] < recent["pkg/cli.py"]


def test_log_parsing_keeps_renames_and_odd_messages():
    raw = ("\x1eaaa\x1fp1 p2\x1f100\x1fMerge branch 'x'\n\nbody\x1f\0\nM\0a.py\0R100\0old.py\0new.py\0"
           "\x1ebbb\x1f\x1f90\x1fInitial\x1f\0\nA\0a.py\0")
    first, second = parse_log(raw)
    assert (first.sha, first.parents, first.time, first.subject) == ("aaa", 2, 100, "Merge branch 'x'")
    assert [(c.status, c.path, c.old_path) for c in first.changes] == [("M", "a.py", ""), ("R", "new.py", "old.py")]
    assert second.parents == 0 and [c.path for c in second.changes] == ["a.py"]


def test_commits_appended_by_an_update_that_died_before_its_head_record_are_ignored(project: Path,
                                                                                    embedder: HashingEmbedder):
    open_index(project, embedder=embedder)
    cache = project / ".ensemble" / "index" / HISTORY_FILE
    with cache.open("ab") as handle:  # what a job killed between the append and the head record leaves
        handle.write(b'["deadbeef",1,0,"half-written",["half"]]\n')
    assert [c.subject for c in load_history(cache.parent).commits][0] == "Add a --verbose flag"
    commit(project, "Fix a typo in the render of subtitles", {"pkg/render.py": "def render(page):\n    return page\n"},
           day=40)
    updated = open_index(project, embedder=embedder)
    assert updated.history.read == 1
    subjects = [c.subject for c in updated.history.load().commits]
    assert subjects[:2] == ["Fix a typo in the render of subtitles", "Add a --verbose flag"]
    assert "half-written" not in subjects and len(subjects) == 6


@pytest.mark.parametrize("head", ['{"format": 1, "head": "abc"}', '{"format": 1, "head": 7, "count": 5, "bytes": 9}',
                                  '[1, 2]'])
def test_a_broken_head_record_reads_the_history_again(project: Path, embedder: HashingEmbedder, head: str):
    open_index(project, embedder=embedder)
    (project / ".ensemble" / "index" / "history-head.json").write_text(head)
    index = open_index(project, embedder=embedder)
    assert index.history.read == 5 and len(index.history.load().commits) == 5

