"""`ensemble doctor` says whether retrieval has the repository's history, and how to fetch it when a clone is shallow."""

from __future__ import annotations

from pathlib import Path

from bot.config import Config, IndexSpec
from bot.doctor import DoctorContext, check_history, render, run_checks
from tests.conftest import git


def _history(repo: Path, commits: int) -> None:
    for n in range(commits):
        (repo / "mod.py").write_text(f"VALUE = {n}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"change {n}")


def test_a_full_clone_has_history_to_rank_with(repo: Path):
    _history(repo, 3)
    found = check_history(DoctorContext(repo, {}))
    assert found.ok and "4 commits reachable from HEAD" in found.detail


def test_a_shallow_clone_is_named_with_the_cheap_fetch_that_fixes_it(repo: Path, tmp_path: Path):
    _history(repo, 3)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    found = check_history(DoctorContext(shallow, {}))
    assert not found.ok and not found.essential
    assert "shallow clone (1 commits)" in found.detail and "without the repository's history" in found.detail
    assert "git fetch --filter=blob:none --unshallow" in found.fix
    report = render(run_checks(shallow, {}))
    assert "Retrieval history" in report and "fix: `git fetch --filter=blob:none --unshallow`" in report

    git(shallow, "fetch", "-q", "--filter=blob:none", "--unshallow")  # what the fix says, from a local origin
    assert check_history(DoctorContext(shallow, {})).ok


def test_the_channel_turned_off_in_the_config_is_not_a_problem(repo: Path, tmp_path: Path):
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    found = check_history(DoctorContext(shallow, {}, Config(index=IndexSpec(history=False))))
    assert found.ok and "index.history: false" in found.detail
