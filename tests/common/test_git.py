"""The git facade: output, exit-status questions, and errors that name the command and git's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.git import GitError, git, git_bytes, git_succeeds


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.txt").write_text("one\n")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-q", "-m", "first")
    return tmp_path


def test_output_text_bytes_and_stdin(repo: Path) -> None:
    assert git(repo, "log", "--format=%s") == "first\n"
    assert git_bytes(repo, "show", "HEAD:a.txt") == b"one\n"
    blob = git(repo, "hash-object", "--stdin", stdin="one\n").strip()
    assert blob == git(repo, "rev-parse", "HEAD:a.txt").strip()


def test_a_failing_command_names_the_command_the_folder_and_gits_stderr(repo: Path) -> None:
    with pytest.raises(GitError) as caught:
        git(repo, "show", "HEAD:missing.txt")
    error = caught.value
    assert "`git show HEAD:missing.txt` failed in" in str(error) and str(repo) in str(error)
    assert "exit 128" in str(error)
    assert "missing.txt" in error.stderr and error.stderr in str(error)  # git's own words, whole
    assert (error.command, error.returncode) == (("show", "HEAD:missing.txt"), 128)


def test_a_hint_says_how_to_fix_it(tmp_path: Path) -> None:
    with pytest.raises(GitError, match=r"not a git repository.*; run `git init` first"):
        git(tmp_path, "ls-files", hint="run `git init` first")


def test_unchecked_commands_and_exit_status_questions(repo: Path) -> None:
    assert git(repo, "rev-parse", "--verify", "-q", "no-such-branch", check=False) == ""
    assert git_succeeds(repo, "rev-parse", "--verify", "-q", "HEAD")
    assert not git_succeeds(repo, "check-ignore", "-q", "a.txt")


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(GitError, match=r"`git status` could not run: the folder .*gone does not exist"):
        git(tmp_path / "gone", "status")


def test_a_long_command_and_long_stderr_are_cut_keeping_the_end(repo: Path) -> None:
    missing = [f"missing-{i}.txt" for i in range(300)]  # one complaint per path
    with pytest.raises(GitError) as caught:
        git(repo, "checkout-index", *missing)
    message = str(caught.value)
    assert message.startswith("`git checkout-index missing-0.txt missing-1.txt") and len(message) < 2500
    assert message.endswith("missing-299.txt is not in the cache") and "missing-0.txt is not in" not in message


def test_every_layer_reports_the_facades_error(tmp_path: Path) -> None:
    from actions.gitops import human_commits
    from bot.forge.local import LocalForge
    from indexer.files import list_files

    for call, command in ((lambda: list_files(tmp_path), "`git ls-files -s -z`"),
                          (lambda: LocalForge(tmp_path, "run-1"), "`git rev-parse --show-toplevel`"),
                          (lambda: human_commits(tmp_path, "ensemble/issue-1", None), "`git log")):
        with pytest.raises(GitError) as caught:
            call()
        assert command in str(caught.value) and "not a git repository" in str(caught.value)
