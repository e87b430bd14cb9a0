"""The `wordstat` command line."""

import argparse
import sys
from pathlib import Path

from report import top_words, word_count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wordstat")
    commands = parser.add_subparsers(dest="command", required=True)
    top = commands.add_parser("top", help="the most frequent words of a file")
    top.add_argument("file", type=Path)
    count = commands.add_parser("count", help="how many words a file has")
    count.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    text = args.file.read_text(encoding="utf-8")
    if args.command == "top":
        for word, n in top_words(text):
            print(f"{n:5d} {word}")
    else:
        print(word_count(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
