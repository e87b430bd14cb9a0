"""Reading the coder's SEARCH/REPLACE blocks out of a sloppy reply (no I/O, nothing applied).

Reasoning blocks are removed first, so a block drafted while thinking is never read. The
path may sit on the line above the SEARCH marker (decorated, bold, backticked, a heading, in
prose) or in a fence's info string; a block without one reuses the previous block's path.
A block that is not closed is reported and the others are kept. bot/ensemble/coder/apply.py
applies what this module finds.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from bot.ensemble.coder.fileview import DEFINITION
from bot.ensemble.coder.matching import shifted
from bot.llm.reasoning import strip_reasoning

SEARCH_RE = re.compile(r"^\s*<{5,9}\s*SEARCH\s*:?\s*$", re.IGNORECASE)
DIVIDER_RE = re.compile(r"^\s*={5,9}\s*$")
REPLACE_RE = re.compile(r"^\s*>{5,9}\s*REPLACE\s*$", re.IGNORECASE)
FENCE_RE = re.compile(r"^\s*(```|~~~)")
PATH_DECORATION = re.compile(r"^(?:#+\s*|//\s*|[-*+]\s+|\d+[.)]\s+|(?:file(?:name)?|path)\s*:\s*)", re.IGNORECASE)
PATH_CHARS = re.compile(r"^[\w.@+\-/\\]+$")
EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,12}$")
BARE_NAMES = frozenset({"Makefile", "Dockerfile", "Containerfile", "Gemfile", "Rakefile", "Procfile",
                        "Jenkinsfile", "LICENSE", "CODEOWNERS"})
BACKTICKED = re.compile(r"`([^`\s]+)`")
TRAILING_NOTE = re.compile(r"\s+\([^()]*\)$")  # "tests/test_x.py (new file)"
PATH_LOOKBACK = 3  # how many non-blank lines above a SEARCH marker may hold the path


@dataclass(frozen=True)
class EditBlock:
    """One SEARCH/REPLACE block as the model wrote it (text normalised to LF)."""

    path: str
    search: str
    replace: str
    line: int = 0  # 1-based line of the SEARCH marker in the reply, reasoning blocks removed


@dataclass(frozen=True)
class EditFailure:
    """Why an edit block (or a piece of the reply) could not be used, written for the coder."""

    path: str
    reason: str  # parse | no_match | multiple_matches | denied | link | missing_file | exists | bad_path | tampering | runner
    message: str


@dataclass(frozen=True)
class ParseResult:
    """The blocks found in a reply, and the problems that kept others from being read."""

    blocks: tuple[EditBlock, ...]
    failures: tuple[EditFailure, ...] = ()


def parse_edit_blocks(text: str) -> ParseResult:
    """Find every edit block in a reply, outside its reasoning blocks; fences, CRLF and decorated paths are tolerated.

    A block that is not closed (a reply cut off) is reported and the other blocks are kept.
    """
    lines = strip_reasoning(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[EditBlock] = []
    failures: list[EditFailure] = []
    last_path = ""
    i = 0
    while i < len(lines):
        if not SEARCH_RE.match(lines[i]):
            i += 1
            continue
        path = _path_above(lines, i) or last_path
        number = len(blocks) + len(failures) + 1
        end = _read_block(lines, i)
        if isinstance(end, str):
            failures.append(EditFailure(path or "?", "parse", f"edit block {number} ({path or 'no path'}) {end}"))
            i += 1
            continue
        divider, stop = end
        if path:
            blocks.append(EditBlock(path, _join(lines[i + 1:divider]), _join(lines[divider + 1:stop]), i + 1))
            last_path = path
        else:
            failures.append(EditFailure("?", "parse", f"edit block {number} names no file; put the file's "
                                        "path on its own line just above <<<<<<< SEARCH"))
        i = stop + 1
    if not blocks and not failures and any(SEARCH_RE.match(line) for line in (text or "").splitlines()):
        failures.append(EditFailure("?", "parse", "the edit blocks are inside a reasoning block (<think>), "
                                    "which is never read; write them after the reasoning ends"))
    return ParseResult(tuple(blocks), tuple(failures))


def parse_whole_files(text: str, owners: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The whole-file listings in a reply (the `whole` edit format): (path, new content) for each fenced block
    whose path is on the line above its opening fence, in the fence's info string, or in a comment that is the
    listing's first line (`# src/x.py`, `// lib/y.js`: small models write it there; the comment is dropped).

    `owners` maps each file the coder was shown to change (not a test) to its text: a listing that names no path
    (a reply that forgot the path line, or put a word that is no path there, as `task`) is the one of them it keeps
    most of the lines of, or the one it is a part of (`parts_of`: the function it changed sent alone), when exactly
    one of them is.

    A fence holding SEARCH markers is an edit block, not a listing, and a fence never closed (a reply cut off)
    is no listing either: a file cut short must never replace the whole file.
    """
    lines = strip_reasoning(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [(path, content) for path, content, _ in _listings(lines, owners or {})]


def listing_end(text: str, paths: Collection[str], owners: Mapping[str, str] | None = None) -> int | None:
    """The length of `text` up to the end of the line that closes its first whole-file listing of one of `paths`
    (read as `parse_whole_files` reads it, a listing under a path with a folder too many or too few included); None
    while it holds none. A closing fence counts once its line has ended, so a text read as it streams is never
    taken as complete at a fence that is the start of an opening one. A reply that holds reasoning is never complete
    here: its offsets are not those of the text the listings are read from."""
    if strip_reasoning(text) != text.strip():
        return None
    lines = text.split("\n")[:-1]  # whole lines only: the last one is still being written
    for path, _, close in _listings([line.removesuffix("\r") for line in lines], owners or {}):
        if any(path == p or path.endswith("/" + p) or p.endswith("/" + path) for p in paths):
            return sum(len(line) + 1 for line in lines[:close + 1])
    return None


def _listings(lines: list[str], owners: Mapping[str, str]) -> Iterator[tuple[str, str, int]]:
    """Each whole-file listing in `lines`: its path, its content and the index of the line that closes it."""
    found: list[str] = []
    i = 0
    while i < len(lines):
        fence = FENCE_RE.match(lines[i])
        if not fence:
            i += 1
            continue
        close = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence.group(1)), None)
        if close is None:
            return
        body = lines[i + 1:close]
        path = _fence_path(lines[i]) or _path_right_above(lines, i)
        if not path and body and (path := _path_comment(body[0])):
            body = body[1:]
        if not path:
            path = _owner(body, {p: text for p, text in owners.items() if p not in found})
        if path and not any(SEARCH_RE.match(line) for line in body):
            found.append(path.removeprefix("./"))
            yield path.removeprefix("./"), _join(body), close
        i = close + 1


def _owner(body: list[str], owners: Mapping[str, str]) -> str:
    """The one file of `owners` (path: text) a listing with no path is: the one it keeps most of, or is a part of."""
    content = _join(body)
    fits = [p for p, current in owners.items() if _keeps_most(body, current) or parts_of(current, content)]
    return fits[0] if len(fits) == 1 else ""


def parts_of(current: str, listing: str) -> list[tuple[str, str]] | None:
    """The parts of `current` that `listing`, sent as the whole of that file, replaces when it is a part of it, each
    as (the lines it replaces, what replaces them); None for a listing of the whole file, or one that marks no part.

    A part is shorter than the file and leaves out its opening lines (its docstring, its imports). Read by its
    definitions first (`_by_definitions`: each one the file holds once, replaced whole, a new one put in after the
    one before it), else as one span from the one line that reads as the listing's first to the first line after it
    that reads as its last, no more than twice the listing's length on. The local 1.5B coder sent the one function
    it changed as `appconfig/loader.py`, and a class's three methods without the class (bench/peers.py,
    settings_port_traceback, cart_add_same_item): written as the file, the module lost its imports and the class."""
    if not is_part(current, listing):
        return None
    sent = _filled(listing)
    if found := _by_definitions(current.splitlines(keepends=True), listing.splitlines(keepends=True)):
        return found
    lines = current.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.strip() == sent[0].strip()]
    if len(starts) != 1:
        return None
    start, size = starts[0], len(listing.splitlines())
    end = next((j for j in range(start + 1, min(len(lines), start + 2 * size)) if lines[j].strip() == sent[-1].strip()),
               start if len(sent) == 1 else None)
    return [("".join(lines[start:end + 1]), listing)] if end is not None else None


def is_part(current: str, listing: str) -> bool:
    """Whether `listing`, sent as the whole of the file that holds `current`, reads as a part of it: shorter, and
    without the file's first two lines that are not blank (its docstring, its imports)."""
    have, sent = _filled(current), _filled(listing)
    return bool(sent) and len(sent) < len(have) and not {line.strip() for line in have[:2]} & {line.strip() for line in sent}


_CLOSER = re.compile(r"^\s*(?:[)\]}]|end\b)")  # a line that closes the block above it (brace languages, Ruby, Lua)


def _by_definitions(lines: list[str], sent: list[str]) -> list[tuple[str, str]] | None:
    """`sent` cut into its top-level pieces (a line at its outermost indentation, with the decorators above it and
    the lines below it indented deeper or closing it), each matched to the one line of `lines` that reads as its
    first (for a definition whose first line changed, the one line that defines that name) and replacing that line's
    block; a definition the file does not hold goes in after the piece before it
    (a helper the change adds). None where another piece is not in the file once, where none is, or where their
    blocks overlap."""
    base = min((_width(line) for line in sent if line.strip()), default=0)
    pieces: list[list[str]] = []
    for line in sent:
        opens = line.strip() and _width(line) == base and not _CLOSER.match(line)
        if opens and not (pieces and pieces[-1] and all(x.lstrip().startswith("@") for x in pieces[-1] if x.strip())):
            pieces.append([])
        if pieces:
            pieces[-1].append(line)
    found: list[tuple[int, int, list[str]]] = []
    pending: list[str] = []  # pieces the file does not hold, before the first one it does
    for piece in pieces:
        head = piece[0].strip()
        starts = [i for i, line in enumerate(lines) if line.strip() == head]
        if len(starts) != 1 and (name := _defines(head)):  # its signature changed: the definition of that name
            starts = [i for i, line in enumerate(lines) if _defines(line.strip()) == name]
        if len(starts) != 1:
            if not (head.startswith("@") or DEFINITION.match(head)):
                return None  # a statement the file does not hold once: a changed line, not code to put in
            if found:  # with the blank lines the listing put between them
                found[-1][2].extend(piece)
            else:
                pending.extend(piece)
            continue
        found.append((starts[0], _block_end(lines, starts[0]), [*pending, *piece]))
        pending = []
    if not found or any(b[0] < a[1] for a, b in zip(found, found[1:], strict=False)):
        return None
    return [("".join(lines[start:end]), _indented_as(_trimmed(new), lines[start])) for start, end, new in found]


def _defines(line: str) -> str:
    """What a line that opens a definition defines, as `def name` or `class Name`; "" for any other line."""
    match = DEFINITION.match(line)
    return match.group(0).strip() if match and match["name"] else ""


def _block_end(lines: list[str], start: int) -> int:
    """The index after the block `lines[start]` opens: its decorators and the lines below indented deeper, blank
    lines inside it and the line that closes it included, blank lines after it not."""
    width, end, j = _width(lines[start]), start + 1, start + 1
    decorating = lines[start].lstrip().startswith("@")
    while j < len(lines):
        line = lines[j]
        if line.strip() and _width(line) <= width:
            if decorating and _width(line) == width:
                decorating = line.lstrip().startswith("@")
            elif _CLOSER.match(line):
                end = j + 1
                break
            else:
                break
        if line.strip():
            end = j + 1
        j += 1
    return end


def _indented_as(new: list[str], model: str) -> str:
    """`new` shifted as a whole so its first line is indented as `model` is (a method sent from column 0)."""
    return "".join(shifted(new, new[0][:_width(new[0])], model[:_width(model)])) if new else ""


def _trimmed(lines: list[str]) -> list[str]:
    """`lines` without blank lines at their end; the last one ends with a newline."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return [*lines[:-1], lines[-1].rstrip("\n") + "\n"] if lines else lines


def _width(line: str) -> int:
    return len(line) - len(line.lstrip())


def _filled(text: str) -> list[str]:
    """The lines of `text` that are not blank."""
    return [line for line in text.splitlines() if line.strip()]


def reply_key(text: str) -> str:
    """A coder reply as far as it changes anything: its blocks (path, SEARCH, REPLACE) and whole-file listings
    (path, content), stripped, or its text when it has neither. Read from the text alone, not against the files:
    the same whole file sent again after a round changed the file is still the same reply."""
    parts = [f"{b.path.strip()}\n{b.search.strip()}\n{b.replace.strip()}" for b in parse_edit_blocks(text).blocks]
    parts += [f"{path}\n{content.strip()}" for path, content in parse_whole_files(text)]
    return "\n\0".join(parts) if parts else " ".join(text.split())


_PATH_COMMENT = re.compile(r"^\s*(?:#|//|--|;|/\*)\s*(?:file(?:name)?\s*:\s*)?(\S+?)\s*(?:\*/)?\s*$", re.IGNORECASE)
KEPT_LINES = 0.5  # the share of a file's lines a pathless listing must keep to be taken for that file


def _path_comment(line: str) -> str:
    """The path a listing's first line names as a comment, if it is one (a path has a folder or an extension)."""
    match = _PATH_COMMENT.match(line)
    path = clean_path(match.group(1)) if match else ""
    return path if _looks_like_path(path) else ""


def _keeps_most(body: list[str], current: str) -> bool:
    """Whether a listing keeps at least KEPT_LINES of `current`'s non-blank lines (compared stripped)."""
    old = [line.strip() for line in current.splitlines() if line.strip()]
    new = {line.strip() for line in body}
    return bool(old) and sum(line in new for line in old) >= KEPT_LINES * len(old)


def _path_right_above(lines: list[str], fence: int) -> str:
    """The path on the nearest non-blank line above an opening fence, if that line is a path."""
    above = next((lines[j] for j in range(fence - 1, -1, -1) if lines[j].strip()), "")
    return _path_in_line(above) if above and not FENCE_RE.match(above) else ""


_MARKER_LINE = re.compile(r"^[ \t]*(?:(?P<search><{5,9}[ \t]*SEARCH)|>{5,9}[ \t]*REPLACE)\b[^\n]*$",
                          re.MULTILINE | re.IGNORECASE)


def cut_oversized_blocks(text: str, max_chars: int) -> tuple[str, list[tuple[str, int]]]:
    """The reply without its blocks longer than `max_chars`, and (path, size in bytes) of each block cut.

    Runs before parsing, over marker offsets only, so a huge block costs no more than its own text:
    splitting it into lines would cost ten times that.
    """
    if len(text) <= max_chars:
        return text, []
    pieces, cut, kept_from, start = [], [], 0, None
    for marker in _MARKER_LINE.finditer(text):
        if marker["search"]:
            start = marker.start()
        elif start is not None:
            if marker.end() - start > max_chars:
                above = [line for line in text[max(0, start - 400):start].splitlines() if line.strip()]
                path = _path_in_line(above[-1].strip()) if above else ""
                cut.append((path or "?", len(text[start:marker.end()].encode("utf-8", "replace"))))
                pieces.append(text[kept_from:start])
                kept_from = marker.end()
            start = None
    pieces.append(text[kept_from:])
    return "".join(pieces), cut


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
    return f"is not closed: '{missing}' is missing (was the reply cut off?); send that block again, complete"


def _path_above(lines: list[str], marker: int) -> str:
    """The file path written just above a SEARCH marker, skipping fences and blank lines."""
    seen = 0
    for j in range(marker - 1, -1, -1):
        raw = lines[j].strip()
        if not raw:
            continue
        if REPLACE_RE.match(raw):
            return ""  # the previous block ends right here: same file as before
        if FENCE_RE.match(raw):
            if path := _fence_path(raw):
                return path
            continue
        if path := _path_in_line(raw):
            return path
        seen += 1
        if seen >= PATH_LOOKBACK:
            return ""
    return ""


def _fence_path(raw: str) -> str:
    """A path in a fence's info string: ```src/x.py, ```python src/x.py, ```python title="x.py"."""
    for token in reversed(raw.lstrip("`~").split()):
        path = clean_path(token.split("=", 1)[-1])
        if _looks_like_path(path):
            return path
    return ""


def _path_in_line(raw: str) -> str:
    """The path a line names: the whole line (decoration removed), or its one `backticked` path."""
    path = clean_path(raw)
    if _looks_like_path(path):
        return path
    quoted = {q for q in (clean_path(m) for m in BACKTICKED.findall(raw)) if _looks_like_path(q)}
    return quoted.pop() if len(quoted) == 1 else ""


def clean_path(raw: str) -> str:
    """A path with markdown decoration, quotes, a trailing colon or note removed."""
    path = raw.strip()
    for _ in range(4):  # decorations nest: **File: `a.py`**:
        before = path
        path = PATH_DECORATION.sub("", path).strip().strip("*`'\"").rstrip(":").strip().strip("*`'\"")
        path = TRAILING_NOTE.sub("", path)
        if path == before:
            break
    while path.startswith("./"):
        path = path[2:]
    return path


def _looks_like_path(text: str) -> bool:
    if not text or len(text) > 300 or not PATH_CHARS.match(text) or text.endswith((".", "/", "\\")):
        return False
    name = re.split(r"[/\\]", text)[-1]
    return "/" in text or "\\" in text or bool(EXTENSION.search(name)) or name in BARE_NAMES


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)
