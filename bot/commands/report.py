"""`ensemble report TRACE...`: model behaviour analysis over run traces."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help="analyse model behaviour (cost, latency, failures) over run traces")
    parser.add_argument("traces", nargs="+", type=Path, metavar="TRACE",
                        help="trace.jsonl files, or folders searched for them (e.g. .ensemble/runs)")
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from bot.report import analyze, load_traces, render, to_json

    files, records, malformed = load_traces(args.traces)
    report = analyze(records, files=len(files), malformed_lines=malformed)
    print(json.dumps(to_json(report), indent=2) if args.json else render(report))
    return 0
