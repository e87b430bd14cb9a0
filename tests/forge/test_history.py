"""The delivered history against real git: a round the kept tree does not hold leaves no commit; the rest stay."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot.forge.history import delivered, rebuild
from bot.forge.local import LocalForge

ZEROS = "0" * 40


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def commit(repo: Path, files: dict[str, str | None], message: str, author: str = "Bot <bot@example.com>") -> str:
    """Write (or, for None, delete) `files` and commit them; returns the sha."""
    for name, text in files.items():
        if text is None:
            (repo / name).unlink()
        else:
            (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=x", "-c", "user.email=x@example.com", "commit", "-q", f"--author={author}",
        "--date=2001-02-03T04:05:06+00:00", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def test_only_commits_whose_every_change_is_kept_are_delivered() -> None:
    kept = {"core.py": ("100644", "b2"), "test_repro.py": ("100644", "t1"), "gone.py": ("000000", ZEROS)}
    steps = [{"test_repro.py": ("100644", "t1")},  # the reproduction test, kept as written
             {"test_repro.py": ("100644", "t1"), "test_aaa.py": ("100644", "cheat")},  # a file the kept tree lacks
             {"test_repro.py": ("100644", "t1"), "core.py": ("100644", "b1")},  # a half fix, replaced later
             {"test_repro.py": ("100644", "t1"), "core.py": ("100644", "b2"), "gone.py": ("000000", ZEROS)}]
    assert delivered(steps, kept) == [True, False, False, True]


def test_a_cheat_and_its_undoing_fold_into_the_kept_commit(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    repro = commit(repo, {"test_repro.py": "def test_r(): assert False\n"}, "Add reproduction test")
    commit(repo, {"test_aaa.py": "import pytest\npytest.exit('done')\n"}, "Fix (round 1)")
    head = commit(repo, {"test_aaa.py": None, "core.py": "X = 2\n"}, "Fix (round 2)\n\nEnsemble-Run: r1",
                  author="Someone <someone@example.com>")
    rebuilt = rebuild(repo, base, head)
    log = git(repo, "log", "--reverse", "--format=%H %s", f"{base}..{rebuilt.head}").splitlines()
    assert log == [f"{repro} Add reproduction test", f"{log[1].split()[0]} Fix (round 2)"]  # the first one unchanged
    assert [summary for _, summary in rebuilt.folded] == ["Fix (round 1)"]
    assert "pytest.exit" not in git(repo, "log", "-p", f"{base}..{rebuilt.head}")
    assert git(repo, "rev-parse", f"{rebuilt.head}^{{tree}}") == git(repo, "rev-parse", f"{head}^{{tree}}")
    fields = "%an <%ae> %ad|%cn <%ce> %cd|%B"
    assert git(repo, "log", "-1", f"--format={fields}", rebuilt.head) == git(repo, "log", "-1", f"--format={fields}",
                                                                             head)


def test_a_history_with_nothing_to_fold_is_published_as_made(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    commit(repo, {"helper.py": "Y = 1\n"}, "Add a helper (round 1)")
    head = commit(repo, {"core.py": "X = 2\n"}, "Fix (round 2)")
    assert rebuild(repo, base, head).head == head and not rebuild(repo, base, head).folded


def test_a_continued_branch_keeps_its_tip_and_folds_only_this_runs_rounds(repo: Path) -> None:
    first = LocalForge(repo, "run-1")
    first.start("task")
    ws = first.workspace("a")
    (ws.path / "human.txt").write_text("a maintainer's note\n")
    ws.commit("a human's commit on the branch", "", {})
    tip = first.publish(ws)[-1].sha
    first.cleanup()
    second = LocalForge(repo, "run-2")
    second.start("task")
    ws = second.workspace("a")
    (ws.path / "cheat.py").write_text("CHEAT = 1\n")
    ws.commit("round 1", "", {"Ensemble-Run": "run-2"})
    (ws.path / "cheat.py").unlink()
    (ws.path / "fix.py").write_text("FIX = 1\n")
    ws.commit("round 2", "", {"Ensemble-Run": "run-2"})
    published = second.publish(ws)
    second.cleanup()
    assert [c.summary for c in published] == ["round 2"]
    assert git(repo, "log", "--format=%s", "ensemble/task").splitlines()[:3] == [
        "round 2", "a human's commit on the branch", "initial"]
    assert git(repo, "rev-parse", "ensemble/task^").strip() == tip
