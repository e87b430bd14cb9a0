"""Edit blocks: parse the coder's SEARCH/REPLACE blocks and apply a round of them atomically.

The format (DESIGN.md):

    path/to/file.py
    <<<<<<< SEARCH
    exact lines to find
    =======
    replacement lines
    >>>>>>> REPLACE

Parsing and applying are pure functions over plain data: `parse_edit_blocks(text)` and
`apply_edit_blocks(blocks, files, deny)` where `files` maps repository paths to contents.
Edits that do not apply come back as `EditFailure`s that name the nearest matching lines,
never silently dropped; one failure means no file of the round changes.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.ensemble.globs import matches_any

SEARCH_RE = re.compile(r"^\s*<{5,9}\s*SEARCH\s*$")
DIVIDER_RE = re.compile(r"^\s*={5,9}\s*$")
REPLACE_RE = re.compile(r"^\s*>{5,9}\s*REPLACE\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
PATH_DECORATION = re.compile(r"^(?:#+\s*|[-*]\s+|(?:file(?:name)?|path)\s*:\s*)", re.IGNORECASE)
PATH_LOOKBACK = 3  # how many non-blank lines above a SEARCH marker may hold the path


@dataclass(frozen=True)
class EditBlock:
    """One SEARCH/REPLACE block as the model wrote it (text normalised to LF)."""

    path: str
    search: str
    replace: str
    line: int = 0  # 1-based line of the SEARCH marker in the reply


@dataclass(frozen=True)
class EditFailure:
    """Why an edit block (or a piece of the reply) could not be used, written for the coder."""

    path: str
    reason: str  # parse | no_match | multiple_matches | denied | link | missing_file | exists | bad_path
    message: str


@dataclass(frozen=True)
class ParseResult:
    """The blocks found in a reply, and the problems that kept others from being read."""

    blocks: tuple[EditBlock, ...]
    failures: tuple[EditFailure, ...] = ()


@dataclass(frozen=True)
class ApplyResult:
    """The outcome of a round: the new contents of every changed file, or the failures."""

    changes: dict[str, str] = field(default_factory=dict)
    created: tuple[str, ...] = ()
    failures: tuple[EditFailure, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every block applied (and so `changes` holds the whole round)."""
        return not self.failures and bool(self.changes)


def parse_edit_blocks(text: str) -> ParseResult:
    """Find every edit block in a model reply; fences, CRLF and decorated paths are tolerated."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[EditBlock] = []
    failures: list[EditFailure] = []
    last_path = ""
    i = 0
    while i < len(lines):
        if not SEARCH_RE.match(lines[i]):
            i += 1
            continue
        path = _path_above(lines, i, blocks_before=len(blocks)) or last_path
        end = _read_block(lines, i)
        if isinstance(end, str):
            failures.append(EditFailure(path or "?", "parse", end))
            break
        divider, stop = end
        if not path:
            failures.append(EditFailure("?", "parse", f"the edit block at line {i + 1} names no file; "
                                        "put the file's path on the line just above <<<<<<< SEARCH"))
        else:
            search = _join(lines[i + 1:divider])
            replace = _join(lines[divider + 1:stop])
            blocks.append(EditBlock(path, search, replace, i + 1))
            last_path = path
        i = stop + 1
    return ParseResult(tuple(blocks), tuple(failures))


def _read_block(lines: list[str], start: int) -> tuple[int, int] | str:
    """Line numbers of the divider and the REPLACE marker after `start`, or what is missing."""
    divider = None
    for j in range(start + 1, len(lines)):
        if divider is None and DIVIDER_RE.match(lines[j]):
            divider = j
        elif divider is not None and REPLACE_RE.match(lines[j]):
            return divider, j
        elif SEARCH_RE.match(lines[j]):
            break
    missing = "=======" if divider is None else ">>>>>>> REPLACE"
    return f"the edit block at line {start + 1} is not closed: '{missing}' is missing; finish every block"


def _path_above(lines: list[str], marker: int, blocks_before: int) -> str:
    """The file path written just above a SEARCH marker, skipping fences and blank lines."""
    seen = 0
    for j in range(marker - 1, -1, -1):
        raw = lines[j].strip()
        if not raw or FENCE_RE.match(raw) and not _fence_with_path(raw):
            continue
        if REPLACE_RE.match(raw):
            return ""  # the previous block ends right here: same file as before
        if _fence_with_path(raw):
            return clean_path(raw.lstrip("`~").strip())
        candidate = clean_path(raw)
        if _looks_like_path(candidate):
            return candidate
        seen += 1
        if seen >= PATH_LOOKBACK:
            return ""
    return ""


def _fence_with_path(raw: str) -> bool:
    info = raw.lstrip("`~").strip()
    return "/" in info or ("." in info and " " not in info and not info.startswith("."))


def clean_path(raw: str) -> str:
    """A path with markdown decoration, quotes and a trailing colon removed."""
    path = PATH_DECORATION.sub("", raw.strip())
    path = path.strip("*`'\" ").rstrip(":").strip("*`'\" ")
    while path.startswith("./"):
        path = path[2:]
    return path


def _looks_like_path(text: str) -> bool:
    return bool(text) and " " not in text and ("/" in text or "." in text) and len(text) < 300


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def apply_edit_blocks(blocks: Sequence[EditBlock], files: Mapping[str, str],
                      deny: Sequence[str] = ()) -> ApplyResult:
    """Apply all blocks to `files` (path -> content) in memory: every one, or none of them."""
    if not blocks:
        return ApplyResult(failures=(EditFailure("?", "parse", "the reply holds no edit blocks; answer with "
                                                 "SEARCH/REPLACE blocks as described"),))
    work: dict[str, str] = {}
    created: list[str] = []
    failures: list[EditFailure] = []
    for block in blocks:
        path, problem = resolve_path(block.path, files, work, deny)
        if problem:
            failures.append(problem)
            continue
        current = work[path] if path in work else files.get(path)
        new, failure = _apply_one(block, path, current, created)
        if failure:
            failures.append(failure)
        else:
            work[path] = new
    if failures:
        return ApplyResult(failures=tuple(failures))
    changes = {p: c for p, c in work.items() if files.get(p) != c}
    return ApplyResult(changes, tuple(p for p in created if p in changes))


def _apply_one(block: EditBlock, path: str, current: str | None,
               created: list[str]) -> tuple[str, EditFailure | None]:
    if not block.search.strip():
        if current is None:
            created.append(path)
            return block.replace, None
        if path in created or not current.strip():
            return current + ("" if current.endswith("\n") or not current else "\n") + block.replace, None
        return "", EditFailure(path, "exists", f"{path} already exists, so an empty SEARCH part cannot create "
                               "it; quote the lines to change in SEARCH")
    if current is None:
        return "", EditFailure(path, "missing_file", f"{path} does not exist; use an empty SEARCH part to "
                               "create it, or fix the path")
    return replace_once(current, block.search, block.replace, path)


def resolve_path(raw: str, files: Mapping[str, str], work: Mapping[str, str],
                 deny: Sequence[str]) -> tuple[str, EditFailure | None]:
    """The repository path a block means (tolerating sub-folder-relative paths), or why not."""
    path = raw.replace("\\", "/").lstrip("/")
    parts = path.split("/")
    if not path or ".." in parts or ".git" in parts:
        return "", EditFailure(raw, "bad_path", f"{raw!r} is not a path inside the repository")
    if path not in files and path not in work:
        suffix = [p for p in files if p.endswith("/" + path)]
        prefix = [p for p in ("/".join(parts[k:]) for k in range(1, len(parts))) if p in files]
        found = suffix or prefix[:1]
        if len(found) > 1:
            return "", EditFailure(raw, "bad_path", f"{raw!r} could mean {', '.join(sorted(found))}; "
                                   "give the path from the repository root")
        if found:
            path = found[0]
    if matches_any(path, deny):
        return "", EditFailure(path, "denied", f"{path} is protected by the configuration (paths.deny) "
                               "and must not be edited; change other files")
    return path, None


def replace_once(content: str, search: str, replace: str, path: str) -> tuple[str, EditFailure | None]:
    """Replace the one place `search` matches in `content`, exactly or up to indentation."""
    crlf = "\r\n" in content
    text = content.replace("\r\n", "\n")
    missing_newline = bool(text) and not text.endswith("\n")
    if missing_newline:
        text += "\n"
    lines, wanted, new = text.split("\n")[:-1], search.split("\n")[:-1], replace.split("\n")[:-1]
    starts = _find(lines, wanted, _exact)
    if not starts:
        wanted, new = _trim_blank_edges(wanted, new)
        starts = _find(lines, wanted, _loose)
        if len(starts) == 1:
            new = _reindent(new, wanted, lines[starts[0]:starts[0] + len(wanted)])
    if len(starts) != 1:
        return "", _match_failure(path, lines, wanted, starts)
    at = starts[0]
    result = "\n".join(lines[:at] + new + lines[at + len(wanted):]) + "\n"
    if missing_newline:
        result = result[:-1]
    return (result.replace("\n", "\r\n") if crlf else result), None


def _exact(a: str, b: str) -> bool:
    return a.rstrip() == b.rstrip()


def _loose(a: str, b: str) -> bool:
    return a.split() == b.split()


def _find(lines: list[str], wanted: list[str], same: object) -> list[int]:
    if not wanted:
        return []
    n = len(wanted)
    return [i for i in range(len(lines) - n + 1)
            if all(same(lines[i + k], wanted[k]) for k in range(n))]  # type: ignore[operator]


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
    have, want = _indent(pairs[0][0]), _indent(pairs[0][1])
    return [_shift(line, have, want) if line.strip() else line for line in new]


def _shift(line: str, have: str, want: str) -> str:
    if want.startswith(have):
        return want[len(have):] + line
    if have.startswith(want):
        drop = len(have) - len(want)
        own = _indent(line)
        return line[min(drop, len(own)):]
    own = _indent(line)
    return want + own[len(have):] + line.lstrip() if own.startswith(have) else want + line.lstrip()


def _match_failure(path: str, lines: list[str], wanted: list[str], starts: list[int]) -> EditFailure:
    if starts:
        where = ", ".join(str(s + 1) for s in starts[:8])
        return EditFailure(path, "multiple_matches", f"the SEARCH part matches {len(starts)} places in {path} "
                           f"(lines {where}); include more surrounding lines so it matches exactly one")
    return EditFailure(path, "no_match", f"the SEARCH part does not match {path}. "
                       + nearest_lines(lines, wanted))


def nearest_lines(lines: list[str], wanted: list[str], context: int = 0) -> str:
    """The window of `lines` most similar to `wanted`, with 1-based line numbers, as a hint."""
    if not lines or not wanted:
        return "The file is empty." if not lines else ""
    n = min(len(wanted), len(lines))
    target = "\n".join(s.strip() for s in wanted)
    best, best_ratio = 0, -1.0
    for i in range(len(lines) - n + 1):
        window = "\n".join(s.strip() for s in lines[i:i + n])
        ratio = difflib.SequenceMatcher(None, window, target, autojunk=False).ratio()
        if ratio > best_ratio:
            best, best_ratio = i, ratio
    shown = "\n".join(f"{k + 1:>5}| {lines[k]}" for k in range(best, best + n))
    return (f"The nearest lines are {best + 1}-{best + n} ({best_ratio:.0%} similar):\n{shown}\n"
            "Copy the SEARCH lines exactly from the file.")


def describe_failures(failures: Sequence[EditFailure]) -> str:
    """All failures as one message for the coder's next turn."""
    return "\n\n".join(f"- {f.path}: {f.message}" for f in failures)


def linked_paths(root: Path, paths: Sequence[str]) -> tuple[EditFailure, ...]:
    """The paths that reach through a symbolic link (the file or a folder on the way).

    Writing through a link could land outside the workspace or on a path the deny list
    protects under another name, so such edits are refused.
    """
    failures = []
    for rel in paths:
        current = root
        for part in rel.split("/"):
            current = current / part
            if current.is_symlink():
                where = current.relative_to(root).as_posix()
                failures.append(EditFailure(rel, "link", f"{where} is a symbolic link; the bot does not write "
                                            "through links, edit the file it points to by its own path"))
                break
    return tuple(failures)


def write_changes(root: Path, changes: Mapping[str, str]) -> None:
    """Write a round's new file contents under `root` (bytes exactly as given, CRLF kept).

    Raises ValueError, writing nothing, when a path reaches through a symbolic link.
    """
    if linked := linked_paths(root, list(changes)):
        raise ValueError(describe_failures(linked))
    for rel, content in changes.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(content.encode("utf-8"))
