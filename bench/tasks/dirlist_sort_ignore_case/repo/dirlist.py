"""List a folder's entries: folders marked with '/', sorted, hidden ones on request."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _sort_key(name: str) -> str:
    return name


def listing(folder: str | Path = ".", show_hidden: bool = False, dirs_first: bool = False) -> list[str]:
    """The names in `folder`, sorted by name; a folder's name ends with '/'."""
    entries = []
    with os.scandir(folder) as scan:
        for entry in scan:
            if entry.name.startswith(".") and not show_hidden:
                continue
            entries.append((entry.is_dir(), entry.name))
    entries.sort(key=lambda e: ((not e[0]) if dirs_first else False, _sort_key(e[1])))
    return [f"{name}/" if is_dir else name for is_dir, name in entries]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dirlist", description=__doc__)
    parser.add_argument("folder", nargs="?", default=".")
    parser.add_argument("-a", "--all", action="store_true", help="show entries whose names start with '.'")
    parser.add_argument("--dirs-first", action="store_true", help="folders before files")
    args = parser.parse_args(argv)
    try:
        names = listing(args.folder, show_hidden=args.all, dirs_first=args.dirs_first)
    except (FileNotFoundError, NotADirectoryError) as exc:
        print(f"dirlist: {args.folder}: {exc.strerror}", file=sys.stderr)
        return 1
    print("\n".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
