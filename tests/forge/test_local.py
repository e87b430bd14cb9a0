"""The local forge against real git in tmp_path: worktrees, commits, branch, the user's tree untouched."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.forge import HeldWorkspace
from bot.forge.local import CommittedTree, GitError, LocalForge, slugify
from bot.forge.policy import commit_message


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def dirty_repo(repo: Path) -> Path:
    """The `repo` fixture with uncommitted work: a modified tracked file, a staged file, an untracked one."""
    (repo / "README.md").write_text("sample, edited by the user\n")
    (repo / "staged.txt").write_text("staged\n")
    git(repo, "add", "staged.txt")
    (repo / "scratch.txt").write_text("untracked\n")
    return repo


def snapshot(repo: Path) -> tuple[str, str, str, str]:
    return (git(repo, "status", "--porcelain"), git(repo, "rev-parse", "--abbrev-ref", "HEAD"),
            git(repo, "diff"), git(repo, "diff", "--cached"))


def test_commits_land_on_branch_and_user_tree_is_untouched(dirty_repo: Path) -> None:
    before = snapshot(dirty_repo)
    forge = LocalForge(dirty_repo, "run-1")
    assert forge.start("fix-readme") == "ensemble/fix-readme"
    ws = forge.workspace("a")
    (ws.path / "README.md").write_text("sample\nfixed\n")
    (ws.path / "new.py").write_text("X = 1\n")
    assert "+fixed" in ws.diff() and "new.py" in ws.diff()
    commit = ws.commit("Fix the readme", "Round 1: tests pass.", {"Ensemble-Run": "run-1",
                                                                  "Ensemble-Model": "p/c/k"})
    assert commit is not None
    assert ws.commit("nothing", "", {}) is None
    assert [c.sha for c in forge.publish(ws)] == [commit.sha]
    forge.cleanup()
    assert snapshot(dirty_repo) == before
    assert (dirty_repo / "scratch.txt").read_text() == "untracked\n"
    message = git(dirty_repo, "log", "-1", "--format=%B", "ensemble/fix-readme")
    assert message.startswith("Fix the readme\n\nRound 1: tests pass.\n\n")
    trailers = git(dirty_repo, "log", "-1", "--format=%(trailers:only,unfold)", "ensemble/fix-readme")
    assert "Ensemble-Run: run-1" in trailers and "Ensemble-Model: p/c/k" in trailers
    assert git(dirty_repo, "show", "ensemble/fix-readme:new.py") == "X = 1\n"
    assert not list((dirty_repo / ".ensemble" / "worktrees").glob("*"))


def test_rerun_continues_from_the_branch(repo: Path) -> None:
    first = LocalForge(repo, "run-1")
    first.start("task")
    ws = first.workspace("a")
    (ws.path / "one.txt").write_text("1\n")
    ws.commit("round one", "", {})
    first.publish(ws)
    first.cleanup()
    second = LocalForge(repo, "run-2")
    second.start("task")
    assert second.continued
    ws2 = second.workspace("a")
    assert (ws2.path / "one.txt").read_text() == "1\n"
    (ws2.path / "two.txt").write_text("2\n")
    ws2.commit("round two", "", {})
    second.publish(ws2)
    second.cleanup()
    log = git(repo, "log", "--format=%s", "ensemble/task").splitlines()
    assert log[:2] == ["round two", "round one"]


def test_two_workspaces_are_independent(repo: Path) -> None:
    forge = LocalForge(repo, "run-3")
    forge.start("t")
    a, b = forge.workspace("a"), forge.workspace("b")
    (a.path / "README.md").write_text("team a\n")
    assert (b.path / "README.md").read_text() == "sample\n"
    forge.cleanup()


def test_publish_refuses_when_user_has_branch_checked_out(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "ensemble/t")
    forge = LocalForge(repo, "run-4")
    forge.start("t")
    ws = forge.workspace("a")
    (ws.path / "x").write_text("x\n")
    ws.commit("x", "", {})
    with pytest.raises(GitError, match="checked out"):
        forge.publish(ws)
    forge.cleanup()


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="rev-parse"):
        LocalForge(tmp_path, "r")


def test_slug_and_message_format() -> None:
    assert slugify("Fix: the parser crashes on ÜTF-8 input!!") == "fix-the-parser-crashes-on-tf-8-input"
    assert slugify("???") == "task"
    assert slugify("median() is wrong for an even number of values") == "median-is-wrong-for-an-even-number-of"
    assert slugify("x" * 60) == "x" * 40
    assert commit_message("s", "b", {"K": "v"}) == "s\n\nb\n\nK: v\n"


def test_a_committed_tree_reads_the_commit_not_the_working_tree(repo: Path) -> None:
    (repo / "pkg").mkdir()
    (repo / "pkg" / "AGENTS.md").write_text("committed\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "instructions")
    (repo / "pkg" / "AGENTS.md").write_text("uncommitted\n")
    tree = CommittedTree(repo / "pkg", "HEAD")  # from a subdirectory, paths are still the repository's
    assert tree.paths() == ["README.md", "pkg/AGENTS.md"]
    assert tree.read("pkg/AGENTS.md") == "committed\n" and tree.read("missing.md") is None
    assert CommittedTree(repo, "no-such-ref").paths() == []


def test_a_committed_tree_follows_a_link_inside_the_tree_only(repo: Path) -> None:
    (repo / "CLAUDE.md").write_text("the rules\n")
    (repo / "AGENTS.md").symlink_to("CLAUDE.md")
    (repo / "docs").mkdir()
    (repo / "docs" / "AGENTS.md").symlink_to("../../outside.md")
    (repo / "loop.md").symlink_to("loop.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "links")
    tree = CommittedTree(repo, "HEAD")
    assert tree.read("AGENTS.md") == "the rules\n"
    assert tree.read("docs/AGENTS.md") is None and tree.read("loop.md") is None


def test_the_base_text_is_the_base_commits_whatever_the_workspace_or_its_branch_does_after(repo: Path) -> None:
    forge = LocalForge(repo, "run-1")
    forge.start("task")
    ws = forge.workspace("a")
    assert ws.base_text("README.md") == git(repo, "show", "HEAD:README.md")
    assert ws.base_text("new.py") is None
    (ws.path / "README.md").write_text("edited\n")
    (ws.path / "new.py").write_text("X = 1\n")
    ws.commit("Edit", "", {})
    (repo / "README.md").write_text("moved on\n")  # the user's branch moves on: the base does not
    git(repo, "commit", "-qam", "later")
    assert ws.base_text("README.md") != "moved on\n" and ws.base_text("README.md") == git(repo, "show",
                                                                                          "HEAD~1:README.md")
    assert ws.base_text("new.py") is None


def test_a_held_workspace_reads_what_changed_once_and_refuses_writes(repo: Path) -> None:
    """The judge's view of a candidate through one verdict: one read of what changed, the tree left as it is."""
    forge = LocalForge(repo, "run-1")
    forge.start("task")
    ws = forge.workspace("a")
    (ws.path / "new.py").write_text("X = 1\n")
    held = HeldWorkspace(ws)
    assert held.changed_paths() == ["new.py"] and "+X = 1" in held.diff()
    (ws.path / "later.py").write_text("Y = 2\n")  # nothing should write while it is held: if it does, it is unseen
    assert held.changed_paths() == ["new.py"] and "later.py" not in held.diff()
    assert ws.changed_paths() == ["later.py", "new.py"]
    held.changed_paths().append("mine")  # each caller gets its own list
    assert held.changed_paths() == ["new.py"]
    assert held.base_text("README.md") == ws.base_text("README.md") and held.head() == ws.head()
    for write in (lambda: held.commit("x", "", {}), lambda: held.reset(ws.head()), held.discard):
        with pytest.raises(RuntimeError, match="held still"):
            write()
    assert ws.changed_paths() == ["later.py", "new.py"]  # nothing was written


def test_a_base_git_could_not_read_for_a_moment_is_read_again_not_remembered_as_absent(repo: Path) -> None:
    forge = LocalForge(repo, "run-1")
    forge.start("task")
    ws = forge.workspace("a")
    objects = repo / ".git" / "objects"
    objects.rename(repo / ".git" / "objects-away")  # every object unreadable, as in a failing disk or a lock
    try:
        assert ws.base_text("README.md") is None
    finally:
        (repo / ".git" / "objects-away").rename(objects)
    readme = git(repo, "show", "HEAD:README.md")
    assert ws.base_text("README.md") == readme
    assert ws.base_text("missing.py") is None  # absent at the base: known
    objects.rename(repo / ".git" / "objects-away")
    try:  # what was known is remembered
        assert ws.base_text("README.md") == readme and ws.base_text("missing.py") is None
    finally:
        (repo / ".git" / "objects-away").rename(objects)
