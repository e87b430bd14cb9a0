"""`ensemble doctor`: report what is configured and reachable."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("doctor", help="say what is configured and reachable, and what is missing")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository to check (default: .)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from bot.doctor import render, run_checks

    checks = run_checks(args.repo)
    print(render(checks))
    return 0 if all(c.ok for c in checks if c.essential) else 1
