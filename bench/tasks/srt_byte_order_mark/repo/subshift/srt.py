"""Reading and writing SubRip (.srt) subtitles."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TIMING = re.compile(r"(\d+):(\d\d):(\d\d),(\d{3}) --> (\d+):(\d\d):(\d\d),(\d{3})")


@dataclass
class Cue:
    index: int
    start_ms: int
    end_ms: int
    text: str


def to_ms(hours: str, minutes: str, seconds: str, millis: str) -> int:
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int(millis)


def format_ms(ms: int) -> str:
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d},{millis:03d}"


def parse(text: str) -> list[Cue]:
    """The cues of an .srt file's text, in file order."""
    cues = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip()):
        lines = block.split("\n")
        if len(lines) < 2:
            raise ValueError(f"not a subtitle block: {block!r}")
        match = TIMING.fullmatch(lines[1].strip())
        if match is None:
            raise ValueError(f"bad timing line in cue {lines[0]}: {lines[1]!r}")
        parts = match.groups()
        cues.append(Cue(int(lines[0]), to_ms(*parts[:4]), to_ms(*parts[4:]), "\n".join(lines[2:])))
    return cues


def dump(cues: list[Cue]) -> str:
    """The .srt text of `cues`."""
    blocks = [f"{c.index}\n{format_ms(c.start_ms)} --> {format_ms(c.end_ms)}\n{c.text}" for c in cues]
    return "\n\n".join(blocks) + "\n"


def read_file(path: Path) -> list[Cue]:
    return parse(Path(path).read_text(encoding="utf-8"))


def write_file(path: Path, cues: list[Cue]) -> None:
    Path(path).write_text(dump(cues), encoding="utf-8")
