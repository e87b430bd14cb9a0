"""Matching a SEARCH part against a file: exactly, then up to indentation, then also up to blank lines
inside it, or the nearest lines.

Pure text functions for the edit applier (bot/ensemble/coder/apply.py), which turns a `Miss` into
the message the coder reads. Lines are compared without trailing whitespace; the loose match
also ignores indentation and re-indents the replacement to fit the file. Every tier must pick
exactly one place, or the block does not apply.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

HINT_LINES = 15  # the most lines a nearest-match hint shows: enough to copy, short enough to read


@dataclass(frozen=True)
class Nearest:
    """The stretch of a file most similar to a SEARCH part (0-based `start`)."""

    start: int
    lines: tuple[str, ...]  # as in the file, at most HINT_LINES of them
    ratio: float
    length: int  # lines in the whole similar stretch (may exceed len(lines))


@dataclass(frozen=True)
class Miss:
    """Why a SEARCH part did not pick one place: several `starts` (0-based), or none and the nearest."""

    starts: tuple[int, ...] = ()
    nearest: Nearest | None = None
    empty_file: bool = False


def replace_once(content: str, search: str, replace: str) -> str | Miss:
    """`content` with the one place `search` matches replaced, exactly or up to indentation."""
    crlf = "\r\n" in content
    text = content.replace("\r\n", "\n")
    missing_newline = bool(text) and not text.endswith("\n")
    lines = _lines(text)
    wanted, new = _lines(search), _lines(replace)
    starts = _find(lines, wanted, _exact)
    span = len(wanted)
    if not starts:
        wanted, new = _trim_blank_edges(wanted, new)
        starts, span = _find(lines, wanted, _loose), len(wanted)
        if not starts:  # small models drop or add blank lines inside what they copy
            starts, span = _find_without_blanks(lines, wanted)
        if len(starts) == 1:
            found = [line for line in lines[starts[0]:starts[0] + span] if line.strip()]
            new = _reindent(new, [line for line in wanted if line.strip()], found)
    if len(starts) != 1:
        return Miss(tuple(starts), None if starts else nearest_lines(lines, wanted), not lines)
    at = starts[0]
    result = "".join(line + "\n" for line in lines[:at] + new + lines[at + span:])
    if missing_newline and result.endswith("\n"):
        result = result[:-1]
    return result.replace("\n", "\r\n") if crlf else result


def count_matches(content: str, search: str) -> int:
    """How many places `search` matches in `content` (exactly, else up to indentation, else also up to blank
    lines inside it)."""
    lines, wanted = _lines(content.replace("\r\n", "\n")), _lines(search)
    exact = _find(lines, wanted, _exact)
    if exact:
        return len(exact)
    trimmed = _trim_blank_edges(wanted, [])[0]
    return len(_find(lines, trimmed, _loose) or _find_without_blanks(lines, trimmed)[0])


def _lines(text: str) -> list[str]:
    text = text.replace("\r\n", "\n")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []


def _exact(a: str, b: str) -> bool:
    return a.rstrip() == b.rstrip()


def _loose(a: str, b: str) -> bool:
    return a.split() == b.split()


def _find(lines: list[str], wanted: list[str], same: Callable[[str, str], bool]) -> list[int]:
    if not wanted:
        return []
    n = len(wanted)
    return [i for i in range(len(lines) - n + 1) if all(same(lines[i + k], wanted[k]) for k in range(n))]


def _find_without_blanks(lines: list[str], wanted: list[str]) -> tuple[list[int], int]:
    """Where `wanted` matches up to indentation once blank lines are left out on both sides: the starts
    (0-based, in `lines`) and the number of file lines the one match spans (0 unless there is exactly one)."""
    kept = [i for i, line in enumerate(lines) if line.strip()]
    wanted = [line for line in wanted if line.strip()]
    found = _find([lines[i] for i in kept], wanted, _loose)
    starts = [kept[f] for f in found]
    span = kept[found[0] + len(wanted) - 1] - kept[found[0]] + 1 if len(found) == 1 else 0
    return starts, span


def _trim_blank_edges(wanted: list[str], new: list[str]) -> tuple[list[str], list[str]]:
    while wanted and not wanted[0].strip():
        wanted = wanted[1:]
        new = new[1:] if new and not new[0].strip() else new
    while wanted and not wanted[-1].strip():
        wanted = wanted[:-1]
        new = new[:-1] if new and not new[-1].strip() else new
    return wanted, new


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _reindent(new: list[str], wanted: list[str], found: list[str]) -> list[str]:
    """Shift the replacement by the indentation difference between SEARCH and the file."""
    pairs = [(w, f) for w, f in zip(wanted, found, strict=True) if w.strip()]
    if not pairs:
        return new
    return shifted(new, _indent(pairs[0][0]), _indent(pairs[0][1]))


def shifted(lines: list[str], have: str, want: str) -> list[str]:
    """`lines`, indented under `have`, moved as a whole to be indented under `want` (blank lines kept as they are)."""
    return [_shift(line, have, want) if line.strip() else line for line in lines]


def _shift(line: str, have: str, want: str) -> str:
    if want.startswith(have):
        return want[len(have):] + line
    if have.startswith(want):
        drop = len(have) - len(want)
        own = _indent(line)
        return line[min(drop, len(own)):]
    own = _indent(line)
    return want + own[len(have):] + line.lstrip() if own.startswith(have) else want + line.lstrip()


def nearest_lines(lines: list[str], wanted: list[str], cap: int = HINT_LINES) -> Nearest | None:
    """The stretch of `lines` most like `wanted` (compared without indentation), or None."""
    if not lines or not wanted:
        return None
    n = min(len(wanted), len(lines))
    target = "\n".join(s.strip() for s in wanted)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    best, best_ratio = 0, -1.0
    for i in range(len(lines) - n + 1):
        matcher.set_seq1("\n".join(s.strip() for s in lines[i:i + n]))
        if matcher.real_quick_ratio() > best_ratio and matcher.quick_ratio() > best_ratio:
            ratio = matcher.ratio()
            if ratio > best_ratio:
                best, best_ratio = i, ratio
    start, stop = best, best + min(n, cap)
    while start < stop - 1 and not lines[start].strip():  # a hint that starts or ends blank reads badly
        start += 1
    while stop - 1 > start and not lines[stop - 1].strip():
        stop -= 1
    return Nearest(start, tuple(lines[start:stop]), best_ratio, n)
