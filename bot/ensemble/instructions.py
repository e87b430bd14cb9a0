"""Repository instructions: the conventions a repository states for coding agents, found and bounded.

A directory's instruction file is its `AGENTS.md`, else its `CLAUDE.md` or `GEMINI.md`; at
the root `.github/copilot-instructions.md` comes between those two. The root's file applies
everywhere; a nested one applies to the files below its directory, the nearest one to a file
winning. The `instructions:` text of `.github/ensemble.yml` comes last. Pure: files are read
through the `read` callable given, from a tree the caller trusts (the default branch on GitHub,
never a pull request's head).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, replace

from bot.ensemble.workspace_files import Read

ROOT_NAMES = ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "GEMINI.md")
NESTED_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
MAX_CHARS = 8_000  # of all instructions together, in every prompt
MAX_NESTED = 50  # nested files read at most (each is a `git show`)
CONFIG_SOURCE = "instructions in .github/ensemble.yml"
NEAREST_WINS = "Where these files disagree about a file, the one nearest to it in the tree wins."


@dataclass(frozen=True)
class InstructionFile:
    """One instruction file: its path and text."""

    path: str
    text: str

    @property
    def directory(self) -> str:
        """The directory it applies to: '' for the root's files."""
        return "" if self.path in ROOT_NAMES else posixpath.dirname(self.path)

    @property
    def heading(self) -> str:
        """What the file is and where it applies, as a heading line."""
        where = f"files under {self.directory}/" if self.directory else "the whole repository"
        return f"# {self.path} (applies to {where})"


@dataclass(frozen=True)
class Instructions:
    """The instruction files of a tree (root first) and the config's text."""

    files: tuple[InstructionFile, ...] = ()
    config_text: str = ""

    @property
    def found(self) -> tuple[str, ...]:
        """The paths of the instruction files, root first."""
        return tuple(f.path for f in self.files)

    def applying_to(self, touched: Iterable[str]) -> Instructions:
        """The root's file and, for each touched path, the nearest nested file above it."""
        nested = {f.directory: f for f in self.files if f.directory}
        chosen = {f.path: f for f in self.files if not f.directory}
        for path in touched:
            directory = posixpath.dirname(path.strip("/"))
            while directory and directory not in nested:
                directory = posixpath.dirname(directory)
            if directory:
                chosen.setdefault(nested[directory].path, nested[directory])
        return replace(self, files=tuple(chosen.values()))

    def render(self, budget_chars: int = MAX_CHARS) -> str:
        """Every section with its heading, cut (with a note) to `budget_chars` characters in all."""
        sections = [(f.heading, f.text.strip()) for f in self.files]
        if self.config_text.strip():
            sections.append((f"# {CONFIG_SOURCE}", self.config_text.strip()))
        if not sections:
            return ""
        preface = NEAREST_WINS if any(f.directory for f in self.files) else ""
        room = budget_chars - len(preface) - 2 * len(sections)  # the preface and the blank lines between sections
        shares = _shares([len(head) + len(body) + 1 for head, body in sections], room)
        text = "\n\n".join([preface] * bool(preface) + [_cut(h, b, s) for (h, b), s in zip(sections, shares, strict=True)])
        return text[:budget_chars]  # many tiny shares could overrun by their headings


def find_instructions(read: Read, paths: Iterable[str], config_text: str = "") -> Instructions:
    """The instruction files among `paths` (a tree's files), read with `read`, and the config's text."""
    present = set(paths)
    files = []
    root = _first(read, [name for name in ROOT_NAMES if name in present])
    if root:
        files.append(root)
    directories = sorted({posixpath.dirname(p) for p in present if posixpath.basename(p) in NESTED_NAMES} - {""})
    for directory in directories[:MAX_NESTED]:
        if directory == ".github":
            continue  # .github/copilot-instructions.md is the root's; other files there are not instructions
        found = _first(read, [f"{directory}/{name}" for name in NESTED_NAMES if f"{directory}/{name}" in present])
        if found:
            files.append(found)
    return Instructions(tuple(files), config_text.strip())


def _first(read: Read, candidates: list[str]) -> InstructionFile | None:
    """The first candidate that reads as a non-empty text."""
    for path in candidates:
        text = read(path)
        if text and text.strip():
            return InstructionFile(path, text)
    return None


def _shares(sizes: list[int], budget: int) -> list[int]:
    """Characters for each section: short sections whole, the rest split the remaining budget evenly."""
    shares = [0] * len(sizes)
    left = budget
    for done, i in enumerate(sorted(range(len(sizes)), key=lambda i: sizes[i])):
        shares[i] = min(sizes[i], max(left // (len(sizes) - done), 0))
        left -= shares[i]
    return shares


def _cut(heading: str, body: str, share: int) -> str:
    """A section within `share` characters; a cut one says how much of the file the models see."""
    if len(heading) + len(body) + 1 <= share:
        return f"{heading}\n{body}"
    note = f"\n[... cut: the bot reads the first part of these instructions ({len(body)} characters in all)]"
    room = max(share - len(heading) - len(note) - 1, 0)
    return f"{heading}\n{body[:room].rstrip()}{note}"
