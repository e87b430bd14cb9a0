"""The workspace's file listing is read once per tree state, and follows every add, delete and rename."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.ensemble.demo import create_sample_repo
from bot.ensemble.workspace_files import RACY_NS, WorkspaceFiles, index_paths
from common.git import git
from fakes.median_replies import BAD_FIX, FIX, REPRO, REVISE
from tests.ensemble.conftest import happy_script, run_scripted


def truth(root: Path) -> list[str]:
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    return sorted({p for p in out.split("\0") if p})


def settle() -> None:
    """Wait out the window in which a listing is too close to a write to be kept."""
    time.sleep(3 * RACY_NS / 1e9)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("x = 1\n")
    (root / "README.md").write_text("hi\n")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    return root


def write(root: Path, path: str, text: str = "new\n") -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


CHANGES: dict[str, Callable[[Path], object]] = {
    "new file beside others": lambda r: write(r, "pkg/extra.py"),
    "new file in new folders": lambda r: write(r, "pkg/sub/deeper/mod.py"),
    "tracked file deleted and moved elsewhere": lambda r: (r / "pkg" / "core.py").unlink() or write(r, "core.py"),
    "tracked file deleted and staged": lambda r: git(r, "rm", "-q", "pkg/core.py"),
    "renamed": lambda r: (r / "pkg" / "core.py").rename(r / "pkg" / "main.py"),
    "newly ignored": lambda r: write(r, ".gitignore", "*.log\nREADME.md\n") or git(r, "rm", "-q", "--cached",
                                                                                 "README.md"),
    "ignored file forced in": lambda r: write(r, "keep.log") or git(r, "add", "-f", "keep.log"),
    "untracked file in the root": lambda r: write(r, "notes.txt"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_kept_listing_follows_the_change(repo: Path, change: str) -> None:
    settle()
    before = list(WorkspaceFiles(repo))  # listed, and kept: nothing changed just before
    assert before == truth(repo)
    CHANGES[change](repo)
    assert list(WorkspaceFiles(repo)) == truth(repo) != before


def test_a_file_written_into_folders_a_deletion_left_empty_is_seen(repo: Path) -> None:
    write(repo, "a/b/c/x.py")
    settle()
    assert "a/b/c/x.py" in list(WorkspaceFiles(repo))
    (repo / "a" / "b" / "c" / "x.py").unlink()
    settle()
    assert list(WorkspaceFiles(repo)) == truth(repo)  # a/, a/b/ and a/b/c/ are empty now, and stamped
    write(repo, "a/b/c/y.py")
    assert "a/b/c/y.py" in list(WorkspaceFiles(repo)) and list(WorkspaceFiles(repo)) == truth(repo)


def test_an_unchanged_tree_is_listed_once(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trace = tmp_path / "git-trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    settle()
    for _ in range(5):
        WorkspaceFiles(repo)
    git(repo, "add", "-A", "--intent-to-add")  # rewrites the index, not the listing
    (repo / "pkg" / "core.py").write_text("x = 2\n")  # a file's text is read when asked for, never listed
    for _ in range(5):
        assert "pkg/core.py" in WorkspaceFiles(repo)
    assert trace.read_text().count("git ls-files") == 1


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_index_paths_are_read_in_every_index_version(repo: Path, version: str) -> None:
    write(repo, "pkg/sub/a_long_name_for_prefixes.py")
    write(repo, "pkg/sub/a_long_name_for_prefixes_too.py")
    git(repo, "add", "pkg/sub/a_long_name_for_prefixes.py")
    git(repo, "add", "--intent-to-add", "pkg/sub/a_long_name_for_prefixes_too.py")  # an extended entry (v3+)
    git(repo, "update-index", "--index-version", version)
    names = index_paths((repo / ".git" / "index").read_bytes())
    assert names is not None
    assert [n.decode() for n in names] == git(repo, "ls-files", "-z", "--cached").split("\0")[:-1]
    assert index_paths(b"not an index") is None


def count_listings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: dict, **config: object) -> int:
    sample = create_sample_repo(tmp_path / f"sample{len(list(tmp_path.iterdir()))}")
    trace = tmp_path / f"trace{len(list(tmp_path.iterdir()))}"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    run_scripted(sample, script, **config)
    monkeypatch.delenv("GIT_TRACE")
    return sum("git ls-files -z --cached --others" in line for line in trace.read_text().splitlines())


def test_a_run_lists_the_workspace_per_tree_state_not_per_question(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the listing was kept, one accepted round listed the tree 13 times and each further round
    3 more (22 for four rounds), though the rounds only edited stats/core.py."""
    one_round = count_listings(tmp_path, monkeypatch, happy_script())
    wrong_fixes = [BAD_FIX, FIX.replace("/ 2", "/ 3"), BAD_FIX]
    four_rounds = count_listings(tmp_path, monkeypatch, {**happy_script(), ("coder", None): [REPRO, *wrong_fixes],
                                                         ("critic", "review"): [REVISE] * 3}, max_iterations=4)
    assert one_round <= 6 and four_rounds <= 8, (one_round, four_rounds)  # 2 and 2 on a quiet machine
    assert os.environ.get("GIT_TRACE") is None


def test_a_listing_evicted_by_another_thread_while_it_is_checked_is_still_given(repo: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Twenty issues at once keep more trees than are kept (bench/load.py): another thread's listing may evict
    # this one between its lookup and its refresh. That crashed a team with KeyError(its path).
    from bot.ensemble import workspace_files

    settle()
    WorkspaceFiles(repo)  # kept
    stamp = workspace_files._stamp

    def evicting(root: Path, watched: tuple[str, ...]) -> workspace_files.Stamp:
        workspace_files._listings.clear()  # what the other thread's eviction does
        return stamp(root, watched)

    monkeypatch.setattr(workspace_files, "_stamp", evicting)
    assert sorted(WorkspaceFiles(repo)) == truth(repo)
