"""A deterministic engine for the Action's tests and benchmarks: it commits a fixed change for real.

It stands where `actions.engine.ensemble_engine` runs the ensemble, takes the same arguments and
returns a `RunResult` shaped like the engine's, so everything the Action does around a run (push, PR,
progress comment, partial work, heal) runs for real without models, an index or a sandbox.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import Config
from bot.ensemble.types import (
    ACCEPTED,
    MAX_ITERATIONS,
    STOPPED,
    Judgement,
    Plan,
    Reproduction,
    Retrieved,
    RunResult,
    StopReason,
    Task,
    TestOutcome,
)
from bot.forge import Commit
from bot.llm.budget import RoleSpend, no_spend


@dataclass
class ScriptedEngine:
    """Writes `files` on the branch as one commit per call (with the bot's trailer) and reports success.

    `before_return` runs inside the engine (e.g. to post a stop comment mid-run); `fail` makes
    the run end without a passing change (stopped for `fail_reason`); `improved` makes such a run, or a
    stopped one, keep partial work: a commit that fixes one of two tests and breaks none.
    """

    files: Callable[[int], dict[str, str]] = lambda n: {"calc.py": f"def add(a, b):\n    return a + b  # v{n}\n"}
    fail: bool = False
    before_return: Callable[[threading.Event], None] | None = None
    calls: list[Task] = field(default_factory=list)
    git_configs: list[str] = field(default_factory=list)
    improved: bool = False
    fail_reason: StopReason = MAX_ITERATIONS
    configs: list[Config] = field(default_factory=list)

    def __call__(self, repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
                 progress: Callable[[str, str, int, str], None], stop: threading.Event) -> RunResult:
        self.calls.append(task)
        self.configs.append(config)
        assert "GITHUB_TOKEN" not in env, "the engine must never see the GitHub token"
        self.git_configs.append((repo_dir / ".git" / "config").read_text())
        for phase in ("indexing", "planning", "coding", "testing", "reviewing"):
            progress("a", phase, 1, "")
        result = RunResult(run_id, task, branch=f"ensemble/{task.slug}",
                           plan=Plan("Make add() add", ("calc.py",), ("Reproduction test: tests/test_calc.py",
                                                                        "Change - to + in add()")),
                           tests_before=TestOutcome(False, ("tests/test_calc.py::test_add",), total=1),
                           reproduction=Reproduction("tests/test_calc.py", failed_before=True, passed_after=True),
                           retrieved=[Retrieved("calc.py", "search", 0.9, 1, 2, "add")],
                           usage={**no_spend(), "calls": 3, "input_tokens": 1200, "output_tokens": 300,
                                  "cost_usd": 0.0123, "by_role": {"planner": RoleSpend(calls=1, input_tokens=500,
                                                                                       output_tokens=100,
                                                                                       cost_usd=0.01).figures()}})
        if self.before_return:
            self.before_return(stop)
        if stop.is_set():
            result.stop_reason = STOPPED
            return self._partial(result, repo_dir, run_id) if self.improved else result
        if self.fail:
            result.stop_reason, result.tests_after = self.fail_reason, TestOutcome(False, ("t",))
            return self._partial(result, repo_dir, run_id) if self.improved else result
        result.stop_reason, result.tests_after = ACCEPTED, TestOutcome(True, total=1)
        result.commits = [Commit(_commit(repo_dir, result.branch, self.files(len(self.calls)), run_id), "Make add() add")]
        return result

    def _partial(self, result: RunResult, repo_dir: Path, run_id: str) -> RunResult:
        """Partial work, as the engine lands it: one of two failing tests fixed, nothing broken."""
        fixed, left = "tests/test_calc.py::test_add", "tests/test_calc.py::test_add_negative"
        result.tests_after = TestOutcome(False, (left,), total=2, results=((fixed, "pass"), (left, "fail")))
        result.judgement = Judgement(False, f"required test(s) fail: {left}", fixed=(fixed,),
                                     required_failing=(left,), per_test=True)
        result.diff = "diff --git a/calc.py b/calc.py\n"
        result.commits = [Commit(_commit(repo_dir, result.branch, self.files(len(self.calls)), run_id),
                                 "Make add() add (partial)")]
        return result


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def _commit(repo_dir: Path, branch: str, files: dict[str, str], run_id: str) -> str:
    """Commit `files` on `branch` (continuing it when it exists) without moving the clone's HEAD."""
    base = subprocess.run(["git", "rev-parse", "--verify", "-q", f"refs/heads/{branch}"], cwd=repo_dir,
                          capture_output=True, text=True).stdout.strip() or _git(repo_dir, "rev-parse", "HEAD")
    work = repo_dir.parent / f"{repo_dir.name}-engine-wt"
    _git(repo_dir, "worktree", "add", "-q", "--detach", str(work), base)
    for name, text in files.items():
        (work / name).write_text(text)
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", f"Make add() add\n\nEnsemble-Run: {run_id}\nEnsemble-Model: fake/fake/fake")
    sha = _git(work, "rev-parse", "HEAD")
    _git(repo_dir, "worktree", "remove", "--force", str(work))
    _git(repo_dir, "update-ref", f"refs/heads/{branch}", sha)
    return sha
