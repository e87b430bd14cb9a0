"""`ensemble search`: ranked files or chunks for a query; indexes first when needed."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bot.errors import UsageError
from bot.extras import require_engine


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("search", help="search the repository's index (building it if needed)")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository to search (default: .)")
    query = parser.add_mutually_exclusive_group(required=True)
    query.add_argument("--query", help="the query text, e.g. an issue title and body")
    query.add_argument("--query-file", type=Path, help="read the query from this file")
    parser.add_argument("--k", type=int, default=10, help="how many results (default: 10)")
    parser.add_argument("--level", choices=("chunk", "file"), default="file", help="rank files or chunks")
    parser.add_argument("--json", action="store_true", help="print a JSON list, best first")
    parser.set_defaults(handler=run)


def read_query(args: argparse.Namespace) -> str:
    """The query text from --query or --query-file."""
    if args.query is not None:
        text = str(args.query)
    else:
        try:
            text = args.query_file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise UsageError(f"--query-file {args.query_file}: cannot read it ({exc.strerror}); "
                             "pass a readable file or use --query TEXT") from None
    if not text.strip():
        raise UsageError("the query is empty; pass some text with --query or --query-file")
    return text


def run(args: argparse.Namespace) -> int:
    from bot.commands.index import StderrProgress, open_repo_index

    require_engine()
    if args.k < 1:
        raise UsageError(f"--k {args.k}: expected a positive number of results, like --k 10")
    query = read_query(args)
    index = open_repo_index(args.repo, StderrProgress())
    hits = index.search(query, k=args.k, level=args.level)
    if args.json:
        if args.level == "file":
            rows = [{"path": h.path, "score": round(h.score, 6)} for h in hits]
        else:
            rows = [{"path": h.path, "start_line": h.start_line, "end_line": h.end_line, "score": round(h.score, 6)}
                    for h in hits]
        print(json.dumps(rows, indent=1))
        return 0
    for hit in hits:
        where = hit.path if args.level == "file" else f"{hit.path}:{hit.start_line}-{hit.end_line}"
        print(f"{hit.score:8.4f}  {where}  {hit.symbol}".rstrip())
    return 0
