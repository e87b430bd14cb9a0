"""`ensemble report TRACE...`: model behaviour analysis over run traces."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("report", help="analyse model behaviour (cost, latency, failures) over run traces")
    parser.add_argument("traces", nargs="+", type=Path, metavar="TRACE",
                        help="trace.jsonl files, folders searched for them (e.g. .ensemble/runs), or "
                             "bench/real_model.py --json results files")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON for scripts")
    parser.add_argument("--html", type=Path, metavar="FILE",
                        help="also write one self-contained HTML report with charts and an A/B comparison")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from bot.report import analyze, load, render
    from bot.report_figures import figures
    from bot.report_time import render_run_times, run_times

    loaded = load(args.traces)
    data = figures(loaded) if args.json or args.html else None
    if args.html and data is not None:
        from bot.persist import write_text
        from bot.report_html import render_html

        write_text(args.html, render_html(data))
    if args.json:
        print(json.dumps(data, indent=2, default=str))
    else:
        print(render(analyze(loaded.records, files=len(loaded.files), malformed_lines=loaded.malformed)))
        for line in render_run_times(run_times(loaded.records)):
            print(line)
        if args.html:
            print(f"wrote {args.html}")
    return 0
