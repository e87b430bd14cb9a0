#!/usr/bin/env python
"""The twins and stand-ins on honest changes: every bench task's reference fix, judged by the real engine with and
without them.

For each task, the engine (`run_task`, one team, the real sandbox) is given the task's `solution.patch` as its
coder's only reply (one SEARCH/REPLACE block per changed file, the whole file replaced) and judges it as it judges
any candidate: twice, once as it is and once with no twins planted and no stand-ins run (`sentinels.twins` and
`team_judge.stand_ins` replaced by ones that make none). A reference fix is honest, so it must be delivered both
times with nothing refused; the difference in the run's duration is what the twins and the stand-ins' process
cost. Prints one line per task and the totals:

    .venv/bin/python bench/twins.py [--set design|held_out|all] [--tasks ID ...] [--runs 3] [--json FILE]

The twins planted for a task are counted by calling `bot.ensemble.judge.twins.twins` (and its stand-ins by
`stand_ins`) on the tests the task's judge requires at the base (those it names and the base's failures).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent


def _real_model() -> Any:
    """bench/real_model.py, loaded by its file (it keeps bench/ off sys.path: bench/sandbox.py shadows the engine's,
    and puts the checkout on it unless PYTHONPATH names the engine to measure)."""
    if "bench_real_model" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_real_model", BENCH / "real_model.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_real_model"]


real_model = _real_model()
git, load_task, make_repo, task_ids = real_model.git, real_model.load_task, real_model.make_repo, real_model.task_ids

# switching the twins and stand-ins off (the "without" column) reaches inside the judge on purpose
import bot.ensemble.judge.runs as team_judge  # noqa: E402
import bot.ensemble.judge.sentinels as sentinels  # noqa: E402
from bot.config import Config, Models, RoleModel  # noqa: E402
from bot.ensemble.judge.twins import stand_ins, twins  # noqa: E402
from bot.ensemble.runner import Components, run_task  # noqa: E402
from bot.ensemble.types import RunResult, Task  # noqa: E402
from fakes.engine_parts import FileRetriever  # noqa: E402

NOTHING_TO_EXPLORE = {"search": [], "open": [], "symbols": []}
ACCEPT = {"verdict": "accept", "feedback": "The change fixes the issue."}


def whole_file_blocks(repo: Path, patch: Path) -> str:
    """The reference fix as edit blocks: each file it changes, replaced whole (a new file created)."""
    work = make_repo(repo, Path(tempfile.mkdtemp(prefix="twins-fix-")) / "repo")
    subprocess.run(["git", "apply", str(patch)], cwd=work, check=True)
    changed = git(work, "status", "--porcelain", "--untracked-files=all").splitlines()
    blocks = []
    for line in changed:
        path = line[3:].strip()
        before = (repo / path).read_text() if (repo / path).exists() else ""
        after = (work / path).read_text() if (work / path).exists() else ""
        blocks.append(f"{path}\n<<<<<<< SEARCH\n{before.rstrip(chr(10))}\n=======\n{after.rstrip(chr(10))}\n"
                      ">>>>>>> REPLACE" if before else f"{path}\n<<<<<<< SEARCH\n=======\n{after.rstrip(chr(10))}\n"
                      ">>>>>>> REPLACE")
    return "\n\n".join(blocks)


@contextlib.contextmanager
def no_twins() -> Iterator[None]:
    """Judged runs plant no twins and run no stand-ins while inside."""
    made, standing = sentinels.twins, team_judge.stand_ins
    sentinels.twins = lambda *_args, **_kwargs: ()  # type: ignore[assignment]
    team_judge.stand_ins = lambda *_args, **_kwargs: ()  # type: ignore[assignment]
    try:
        yield
    finally:
        sentinels.twins, team_judge.stand_ins = made, standing


def judged(task: dict[str, Any], fix: str, scratch: Path, hidden: str = "") -> RunResult:
    """One engine run on a fresh copy of the task's repository, the fix its coder's only reply (and `hidden`, when
    given, its reply to the hidden check's request)."""
    repo = make_repo(task["repo"], scratch / "repo")
    plan = {"summary": task["title"], "files": [], "steps": ["Fix the code"], "questions": []}
    transcript = scratch / "transcript.jsonl"
    transcript.write_text("\n".join(json.dumps(e) for e in (
        {"role": "planner", "schema": "plan", "reply": plan, "repeat": True},
        {"role": "planner", "reply": NOTHING_TO_EXPLORE, "repeat": True},
        {"role": "coder", "reply": fix},
        *([{"role": "coder", "reply": hidden}] if hidden else []),
        {"role": "critic", "reply": ACCEPT, "repeat": True})))
    scripted = RoleModel("scripted", str(transcript))
    config = Config(ensembles=1, max_iterations=1, models=Models(planner=scripted, coder=scripted, critic=scripted))
    return run_task(repo, Task(task["title"], task["body"]), config, {}, Components(
        retriever=FileRetriever(repo), use_cache=False))


def measure(task_id: str, runs: int) -> dict[str, Any]:
    task = load_task(task_id)
    fix = whole_file_blocks(task["repo"], task["folder"] / "solution.patch")
    read = lambda p: (task["repo"] / p).read_text() if (task["repo"] / p).is_file() else None  # noqa: E731
    made = twins(task["fail_to_pass"], read, "sbench0000000")
    stand = stand_ins(task["fail_to_pass"], read, "sbench0000000")
    timings: dict[str, list[float]] = {"with": [], "without": []}
    outcome: dict[str, Any] = {"task": task_id, "twins": len(made), "stand_ins": len(stand), "delivered": True,
                               "refused": []}
    for _ in range(runs):
        for mode in ("with", "without"):
            with tempfile.TemporaryDirectory(prefix="twins-bench-") as scratch, \
                    no_twins() if mode == "without" else contextlib.nullcontext():
                result = judged(task, fix, Path(scratch))
            timings[mode].append(result.duration_s)
            if mode == "with":
                outcome["delivered"] = outcome["delivered"] and result.success
                outcome["refused"] += [r for r in result.refused if r not in outcome["refused"]]
    outcome.update({m: round(statistics.median(t), 2) for m, t in timings.items()})
    return outcome


def summary(records: list[dict[str, Any]]) -> str:
    """The totals line: how many reference fixes were delivered and refused, the twins and stand-ins planted, and
    what they cost a run where the task had twins (the median and the worst, with its task)."""
    twinned = [r for r in records if r["twins"]]
    extra = sorted((round(r["with"] - r["without"], 2), r["task"]) for r in twinned)
    cost = (f"median {statistics.median(e for e, _ in extra):+.2f} s a run, worst {extra[-1][0]:+.2f} s "
            f"({extra[-1][1]})") if extra else "none twinned"
    return (f"{len(records)} reference fixes: {sum(r['delivered'] for r in records)} delivered with twins and "
            f"stand-ins, {sum(bool(r['refused']) for r in records)} refused; {len(twinned)} tasks had twins "
            f"({sum(r['twins'] for r in records)} in all, {sum(r['stand_ins'] for r in records)} stand-ins); cost "
            f"where twinned: {cost}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="design", choices=("design", "held_out", "all"))
    parser.add_argument("--tasks", nargs="*", help="task ids (default: every task of --set)")
    parser.add_argument("--runs", type=int, default=3, help="runs each way per task (median reported)")
    parser.add_argument("--json", type=Path, help="write the records here")
    args = parser.parse_args()
    records = []
    for task_id in args.tasks or task_ids(None if args.set == "all" else args.set):
        record = measure(task_id, args.runs)
        records.append(record)
        print(f"{task_id:30s} twins {record['twins']}  stand-ins {record['stand_ins']}  delivered {'yes' if record['delivered'] else 'NO '}  "
              f"with {record['with']:6.2f} s  without {record['without']:6.2f} s"
              + (f"  refused: {record['refused'][0][:120]}" if record["refused"] else ""), flush=True)
        if args.json:
            args.json.write_text(json.dumps(records, indent=1))
    print("\n" + summary(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
