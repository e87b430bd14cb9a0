"""Merge conflicts as the coder sees them, and its resolutions read back. Pure: text in, text out.

Each conflict region of a file git left with diff3 markers is a `Hunk`: both sides, what they started
from, and the lines around it. The coder is shown every hunk, numbered, with the task, and answers
each with a line `### conflict N` and a fenced block of the lines that replace the whole region
(`<<<<<<<` to `>>>>>>>`). Replies are read leniently (reasoning stripped, any fence length, a label in
prose or bold, extra text ignored) and applied strictly: a hunk left unanswered, or an answer that still holds conflict
markers, is reported back and nothing of that file is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.ensemble.prompt_parts import DATA_RULE, data
from bot.ensemble.types import Task
from bot.forge.onto import Conflict
from bot.llm.reasoning import strip_reasoning
from bot.llm.types import Message

CONTEXT_LINES = 8  # lines shown around each conflict
OURS, BASE, SEP, THEIRS = "<<<<<<<", "|||||||", "=======", ">>>>>>>"
_LABEL = re.compile(r"\bconflict\s+#?(\d+)\b", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


@dataclass(frozen=True)
class Hunk:
    """One conflict region: where it is, both sides and their common ancestor, and the lines around it."""

    number: int
    path: str
    start: int  # index of the `<<<<<<<` line
    end: int  # index after the `>>>>>>>` line
    ours: str
    base: str
    theirs: str
    before: str
    after: str


def hunks(conflicts: Sequence[Conflict], context: int = CONTEXT_LINES) -> list[Hunk]:
    """Every conflict region of every file, numbered from 1 in order; the lines around one never reach into the
    next region or the one before."""
    found: list[Hunk] = []
    for conflict in conflicts:
        lines = conflict.text.splitlines(keepends=True)
        at = last_end = 0
        while at < len(lines):
            if not lines[at].startswith(OURS):
                at += 1
                continue
            region = _region(lines, at)
            if region is None:
                break
            end, ours, base, theirs = region
            after = lines[end:end + context]
            after = after[:next((i for i, line in enumerate(after) if line.startswith(OURS)), len(after))]
            found.append(Hunk(len(found) + 1, conflict.path, at, end, "".join(ours), "".join(base), "".join(theirs),
                              "".join(lines[max(last_end, at - context):at]), "".join(after)))
            at = last_end = end
    return found


def _region(lines: list[str], start: int) -> tuple[int, list[str], list[str], list[str]] | None:
    """(end, ours, base, theirs) of the region opening at `start`; None when it never closes."""
    parts: dict[str, list[str]] = {"ours": [], "base": [], "theirs": []}
    part = "ours"
    for at in range(start + 1, len(lines)):
        line = lines[at]
        if line.startswith(BASE) and part == "ours":
            part = "base"
        elif line.rstrip("\r\n") == SEP and part in ("ours", "base"):
            part = "theirs"
        elif line.startswith(THEIRS) and part == "theirs":
            return at + 1, parts["ours"], parts["base"], parts["theirs"]
        else:
            parts[part].append(line)
    return None


def unresolvable(conflicts: Sequence[Conflict]) -> list[str]:
    """The conflicted files without a conflict region to resolve (deleted on one side, or binary)."""
    regions = {h.path for h in hunks(conflicts)}
    return [c.path for c in conflicts if c.path not in regions]


def resolution_messages(task: Task, found: Sequence[Hunk], sides: tuple[str, str], base_name: str,
                        feedback: str = "", team: str = "a", conventions: str = "") -> list[Message]:
    """Ask the coder to resolve `found`, keeping what both sides meant."""
    ours, theirs = sides
    system = (f"You are the coder of team {team}: fast and exact. Updating the pull request that does the task "
              f"below onto `{base_name}` left merge conflicts; you resolve them. " + DATA_RULE)
    parts = [data("task", task.text)]
    if conventions.strip():
        parts.append(data("repository conventions", conventions))
    for hunk in found:
        parts += [f"### conflict {hunk.number} in {hunk.path}",
                  data(f"lines before conflict {hunk.number}", hunk.before or "(start of file)"),
                  data(f"{ours} (conflict {hunk.number})", hunk.ours or "(nothing)"),
                  data(f"what both sides started from (conflict {hunk.number})", hunk.base or "(nothing)"),
                  data(f"{theirs} (conflict {hunk.number})", hunk.theirs or "(nothing)"),
                  data(f"lines after conflict {hunk.number}", hunk.after or "(end of file)")]
    if feedback.strip():
        parts.append(data("what your last resolution did", feedback))
    numbers = ", ".join(str(h.number) for h in found)
    instructions = (
        f"Resolve conflict{'s' if len(found) > 1 else ''} {numbers}. Keep what both sides meant: the pull request's change that does the task, "
        f"and the change `{base_name}` made meanwhile; the tests of both must pass. For each conflict reply with a "
        "line `### conflict N` and then one fenced code block holding the lines that replace the whole conflict "
        "(everything from its `<<<<<<<` line to its `>>>>>>>` line), without conflict markers and without the "
        "lines before or after it. An empty block removes the region.")
    return [Message("system", system), Message("user", "\n\n".join(parts) + "\n\n" + instructions)]


def parse_resolutions(reply: str) -> dict[int, str]:
    """Conflict number -> the lines of the first fenced block after a line naming it (the first answer counts).

    A label is any line outside a fence that says `conflict N` (a heading, bold, or prose); a fence holds code,
    so what it says is never a label."""
    lines = strip_reasoning(reply).splitlines(keepends=True)
    answers: dict[int, str] = {}
    label: int | None = None
    at = 0
    while at < len(lines):
        opening = _FENCE.match(lines[at])
        if opening is None:
            if found := _LABEL.search(lines[at]):
                label = int(found.group(1))
            at += 1
            continue
        closing = re.compile(rf"^[ \t]*{re.escape(opening.group(1))}[ \t]*$")
        end = next((i for i in range(at + 1, len(lines)) if closing.match(lines[i])), len(lines))
        if label is not None:
            body = "".join(lines[at + 1:end])
            answers.setdefault(label, body if not body or body.endswith("\n") else body + "\n")
            label = None
        at = end + 1
    return answers


def apply_resolutions(conflicts: Sequence[Conflict], found: Sequence[Hunk],
                      answers: Mapping[int, str]) -> tuple[dict[str, str], list[str]]:
    """The resolved text of each file whose every hunk is answered, and what is wrong with the rest."""
    problems: list[str] = []
    resolved: dict[str, str] = {}
    for conflict in conflicts:
        mine = [h for h in found if h.path == conflict.path]
        missing = [h.number for h in mine if h.number not in answers]
        marked = [h.number for h in mine if h.number in answers and _has_markers(answers[h.number])]
        if missing:
            problems.append(f"{conflict.path}: no answer for conflict {', '.join(map(str, missing))}; answer each "
                            "with `### conflict N` and a fenced block")
        if marked:
            problems.append(f"{conflict.path}: the answer to conflict {', '.join(map(str, marked))} still holds "
                            "conflict markers; give only the resolved lines")
        if missing or marked or not mine:
            continue
        lines = conflict.text.splitlines(keepends=True)
        for hunk in sorted(mine, key=lambda h: h.start, reverse=True):
            lines[hunk.start:hunk.end] = answers[hunk.number].splitlines(keepends=True)
        resolved[conflict.path] = "".join(lines)
    return resolved, problems


def _has_markers(text: str) -> bool:
    return any(line.startswith((OURS, THEIRS, BASE)) for line in text.splitlines())
