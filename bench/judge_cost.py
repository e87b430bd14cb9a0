#!/usr/bin/env python
"""What each of the judge's test processes costs: every bench task's reference fix judged by the real engine, each
test process timed and named by what it is for.

For each task the engine (`run_task`, one team, the real Docker sandbox) is given the task's `solution.patch` as its
coder's only reply, as bench/twins.py does, and every test process the run starts is timed and named:

- `base run`: the base's tests, once before any model call (known-answer checks planted, reads traced);
- `base's tests`: a candidate's first process, the base's tests over the candidate's tree (twins planted);
- `stand-ins`: the process the tests a change must fix run in with their assertions expecting another value;
- `new tests`: the candidate's new test files alone;
- `hidden check at base`, `hidden check`: the check the coder never sees, over the base and over the candidate;
- `corroboration`: another team's reproduction test over this team's change.

Prints each task's processes, then per kind: how many, the median and the total seconds:

    .venv/bin/python bench/judge_cost.py [--set design|held_out|all] [--tasks ID ...] [--json FILE]

It reaches inside the judge on purpose (a process is named by the judge's function that started it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

BENCH = Path(__file__).resolve().parent
KINDS = ("base run", "base's tests", "stand-ins", "new tests", "hidden check at base", "hidden check", "corroboration")


def _twins_bench() -> Any:
    """bench/twins.py, loaded by its file (bench/ stays off sys.path, see bench/real_model.py)."""
    spec = importlib.util.spec_from_file_location("bench_twins", BENCH / "twins.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


twins_bench = _twins_bench()
from bot.ensemble.adapters import SandboxRunner  # noqa: E402
from common.testids import file_of_test  # noqa: E402


def kind_of(frame: FrameType | None) -> str:
    """What the judge started the test process for, read from the functions on the stack."""
    names: list[tuple[str, FrameType]] = []
    while frame is not None:
        names.append((frame.f_code.co_name, frame))
        frame = frame.f_back
    called = [n for n, _ in names]
    if "run_base" in called:
        return "base run"
    if "hidden_check_at_base" in called:
        return "hidden check at base"
    if "judge_by_hidden_check" in called:
        return "hidden check"
    if "corroborate" in called:
        return "corroboration"
    if "_stood_in" in called:
        return "stand-ins"
    run = next((f for n, f in names if n == "run"), None)
    return "new tests" if run is not None and "first" in run.f_locals else "base's tests"


@contextmanager
def timed_processes(log: list[tuple[str, float]]) -> Iterator[None]:
    """Every SandboxRunner.run_tests call while inside appended to `log` as (kind, seconds)."""
    original: Callable[..., Any] = SandboxRunner.run_tests

    def run_tests(self: SandboxRunner, *args: Any, **kwargs: Any) -> Any:
        kind = kind_of(sys._getframe(1))
        started = time.monotonic()
        try:
            return original(self, *args, **kwargs)
        finally:
            log.append((kind, round(time.monotonic() - started, 2)))

    SandboxRunner.run_tests = run_tests  # type: ignore[method-assign]
    try:
        yield
    finally:
        SandboxRunner.run_tests = original  # type: ignore[method-assign]


def hidden_check(task: dict[str, Any]) -> str:
    """The coder's reply to the hidden check's request: the file of the task's first test that must pass, written
    anew (its tests fail at the base, as a hidden check must); none where that file is not in the repository."""
    path = file_of_test(task["fail_to_pass"][0], lambda p: (task["repo"] / p).is_file()) if task["fail_to_pass"] else ""
    source = task["repo"] / path if path else None
    if source is None or not source.is_file():
        return ""
    return f"{path}\n<<<<<<< SEARCH\n=======\n{source.read_text().rstrip()}\n>>>>>>> REPLACE"


def measure(task_id: str) -> dict[str, Any]:
    task = twins_bench.load_task(task_id)
    fix = twins_bench.whole_file_blocks(task["repo"], task["folder"] / "solution.patch")
    log: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="judge-cost-") as scratch, timed_processes(log):
        result = twins_bench.judged(task, fix, Path(scratch), hidden_check(task))
    return {"task": task_id, "delivered": result.success, "wall_s": round(result.duration_s, 2),
            "processes": [{"kind": k, "s": s} for k, s in log]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="design", choices=("design", "held_out", "all"))
    parser.add_argument("--tasks", nargs="*", help="task ids (default: every task of --set)")
    parser.add_argument("--json", type=Path, help="write the records here")
    args = parser.parse_args()
    records = []
    for task_id in args.tasks or twins_bench.task_ids(None if args.set == "all" else args.set):
        record = measure(task_id)
        records.append(record)
        spent = ", ".join(f"{p['kind']} {p['s']:.1f}" for p in record["processes"])
        print(f"{task_id:30s} delivered {'yes' if record['delivered'] else 'NO '} wall {record['wall_s']:6.1f} s  "
              f"{len(record['processes'])} processes: {spent}", flush=True)
        if args.json:
            args.json.write_text(json.dumps(records, indent=1))
    print(f"\n{len(records)} reference fixes, {sum(r['delivered'] for r in records)} delivered; per process kind:")
    for kind in KINDS:
        times = [p["s"] for r in records for p in r["processes"] if p["kind"] == kind]
        if times:
            print(f"  {kind:22s} {len(times):3d} processes  median {statistics.median(times):5.2f} s  "
                  f"total {sum(times):7.1f} s")
    per_task = [sum(p["s"] for p in r["processes"]) for r in records]
    if per_task:
        print(f"  judged time per task: median {statistics.median(per_task):.1f} s, "
              f"processes per task: median {statistics.median(len(r['processes']) for r in records)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
