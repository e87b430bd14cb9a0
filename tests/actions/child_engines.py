"""Small engines for `ChildEngine(entry=...)`: imported and run inside the real engine process.

Each has the `Engine` signature; what they do is the point of one test in test_engine_process.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from bot.config import Config
from bot.ensemble.types import (
    ACCEPTED,
    STOPPED,
    Judgement,
    Phase,
    Plan,
    Progress,
    Refusal,
    Reproduction,
    Retrieved,
    RunnerHook,
    RunResult,
    Task,
    TeamSummary,
    TestChange,
    TestOutcome,
)
from bot.ensemble.update import UpdateJob, UpdateResult
from bot.forge import Commit
from bot.llm.budget import RoleSpend, no_spend


def full_result(run_id: str, task: Task) -> RunResult:
    """A result with every nested part filled in."""
    return RunResult(
        run_id, task, branch=f"ensemble/{task.slug}", commits=[Commit("a" * 40, "Fix median")],
        plan=Plan("Fix median", ("stats/core.py",), ("Reproduction test: tests/test_even.py", "Average the middle")),
        stop_reason=ACCEPTED, stop_detail="accepted in round 2",
        tests_before=TestOutcome(False, ("tests/test_even.py::test_even",), "1 failed", 1, 3, 1.5,
                                 (("tests/test_even.py::test_even", "fail"), ("tests/test_core.py::test_odd", "pass"))),
        tests_after=TestOutcome(True, (), "3 passed", 0, 3, 1.2, (("tests/test_even.py::test_even", "pass"),)),
        reproduction=Reproduction("tests/test_even.py", True, True, "fails before",
                                   (Refusal("runner", "conftest.py", "harness"),)),
        retrieved=[Retrieved("stats/core.py", "search", 0.75, 1, 20, "median")],
        usage={**no_spend(), "calls": 4, "cost_usd": 0.0123, "by_role": {"coder": RoleSpend(calls=2, cost_usd=0.01).figures()},
               "fallbacks": [{"role": "coder", "from": "openai/gpt-4o-mini", "to": "gemini/gemini-2.5-flash",
                              "reason": "RateLimited: 429"}]},
        winner="a", teams=[TeamSummary("a", 1, "tests pass", ACCEPTED, 2, True, True, 1, refused=("ci.yml: CI file",),
                                       models="gpt-4o/gpt-4o-mini/gemini-2.5-flash")],
        decision="a: tests pass", diff="+x\n",
        duration_s=12.5, notes=["one note"], environment="python, docker", refused=["ci.yml: CI file"],
        trace="/tmp/trace.jsonl",
        judgement=Judgement(True, "fixed 1", fixed=("tests/test_even.py::test_even",), per_test=True),
        test_changes=[TestChange("tests/test_core.py", "-old\n+new\n")],
        runner_hooks=[RunnerHook("stats/__init__.py", 7, "patches builtins.median", "builtins.median = median")])


def reporting(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
              progress: Progress, stop: threading.Event) -> RunResult:
    """Reports every phase, prints to stdout (which must not disturb the protocol), returns `full_result`."""
    print("a library printing to stdout")
    for phase in (Phase.INDEXING, Phase.PLANNING, Phase.CODING, Phase.TESTING, Phase.REVIEWING):
        progress("a", phase, 1, f"{phase} in {repo_dir.name}")
    return full_result(run_id, task)


def until_stopped(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
                  progress: Progress, stop: threading.Event) -> RunResult:
    """Works until asked to stop, then returns its best result so far."""
    progress("a", Phase.CODING, 1, "")
    stop.wait(60)
    result = full_result(run_id, task)
    result.stop_reason = STOPPED if stop.is_set() else ACCEPTED
    return result


def failing(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
            progress: Progress, stop: threading.Event) -> RunResult:
    raise ValueError("the index under .ensemble/index is unreadable")


def dying(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
          progress: Progress, stop: threading.Event) -> RunResult:
    """Dies without a word on the protocol, as a crash in native code would."""
    print("segmentation fault in libfaiss", file=sys.stderr, flush=True)
    os._exit(3)


def hanging(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
            progress: Progress, stop: threading.Event) -> RunResult:
    """Ignores stops and deadlines; starts a process of its own, whose pid it reports, that hangs too."""
    sleeper = subprocess.Popen(["sleep", "300"])
    progress("a", Phase.TESTING, 1, str(sleeper.pid))
    while True:
        time.sleep(1)


def environment(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
                progress: Progress, stop: threading.Event) -> RunResult:
    """Reports its own process's environment, one variable per progress report."""
    for name, value in os.environ.items():
        progress(name, Phase.INDEXING, 0, value)
    return RunResult(run_id, task, stop_reason=ACCEPTED)


def planning(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str]) -> Plan:
    return Plan(f"plan for {task.title}", ("a.py",), ("step one",), ("which file?",), "tests/test_a.py")


def pushing(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
            progress: Progress, stop: threading.Event) -> RunResult:
    """Tries to push from its working copy with its own environment; reports what happened and what
    the working copy's git configuration holds."""
    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, timeout=60)

    git("checkout", "-q", "-b", f"ensemble/{task.slug}")
    pushed = git("push", "origin", f"HEAD:refs/heads/ensemble/{task.slug}")
    progress("a", Phase.CODING, 1, f"push_status={pushed.returncode}")
    progress("a", Phase.CODING, 1, f"push_said={pushed.stderr.strip()}")
    progress("a", Phase.CODING, 1, f"git_config={git('config', '--list', '--show-origin').stdout}")
    progress("a", Phase.CODING, 1, f"remote={git('remote', 'get-url', 'origin').stdout.strip()}")
    return RunResult(run_id, task, stop_reason=STOPPED if stop.is_set() else ACCEPTED)


def host_updating(repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str], *, run_id: str,
                  progress: Progress, stop: threading.Event) -> UpdateResult:
    """The real update (`ensemble_updater`), with pytest on the host instead of the sandbox."""
    from actions.engine import ensemble_updater
    from bot.ensemble.runner import Components
    from fakes.engine_parts import HostPytest

    return ensemble_updater(repo_dir, job, config, env, run_id=run_id, progress=progress, stop=stop,
                            components=Components(runner=HostPytest()))
