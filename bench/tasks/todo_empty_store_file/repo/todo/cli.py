"""todo add TEXT | todo list | todo done N"""

from __future__ import annotations

import argparse
import sys

from todo.store import Item, load, save, store_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="todo")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("add").add_argument("text", nargs="+")
    commands.add_parser("list")
    commands.add_parser("done").add_argument("number", type=int)
    args = parser.parse_args(argv)

    path = store_path()
    items = load(path)
    if args.command == "add":
        items.append(Item(" ".join(args.text)))
        save(path, items)
        print(f"added #{len(items)}")
    elif args.command == "done":
        if not 1 <= args.number <= len(items):
            print(f"no item #{args.number}", file=sys.stderr)
            return 1
        items[args.number - 1].done = True
        save(path, items)
    elif not items:
        print("nothing to do")
    else:
        for number, item in enumerate(items, start=1):
            print(f"{number:>3}. [{'x' if item.done else ' '}] {item.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
