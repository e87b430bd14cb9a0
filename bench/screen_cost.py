#!/usr/bin/env python
"""What the static screen costs a run: the screen of single files, and one engine run whose fix is in a large module.

    .venv/bin/python bench/screen_cost.py [--lines 2000] [--runs 3] [--json FILE]

1. The project's five largest Python files, each screened as a round screens a changed file
   (`bot.ensemble.judge.screen.runner_hooks`: the file at the base and now): the first time, and again (a run
   screens each changed file at every round, and again for the critic and the PR).
2. The sample repository (`bot.ensemble.demo.create_sample_repo`) whose stats/core.py is grown to `--lines` lines of
   plain helper functions, fixed by the real engine (`run_task`: one team, a scripted planner, coder and critic,
   bench/team_walk.py's `ScriptedClient`) and judged in the real local sandbox (host pytest): the median wall time
   of `--runs` runs. Run it at two commits to compare them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bot.config import Config  # noqa: E402
from bot.ensemble.adapters import SandboxRunner  # noqa: E402
from bot.ensemble.demo import create_sample_repo  # noqa: E402
from bot.ensemble.judge.screen import runner_hooks  # noqa: E402
from bot.ensemble.runner import Components, run_task  # noqa: E402
from bot.ensemble.types import Task  # noqa: E402
from fakes.engine_parts import FileRetriever  # noqa: E402
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO  # noqa: E402
from sandbox import LocalSandbox, SandboxSpec  # noqa: E402

TASK = Task("median() is wrong for an even number of values", "median([1, 2, 3, 4]) returns 3; expected 2.5.",
            slug="median")
HELPER = ("\n\ndef helper_{i}(values, scale=2):\n    total = 0\n    for v in values:\n        if v % 3 == 0:\n"
          "            total += v * scale\n        else:\n            total -= v\n    return {{'total': total}}\n")


def _team_walk() -> Any:
    spec = importlib.util.spec_from_file_location("team_walk", ROOT / "bench" / "team_walk.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules["team_walk"] = importlib.util.module_from_spec(spec)  # its dataclasses look it up there
    spec.loader.exec_module(module)
    return module


def timed(call) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def screens() -> list[dict[str, Any]]:
    """Part 1: each of the five largest Python files screened as changed (a line added), first and again."""
    files = sorted((p for folder in ("bot", "sandbox", "indexer", "actions") for p in (ROOT / folder).rglob("*.py")),
                   key=lambda p: -p.stat().st_size)[:5]
    rows = []
    for path in files:
        text, relative = path.read_text(), str(path.relative_to(ROOT))
        now = text + "\n\nANSWER = 42\n"
        first = timed(lambda: runner_hooks(relative, text, now))  # noqa: B023 - called at once
        again = timed(lambda: runner_hooks(relative, text, now))  # noqa: B023
        rows.append({"file": relative, "lines": len(text.splitlines()), "first_s": round(first, 3),
                     "again_s": round(again, 4)})
    return rows


def engine_runs(lines: int, runs: int) -> list[float]:
    """Part 2: the wall seconds of each engine run on the sample grown to `lines` lines in stats/core.py."""
    walk = _team_walk()
    script = {("planner", "explore"): [ENOUGH], ("planner", "plan"): [PLAN], ("coder", None): [REPRO, FIX],
              ("critic", "review"): [ACCEPT]}
    spec = SandboxSpec(setup="", test="PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -m pytest -q -p no:cacheprovider",
                       timeout_s=120)
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            sample = create_sample_repo(Path(tmp) / "sample")
            core = sample / "stats" / "core.py"
            grown, i = core.read_text(), 0
            while len(grown.splitlines()) < lines:
                grown, i = grown + HELPER.format(i=i), i + 1
            core.write_text(grown)
            subprocess.run(["git", "commit", "-qam", "helpers"], cwd=sample, check=True)
            runner = SandboxRunner(LocalSandbox(env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}), spec)
            parts = Components(models=walk.ScriptedClient(script), retriever=FileRetriever(sample), runner=runner)
            started = time.perf_counter()
            result = run_task(sample, TASK, Config(ensembles=1), {}, parts)
            times.append(round(time.perf_counter() - started, 2))
            if not result.success:
                raise SystemExit(f"the run did not deliver the fix: {result.stop_detail}")
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000, help="lines of the module the fix is in (default 2000)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    rows = screens()
    for row in rows:
        print(f"{row['file']:40} {row['lines']:5} lines: screened {row['first_s']:.3f} s, again {row['again_s']:.4f} s")
    times = engine_runs(args.lines, args.runs)
    print(f"engine run, the fix in a {args.lines}-line module: median {statistics.median(times):.2f} s "
          f"({', '.join(f'{t:.2f}' for t in times)})")
    if args.json:
        args.json.write_text(json.dumps({"screens": rows, "lines": args.lines, "engine_runs_s": times}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
