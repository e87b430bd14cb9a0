#!/usr/bin/env python
"""Time to a delivered change with the hidden check written after the first good change (`hidden_check: on`) and
beside the first round (`early`), for a model that answers requests side by side, as a hosted API does.

    .venv/bin/python bench/hidden_early.py [--seconds 3] [--runs 3] [--json FILE]

The real engine (`run_task`) on the sample median() task, one team, the sandbox the engine picks (Docker when an
engine answers), and a scripted model whose every reply takes `--seconds` of real time, the requests of one team
answered at once: the planner explores and plans, the coder writes the reproduction test, then the fix, and the
hidden check. What differs between the two modes is only when the hidden check's request is sent, so the gap is
what a user waits less: about one reply's time where the first round's change is good.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
# bench/ itself off the path: bench/sandbox.py would shadow the `sandbox` package (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.team_walk import SCRIPT, TASK, ScriptedClient, _Reply  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.ensemble.coder.hidden_check import HIDDEN_CHECK_GOAL  # noqa: E402
from bot.ensemble.demo import create_sample_repo  # noqa: E402
from bot.ensemble.runner import Components, run_task  # noqa: E402
from bot.llm.types import Message, ReplyEnd  # noqa: E402
from fakes.engine_parts import FileRetriever  # noqa: E402

Mode = Literal["on", "early"]
MODES: tuple[Mode, ...] = ("on", "early")
HIDDEN_ASK = HIDDEN_CHECK_GOAL.split("{", 1)[0]
HIDDEN = ("tests/test_repro_median_hidden.py\n<<<<<<< SEARCH\n=======\nfrom stats import median\n\n\n"
          "def test_six_values():\n    assert median([6, 1, 5, 2, 4, 3]) == 3.5\n>>>>>>> REPLACE")


class PacedClient(ScriptedClient):
    """`SCRIPT`'s replies, each after `seconds` of real time, requests answered side by side; the hidden check's
    request (told apart by what it asks) answered with `HIDDEN`. Counts the requests and when each began and ended."""

    def __init__(self, seconds: float):
        super().__init__(SCRIPT)
        self.seconds = seconds
        self.spans: list[tuple[str, float, float]] = []
        self.spans_lock = threading.Lock()

    def complete(self, role: str, messages: Sequence[Message], schema: str | None = None,
                 temperature: float | None = None, stop: Sequence[str] = (), by: float | None = None,
                 max_tokens: int | None = None, until: ReplyEnd | None = None) -> _Reply:
        began = time.monotonic()
        time.sleep(self.seconds)
        hidden = role == "coder" and HIDDEN_ASK in messages[-1].content
        reply = _Reply(HIDDEN) if hidden else super().complete(role, messages, schema, temperature, stop, by,
                                                               max_tokens, until)
        with self.spans_lock:
            self.spans.append(("hidden" if hidden else f"{role}/{schema or '-'}", began, time.monotonic()))
        return reply


def one_run(mode: Mode, seconds: float) -> dict[str, Any]:
    """One run of the sample task with the hidden check written `mode`: its wall time, result and requests."""
    with tempfile.TemporaryDirectory(prefix="ensemble-bench-") as tmp:
        sample = create_sample_repo(Path(tmp) / "sample")
        models = PacedClient(seconds)
        parts = Components(models=models, retriever=FileRetriever(sample), use_cache=False)
        started = time.monotonic()
        result = run_task(sample, TASK, Config(ensembles=1, hidden_check=mode), {}, parts)
        wall = time.monotonic() - started
    hidden = next(((b - started, e - started) for kind, b, e in models.spans if kind == "hidden"), None)
    return {"mode": mode, "wall_s": round(wall, 2), "success": result.success,
            "hidden_check": next((line for line in result.corroboration if "never saw" in line), ""),
            "requests": len(models.spans), "hidden_request_s": [round(t, 2) for t in hidden] if hidden else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="each reply's time (default 3)")
    parser.add_argument("--runs", type=int, default=3, help="runs each way (default 3)")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    args = parser.parse_args(argv)
    runs: list[dict[str, Any]] = []
    for _ in range(args.runs):  # the two modes in turn, so a slower stretch of the machine hits both
        for mode in MODES:
            run = one_run(mode, args.seconds)
            runs.append(run)
            print(f"  {mode:5s} wall {run['wall_s']:6.2f} s  delivered={run['success']}  requests={run['requests']}  "
                  f"hidden check's request {run['hidden_request_s']} s", flush=True)
            print(f"        {run['hidden_check'][:150]}", flush=True)
    for mode in MODES:
        walls = [r["wall_s"] for r in runs if r["mode"] == mode]
        print(f"hidden_check: {mode:5s} median wall {statistics.median(walls):.2f} s over {len(walls)} runs "
              f"({args.seconds:g} s a reply)")
    if args.json:
        args.json.write_text(json.dumps({"seconds": args.seconds, "runs": runs}, indent=2) + "\n")
    return 0 if all(r["success"] for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
