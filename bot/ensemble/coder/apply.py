"""Edit blocks: parse the coder's SEARCH/REPLACE blocks and apply every one that fits.

The format (DESIGN.md; bot/ensemble/coder/formats.py writes the instructions):

    src/calc.py
    <<<<<<< SEARCH
    exact lines to find
    =======
    replacement lines
    >>>>>>> REPLACE

Parsing and applying are pure functions over plain data: `parse_edit_blocks(text)` and
`apply_edit_blocks(blocks, files, deny, shown)` where `files` maps repository paths to
contents. Reasoning blocks are never read. The blocks that fit are applied (in order, each
seeing the ones before); the others come back as `EditFailure`s written for the coder, with
the nearest lines to copy, never silently dropped. Parsing lives in edit_parsing.py,
matching in matching.py.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import ALWAYS_DENIED
from bot.ensemble.coder.matching import HINT_LINES, Miss, count_matches, replace_once
from bot.ensemble.coder.parsing import EditBlock, EditFailure, ParseResult, clean_path, parse_edit_blocks
from common.globs import matches_any
from common.languages import is_language

__all__ = [
    "NO_BLOCKS", "ApplyResult", "EditBlock", "EditFailure", "ParseResult", "apply_edit_blocks", "clean_path",
    "denial", "describe_failures", "linked_paths", "parse_edit_blocks", "resolve_path", "write_changes",
]

PLACEHOLDER_PREFIXES = ("path/to/",)  # the placeholder of generic format descriptions
SHOWN_LISTED = 20  # the most shown files a failure message names


@dataclass(frozen=True)
class ApplyResult:
    """The outcome of a round: the blocks that applied, what they changed, and why the rest did not.

    `changes` maps every file whose content changed to its new content (the applied blocks
    only); `created` names the new files among them; `failures` explains each block that did
    not apply; `applied` counts the blocks that did (a block whose REPLACE part is already in
    the file counts, changing nothing) out of `total`; `redirected` lists (named path, path
    used) for blocks whose path did not exist but whose SEARCH part fits one shown file.
    """

    changes: dict[str, str] = field(default_factory=dict)
    created: tuple[str, ...] = ()
    failures: tuple[EditFailure, ...] = ()
    applied: int = 0
    total: int = 0
    redirected: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        """True when at least one block applied and some file changed: `changes` is worth writing.

        Some blocks may still have failed: see `complete` and `failures`.
        """
        return self.applied > 0 and bool(self.changes)

    @property
    def complete(self) -> bool:
        """True when no block failed."""
        return not self.failures


NO_BLOCKS = EditFailure("?", "parse", "the reply holds no edit blocks; answer with SEARCH/REPLACE blocks as described")


def apply_edit_blocks(blocks: Sequence[EditBlock], files: Mapping[str, str], deny: Sequence[str] = (),
                      shown: Sequence[str] = (), root: str = "") -> ApplyResult:
    """Apply, in memory and in order, every block that fits `files` (path -> content); report the rest.

    `shown` names the files the coder was shown: a block whose path does not exist is applied
    to the one shown file its SEARCH part matches, if exactly one does. `root` is the workspace's
    absolute path: an absolute path inside it is taken relative to it; any other is refused.
    """
    if not blocks:
        return ApplyResult(failures=(NO_BLOCKS,))
    state = _Round(files, deny, shown, root)
    for block in blocks:
        state.apply(block)
    return state.result(len(blocks))


class _Round:
    """The files as the blocks applied so far left them, and what happened to each block."""

    def __init__(self, files: Mapping[str, str], deny: Sequence[str], shown: Sequence[str], root: str = ""):
        self.files, self.deny, self.root = files, deny, root
        self.shown = [p for p in dict.fromkeys(shown) if p in files]
        self.work: dict[str, str] = {}
        self.created: list[str] = []
        self.failures: list[EditFailure] = []
        self.redirected: list[tuple[str, str]] = []
        self.applied = 0

    def current(self, path: str) -> str | None:
        return self.work[path] if path in self.work else self.files.get(path)

    def apply(self, block: EditBlock) -> None:
        path, problem = resolve_path(block.path, self.files, self.work, self.deny, self.root)
        if not problem and self.current(path) is None:
            path, problem = self._redirect(block, path) if block.search.strip() else (path, self._placeholder(path))
        if problem:
            self.failures.append(problem)
            return
        new, failure = _apply_one(block, path, self.current(path), self.created)
        if failure:
            self.failures.append(failure)
            return
        self.work[path] = new
        self.applied += 1

    def _redirect(self, block: EditBlock, path: str) -> tuple[str, EditFailure | None]:
        """The one shown file a block for a missing file fits (models write placeholder paths)."""
        hits = [p for p in self.shown if count_matches(self.current(p) or "", block.search) == 1]
        if len(hits) != 1:
            return path, _missing(path, self.shown, hits)
        used, problem = resolve_path(hits[0], self.files, self.work, self.deny, self.root)
        if not problem:
            self.redirected.append((block.path, used))
        return used, problem

    def _placeholder(self, path: str) -> EditFailure | None:
        if not path.startswith(PLACEHOLDER_PREFIXES):
            return None
        return EditFailure(path, "bad_path", f"{path} is the placeholder from the format description, not a "
                           f"real path; {_shown_list(self.shown) or 'give the path from the repository root'}")

    def result(self, total: int) -> ApplyResult:
        changes = {p: c for p, c in self.work.items() if self.files.get(p) != c}
        return ApplyResult(changes, tuple(p for p in self.created if p in changes), tuple(self.failures),
                           self.applied, total, tuple(self.redirected))


def _shown_list(shown: Sequence[str]) -> str:
    if not shown:
        return ""
    more = f" and {len(shown) - SHOWN_LISTED} more" if len(shown) > SHOWN_LISTED else ""
    return f"the files you were shown are: {', '.join(shown[:SHOWN_LISTED])}{more}"


def _missing(path: str, shown: Sequence[str], hits: Sequence[str]) -> EditFailure:
    if not shown:
        return EditFailure(path, "missing_file", f"{path} does not exist; use an empty SEARCH part to create it, "
                           "or fix the path")
    fits = (f"its SEARCH part fits several of them ({', '.join(hits)})" if hits
            else "its SEARCH part matches none of the files you were shown")
    return EditFailure(path, "missing_file", f"{path} does not exist and {fits}; {_shown_list(shown)}. Put the "
                       "real path above <<<<<<< SEARCH, or use an empty SEARCH part to create a new file")


def _apply_one(block: EditBlock, path: str, current: str | None,
               created: list[str]) -> tuple[str, EditFailure | None]:
    if not block.search.strip() or current is None:
        return _create(block, path, current, created)
    result = replace_once(current, block.search, block.replace)
    if isinstance(result, str):
        return result, None
    if not result.starts and block.replace.strip() and count_matches(current, block.replace) == 1:
        return current, None  # sent before and already applied: nothing to do
    return "", _match_failure(path, result)


def _create(block: EditBlock, path: str, current: str | None, created: list[str]) -> tuple[str, EditFailure | None]:
    """An empty SEARCH part: a new file, more text for an empty or just-created one, or a re-sent creation."""
    if current is None:
        created.append(path)
        return block.replace, None
    if current.replace("\r\n", "\n").strip() == block.replace.strip():
        return current, None
    if path in created or not current.strip():
        return current + ("" if current.endswith("\n") or not current else "\n") + block.replace, None
    return "", EditFailure(path, "exists", f"{path} already exists, so an empty SEARCH part cannot create it; "
                           "quote the lines to change in SEARCH")


def resolve_path(raw: str, files: Mapping[str, str], work: Mapping[str, str],
                 deny: Sequence[str], root: str = "") -> tuple[str, EditFailure | None]:
    """The repository path a block means (tolerating sub-folder-relative paths), or why not.

    An absolute path is the workspace's file when it lies inside `root`; `/src/x.py` for an existing
    `src/x.py` is read from the repository root; any other absolute path is refused, never re-rooted.
    """
    path = raw.replace("\\", "/")
    if path.startswith("/"):
        base = root.rstrip("/")
        if base and path.startswith(base + "/"):
            path = path[len(base) + 1:]
        elif path.lstrip("/") in files or path.lstrip("/") in work:
            path = path.lstrip("/")
        else:
            return "", EditFailure(raw, "bad_path", f"{raw!r} is an absolute path outside the repository; give "
                                   "the path from the repository root")
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
    if why := denial(path, deny):
        return "", EditFailure(path, "denied", f"{path} {why} and must not be edited; change other files")
    return path, None


def denial(path: str, deny: Sequence[str]) -> str | None:
    """Why the bot may not write `path`, or None: always-denied files first, then `paths.deny` (gitignore rules)."""
    if matches_any(path, ALWAYS_DENIED):
        return ("is protected: CI workflows, the bot's configuration, CODEOWNERS and key files are never edited "
                "by the bot (paths.deny)")
    if matches_any(path, deny):
        return "is protected by the configuration (paths.deny)"
    return None


def _match_failure(path: str, miss: Miss) -> EditFailure:
    if miss.starts:
        where = ", ".join(str(s + 1) for s in miss.starts[:8])
        return EditFailure(path, "multiple_matches", f"the SEARCH part matches {len(miss.starts)} places in {path} "
                           f"(lines {where}); include more surrounding lines so it matches exactly one")
    return EditFailure(path, "no_match", f"the SEARCH part does not match {path}. {_nearest_hint(path, miss)}")


def _nearest_hint(path: str, miss: Miss) -> str:
    """The closest lines, raw (no line-number prefixes) in a fence, so they can be copied as SEARCH."""
    near = miss.nearest
    if miss.empty_file or near is None:
        return f"{path} is empty; use an empty SEARCH part to fill it." if miss.empty_file else ""
    last = near.start + len(near.lines)
    cut = (f" (the first {len(near.lines)} lines of a {near.length}-line stretch: keep SEARCH parts short)"
           if near.length > HINT_LINES else "")
    where = f"Line {last} of {path} is" if len(near.lines) == 1 else f"Lines {near.start + 1}-{last} of {path} are"
    return (f"{where} the closest ({near.ratio:.0%} similar){cut}:\n"
            f"{_fenced(near.lines)}\nCopy the SEARCH lines exactly from the file, without line numbers.")


def _fenced(lines: Sequence[str]) -> str:
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([fence, *lines, fence])


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


def syntax_errors(root: Path, paths: Sequence[str]) -> str:
    """The syntax errors of the files `paths` under `root` (Python by `compile`, JSON by parsing; nothing is run),
    '' when they compile."""
    errors = []
    for rel in paths:
        path = root / rel
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        try:
            if is_language(rel, "python"):
                compile(text, rel, "exec", dont_inherit=True)
            elif rel.endswith(".json"):
                json.loads(text)
        except SyntaxError as exc:
            errors.append(f"{rel}:{exc.lineno}: SyntaxError: {exc.msg}\n    {(exc.text or '').rstrip()}")
        except ValueError as exc:
            errors.append(f"{rel}: {exc}")
    return "\n".join(errors)
