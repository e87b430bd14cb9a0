#!/usr/bin/env python
"""How long `ensemble report` takes over many runs: synthetic traces, then --json and --html timed.

    .venv/bin/python bench/report_scale.py [--runs 1000] [--out-dir DIR]

Each synthetic run has the spans a real one writes (baseline, index, explore/plan/code/critic
calls, sandbox and git operations, two teams, the run span with settings), about 40 lines; half
the runs use another coder model, so the A/B comparison is computed too. Prints seconds per stage.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROLES = (("planner", "explore"), ("planner", "plan"), ("coder", None), ("critic", "review"))


def run_records(run_id: str, rng: random.Random) -> list[dict]:
    """The span records of one synthetic run."""
    coder = "model-a" if rng.random() < 0.5 else "model-b"

    def span(name: str, duration: float, **attributes: object) -> dict:
        return {"run_id": run_id, "span_id": f"{rng.getrandbits(48):012x}", "parent_id": None, "name": name,
                "start": 0.0, "duration_s": duration, "status": "ok", "attributes": attributes}
    records = [span("ensemble.baseline", 3.0, passed=False, failing=["tests/test_x.py::test_old"]),
               span("index.open", 2.0, chunks=400)]
    records += [span("index.search", 0.1, query="q", k=8) for _ in range(8)]
    for team in "ab":
        rounds = rng.randint(1, 4)
        for _ in range(rounds):
            for role, schema in ROLES:
                model = coder if role == "coder" else "gpt-4o"
                records.append(span("llm.complete", rng.uniform(1, 30), role=role, schema=schema, provider="openai",
                                    model=model, tokens_in=rng.randint(500, 8000), tokens_out=rng.randint(50, 900),
                                    cost_usd=rng.uniform(0, 0.05), latency_s=rng.uniform(1, 30),
                                    retries=int(rng.random() < 0.1), rate_limited=int(rng.random() < 0.05)))
            records += [span("sandbox.run", rng.uniform(2, 20)), span("git.commit", 0.1)]
        records.append(span("ensemble.team", 100.0, team=team, rounds=rounds))
    success = rng.random() < (0.7 if coder == "model-a" else 0.5)
    records.append(span("ensemble.run", 300.0, task=f"task {run_id}", success=success, winner="a",
                        stop_reason="passed" if success else "max_iterations", reproduction_test=True,
                        settings={"models": {"planner": "openai/gpt-4o", "coder": f"openai/{coder}",
                                             "critic": "openai/gpt-4o"}, "ensembles": 2, "max_iterations": 4}))
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--out-dir", type=Path, help="where traces go (default: a new temp dir)")
    args = parser.parse_args()
    out = args.out_dir or Path(tempfile.mkdtemp(prefix="ensemble-report-scale-"))
    rng = random.Random(7)
    lines = 0
    for i in range(args.runs):
        run_id = f"run{i:05d}"
        records = run_records(run_id, rng)
        (out / "runs" / run_id).mkdir(parents=True, exist_ok=True)
        (out / "runs" / run_id / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        lines += len(records)

    from bot.report import load
    from bot.report_figures import figures
    from bot.report_html import render_html

    started = time.perf_counter()
    loaded = load([out / "runs"])
    read = time.perf_counter()
    data = figures(loaded)
    counted = time.perf_counter()
    page = render_html(data)
    drawn = time.perf_counter()
    (out / "report.html").write_text(page, encoding="utf-8")
    print(f"{args.runs} runs, {lines} span lines: load {read - started:.2f}s, figures {counted - read:.2f}s, "
          f"HTML {drawn - counted:.2f}s, total {drawn - started:.2f}s; {len(page) // 1024} KiB at {out / 'report.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
