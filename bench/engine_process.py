#!/usr/bin/env python
"""What running the engine in its own process costs: start-up and the round trip of the data.

    .venv/bin/python bench/engine_process.py [--runs 5]

The Action runs the engine in a child process that holds no GitHub token (actions/engine_process.py).
This times `ChildEngine` with an engine that reports one progress event and returns a full
`RunResult` at once, so what is measured is the child alone: the interpreter's start, its imports,
the request and the result through JSON. "first progress" is the start-up (from the call to the
child's first report), "round trip" the whole call; the same engine called in this process is the
baseline. The engine's own imports (retrieval, sandbox) are paid in the child instead of the
handler, not on top.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

BENCH = Path(__file__).resolve().parent
# bench/ itself off the path: bench/sandbox.py would shadow the `sandbox` package (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
sys.path.insert(0, str(BENCH.parent))

from actions.engine_process import ChildEngine  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.ensemble.types import ACCEPTED, Phase, Plan, Progress, RunResult, Task, TestOutcome  # noqa: E402
from bot.forge import Commit  # noqa: E402

TASK = Task("Fix median", "even counts are wrong", slug="issue-1")


def instant(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
            progress: Progress, stop: threading.Event) -> RunResult:
    """An engine that reports once and returns a result with its nested parts filled in."""
    progress("a", Phase.INDEXING, 0, str(time.time()))
    return RunResult(run_id, task, branch="ensemble/issue-1", commits=[Commit("a" * 40, "Fix")],
                     plan=Plan("Fix", ("a.py",), ("step",)), stop_reason=ACCEPTED,
                     tests_before=TestOutcome(False, ("t",), results=(("t", "fail"),)),
                     tests_after=TestOutcome(True, results=(("t", "pass"),)), diff="+x\n" * 200)


def one_run(engine: ChildEngine, repo: Path, env: Mapping[str, str]) -> tuple[float, float]:
    """Seconds to the first progress report and to the result."""
    first: list[float] = []
    started = time.perf_counter()
    engine(repo, TASK, Config(), env, run_id="bench", stop=threading.Event(),
           progress=lambda *report: first.append(time.perf_counter()))
    return first[0] - started, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs to take the median of")
    args = parser.parse_args()
    env = {name: os.environ[name] for name in ("PATH", "HOME") if name in os.environ}
    env["PYTHONPATH"] = str(BENCH)  # the child finds this module as `engine_process`
    engine = ChildEngine(entry="engine_process:instant")
    with tempfile.TemporaryDirectory(prefix="ensemble-bench-") as tmp:
        started = time.perf_counter()
        instant(Path(tmp), TASK, Config(), env, run_id="bench", progress=lambda *r: None, stop=threading.Event())
        baseline = time.perf_counter() - started
        runs = [one_run(engine, Path(tmp), env) for _ in range(args.runs)]
    startup, total = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    print(f"in this process: {baseline * 1000:.1f} ms")
    print(f"child process:   first progress {startup:.2f} s, round trip {total:.2f} s "
          f"(median of {args.runs}; min {min(r[1] for r in runs):.2f} s, max {max(r[1] for r in runs):.2f} s)")


if __name__ == "__main__":
    main()
