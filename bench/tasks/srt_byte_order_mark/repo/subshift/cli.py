"""subshift FILE SECONDS [-o OUT]: move every subtitle by SECONDS (negative: earlier)."""

from __future__ import annotations

import argparse
import sys

from subshift.srt import Cue, read_file, write_file


def shift(cues: list[Cue], offset_ms: int) -> list[Cue]:
    """`cues` moved by `offset_ms`; a cue moved before 0:00 starts at 0:00."""
    return [Cue(c.index, max(0, c.start_ms + offset_ms), max(0, c.end_ms + offset_ms), c.text) for c in cues]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="subshift")
    parser.add_argument("file")
    parser.add_argument("seconds", type=float)
    parser.add_argument("-o", "--output", help="where to write (default: over FILE)")
    args = parser.parse_args(argv)
    cues = shift(read_file(args.file), round(args.seconds * 1000))
    write_file(args.output or args.file, cues)
    print(f"shifted {len(cues)} subtitles by {args.seconds:+g} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
