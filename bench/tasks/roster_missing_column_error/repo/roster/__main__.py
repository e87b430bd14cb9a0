"""python -m roster import FILE [--since YYYY-MM-DD]"""

from __future__ import annotations

import argparse
import sys
from datetime import date

from roster.importer import ImportFormatError, load_members


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="roster")
    commands = parser.add_subparsers(dest="command", required=True)
    imports = commands.add_parser("import", help="read a member list and print it")
    imports.add_argument("file")
    imports.add_argument("--since", type=date.fromisoformat, help="only members who joined on or after this day")
    args = parser.parse_args(argv)
    try:
        members = load_members(args.file)
    except ImportFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for member in members:
        if args.since is None or member.joined >= args.since:
            print(member.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
