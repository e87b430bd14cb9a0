"""One coding round: ask the coder, apply every edit block that matches, follow up on the rest.

Inside a round the coder may first ask for more code (`READ path`, `FIND text`), and gets a
bounded number of follow-up turns for blocks that did not apply or a reply cut off by length:
each follow-up carries its own previous reply and exactly what failed. Edits that delete,
skip or weaken existing tests, or touch CI configuration, are refused and undone (guards.py); so
are files holding a secret, binary files and files over the size limit (bot/forge/policy.py).
Then the changed files are compile-checked and the tests run, judged against the base.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.ensemble import prompts
from bot.ensemble.asking import ask
from bot.ensemble.edit_format import example
from bot.ensemble.edit_parsing import ParseResult, cut_oversized_blocks
from bot.ensemble.edits import (
    EditFailure,
    apply_edit_blocks,
    describe_failures,
    linked_paths,
    parse_edit_blocks,
)
from bot.ensemble.fileview import focus_from_text, render_file
from bot.ensemble.guards import find_test_tampering
from bot.ensemble.types import Phase, Plan, Round
from bot.ensemble.verdict import file_of_test
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.errors import ContextTooLong, PromptTooLong
from bot.forge.policy import content_problems, too_large
from bot.llm.types import Message
from bot.redact import clip
from bot.trace import span
from common.tokens import chars_for_tokens, estimate_tokens

if TYPE_CHECKING:
    from bot.ensemble.planner import Exploration
    from bot.ensemble.team import Team

log = logging.getLogger(__name__)
EDIT_FOLLOW_UPS = 2  # extra coder turns in a round for blocks that did not apply or a cut-off reply
CODE_REQUEST_TURNS = 2  # coder turns in a round that may ask for more code instead of editing
MAX_CODE_REQUESTS = 3
POLICY_REASONS = ("denied", "link", "bad_path", "tampering", "content")  # failures that are refusals, shown to the user
REPLY_TRACE_CHARS = 1500  # of a coder reply whose blocks did not all apply, kept in the trace
MIN_PROMPT_TOKENS = 1000  # the least room kept for the task, plan and files in a follow-up turn
MAX_FOCUS_LINES = 200  # a retrieved range longer than this says little about where to look
ALREADY_IN_FILES = ("every block you sent is already in the files (an earlier round made this change), so nothing "
                    "changed; the tests below are what that change still gives. Make a different change")
_REQUEST = re.compile(r"^\s*[`*-]*\s*(READ|FIND)\s*[:]?\s+(.+?)\s*`*\s*$", re.MULTILINE)


@dataclass
class RoundEdits:
    """What a round's turns did to the workspace: files written (with their previous text) and failures."""

    originals: dict[str, str | None] = field(default_factory=dict)
    applied: int = 0
    failures: list[EditFailure] = field(default_factory=list)  # of the last turn: what is still wrong
    refusals: list[EditFailure] = field(default_factory=list)  # policy refusals of every turn
    redirected: list[tuple[str, str]] = field(default_factory=list)
    writes: int = 0  # files written over all turns: a follow-up that writes nothing new made no progress
    unchanged: int = 0  # blocks whose change was already in the file (sent again): they applied and changed nothing


def code_round(team: Team, plan: Plan, found: Exploration, feedback: str, rnd: Round, reproduce: bool = False) -> Round:
    """Ask the coder, apply its edits (with follow-ups), guard them, compile-check and run the tests."""
    shown = shown_files(team, plan, found, feedback)
    notes = team.notes("coder")
    conventions = team.conventions([*plan.files, *([plan.reproduction_test] if plan.reproduction_test else [])])

    def prompt(budget: int) -> list[Message]:
        return prompts.coder_messages(team.task, plan, shown, found.text_outside(shown), feedback, notes,
                                      reproduce=reproduce, team=team.name, budget=budget, conventions=conventions)

    paths = list(dict.fromkeys([*shown, *([plan.reproduction_test] if plan.reproduction_test else [])]))
    edits = _converse(team, prompt, list(shown), example(paths))  # the example the prompt shows, on its path
    _guard(team, edits)
    if edits.applied == 0 or not edits.originals:
        rnd.edit_errors = describe_failures(edits.failures) or (
            ALREADY_IN_FILES if edits.unchanged else "the edits changed nothing")
        _record_refusals(team, rnd, [*edits.refusals, *edits.failures])
        return rnd
    rnd.applied = True
    rnd.partial = describe_failures(edits.failures) if edits.failures else ""
    _record_refusals(team, rnd, [*edits.refusals, *edits.failures])
    changed = sorted(edits.originals)
    rnd.compile_error = team.runner.compile_check(team.workspace.path, changed)
    if not rnd.compile_error:
        team.say(Phase.TESTING, rnd.number)
        team.check_stop()
        rnd.tests = team.runner.run_tests(team.workspace.path, known_failures=team.known_failures,
                                          files=team.judged_files())
    return rnd


def shown_files(team: Team, plan: Plan, found: Exploration, feedback: str) -> dict[str, str]:
    """What the coder sees of each file the plan names: whole, or its outline and the relevant windows."""
    files = WorkspaceFiles(team.workspace.path)
    wanted = [*plan.files, *([plan.reproduction_test] if plan.reproduction_test else []), *failing_test_files(feedback)]
    contents = {p: c for p in dict.fromkeys(wanted) if (c := files.read(p)) is not None}
    if not contents:
        return {}
    per_file = chars_for_tokens(team.prompt_budget("coder") // 2) // len(contents)  # the files take half the budget
    hints = "\n".join([team.task.text, prompts.render_plan(plan), feedback])
    views = {}
    for path, text in contents.items():
        # What the task, plan and test output name comes first; then the chunks retrieval found.
        focus = focus_from_text(path, text, hints) + [
            (r.start_line, r.end_line) for r in found.retrieved
            if r.path == path and r.start_line and r.end_line and r.end_line - r.start_line < MAX_FOCUS_LINES]
        views[path] = render_file(path, text, focus, max(per_file, 2000))
    return views


def failing_test_files(feedback: str, limit: int = 2) -> list[str]:
    """The files of the tests the feedback names as failing (`FAILED path::test`): small models fix from them."""
    names = re.findall(r"^(?:FAILED|ERROR) (\S+?)::", feedback, re.MULTILINE)
    return list(dict.fromkeys(file_of_test(n + "::x") for n in names))[:limit]


def _converse(team: Team, prompt: Callable[[int], list[Message]], shown: list[str],
              example: tuple[str, str, str]) -> RoundEdits:
    """The coder's turns in one round: code requests answered, edits applied, failures followed up.

    Each turn's first messages are built again to leave room, within the coder's prompt budget,
    for the conversation so far (its replies and our answers).
    """
    edits = RoundEdits()
    requests_left, follow_ups_left = CODE_REQUEST_TURNS, EDIT_FOLLOW_UPS
    tail: list[Message] = []
    while True:
        if tail:
            team.check_stop()  # a follow-up turn is a model call: a stop (or the deadline) ends the round here
        used = sum(estimate_tokens(m.content) + 8 for m in tail)

        def messages(budget: int, used: int = used, tail: list[Message] = tail) -> list[Message]:
            return [*prompt(max(budget - used, MIN_PROMPT_TOKENS)), *tail]

        try:
            reply = ask(team.models, "coder", messages, team.prompt_budget("coder"))
        except (ContextTooLong, PromptTooLong):
            if not tail:
                raise
            log.warning("team %s: the conversation outgrew the coder's window; ending the round's turns", team.name)
            return edits
        text, oversized = cut_oversized_blocks(reply.text or "", team.max_file_bytes)
        parsed = parse_edit_blocks(text)
        asked = _code_requests(text) if not parsed.blocks else []
        if asked and requests_left > 0:
            requests_left -= 1
            tail += [Message("assistant", text), Message("user", _answer(team, asked))]
            continue
        if tail and not parsed.blocks and not parsed.failures:
            return edits  # a follow-up answered without any block: the coder has nothing more to change
        writes, before = edits.writes, _signature(edits.failures)
        turn = [*_turn(team, parsed, text, shown, edits, example), *_too_large(oversized, team.max_file_bytes)]
        edits.refusals += [f for f in turn if f.reason == "content" and f not in edits.refusals]
        cut_off = getattr(reply, "finish_reason", "") == "length" or bool(getattr(reply, "truncated", False))
        stalled = bool(tail) and edits.writes == writes and _signature(turn) == before
        edits.failures = turn
        if not (turn or cut_off) or follow_ups_left == 0 or (stalled and not cut_off):
            return edits  # done, out of follow-ups, or the same failures again with nothing new written
        follow_ups_left -= 1
        tail += [Message("assistant", text), Message("user", _follow_up(turn, edits, cut_off))]


def _turn(team: Team, parsed: ParseResult, text: str, shown: list[str], edits: RoundEdits,
          example: tuple[str, str, str]) -> list[EditFailure]:
    """Apply one reply's blocks (less a copied example), traced; the failures of this turn."""
    parsed, copied = _without_example(parsed, example)
    with span("ensemble.edits", team=team.name, blocks=len(parsed.blocks)) as s:
        turn = [*copied, *_apply(team, parsed, shown, edits)]
        # what the coder wrote and why it did not apply: the evidence for model behaviour analysis
        s.set(applied=edits.applied, failures=[f"{f.reason}: {f.path}" for f in turn][:10],
              reply_head=clip(text, REPLY_TRACE_CHARS) if turn else "")
    edits.refusals += [f for f in turn if f.reason in POLICY_REASONS]
    return turn


def _too_large(cut: list[tuple[str, int]], limit: int) -> list[EditFailure]:
    return [EditFailure(path, "content", problem.removeprefix(f"{path}: "))
            for path, size in cut for problem in [too_large(path, size, limit)]]


def _signature(failures: list[EditFailure]) -> list[tuple[str, str]]:
    return sorted((f.reason, f.path) for f in failures)


def _apply(team: Team, parsed: ParseResult, shown: list[str], edits: RoundEdits) -> list[EditFailure]:
    """Apply the blocks that match to the workspace; the failures of this turn."""
    from bot.ensemble.edits import write_changes

    files = WorkspaceFiles(team.workspace.path)
    result = apply_edit_blocks(parsed.blocks, files, team.deny, shown=tuple(shown),
                               root=str(team.workspace.path.resolve()))
    linked = linked_paths(team.workspace.path, [*(b.path for b in parsed.blocks), *result.changes])
    linked += tuple(EditFailure(path, "content", problem.removeprefix(f"{path}: "))
                    for path, new in result.changes.items()
                    for problem in content_problems(path, files.read(path), new, team.max_file_bytes))
    blocked = {f.path for f in linked}
    changes = {p: c for p, c in result.changes.items() if p not in blocked}
    for path in changes:
        edits.originals.setdefault(path, files.read(path))
    write_changes(team.workspace.path, changes)
    edits.writes += len(changes)
    edits.applied += result.applied if changes else 0
    edits.unchanged += 0 if changes else result.applied
    edits.redirected += list(getattr(result, "redirected", ()))
    return [*parsed.failures, *[f for f in result.failures if f.path not in blocked], *linked]


def _without_example(parsed: ParseResult, example: tuple[str, str, str]) -> tuple[ParseResult, list[EditFailure]]:
    """The reply's blocks less any copy of the format example (a small model's favourite edit)."""
    from dataclasses import replace

    path, search, replace_text = (part.strip() for part in example)
    copies = [b for b in parsed.blocks if (b.path.strip(), b.search.strip(), b.replace.strip()) ==
              (path, search, replace_text)]
    if not copies:
        return parsed, []
    kept = tuple(b for b in parsed.blocks if b not in copies)
    return replace(parsed, blocks=kept), [EditFailure(path, "example", "this block is the format example from the "
                                                      "instructions, not a change; write the change the plan asks for")]


def _follow_up(failures: list[EditFailure], edits: RoundEdits, cut_off: bool) -> str:
    """The message that asks the coder to fix what did not apply (the applied blocks are in place)."""
    parts = []
    if edits.applied:
        parts.append(f"{edits.applied} of your edit blocks applied and are now in the files; do not send them again.")
    if cut_off:
        parts.append("Your reply was cut off because it was too long. Send the remaining changes as smaller "
                     "blocks (only the lines that change, with two or three lines around them).")
    if failures:
        parts.append("These blocks did NOT apply:\n" + describe_failures(failures))
        parts.append("Send corrected blocks for these only, copying SEARCH lines exactly from the file.")
    return prompts.data("edit results", "\n\n".join(parts))


def _code_requests(text: str) -> list[tuple[str, str]]:
    from bot.llm.reasoning import strip_reasoning

    return [(m.group(1), m.group(2).strip("`'\" ")) for m in _REQUEST.finditer(strip_reasoning(text))][:MAX_CODE_REQUESTS]


def _answer(team: Team, asked: list[tuple[str, str]]) -> str:
    """The code the coder asked for: files (windows of large ones) and exact-text matches."""
    files = WorkspaceFiles(team.workspace.path)
    parts = []
    budget = chars_for_tokens(team.prompt_budget("coder") // 4) // max(len(asked), 1)  # answers: a quarter
    for kind, what in asked:
        if kind == "READ":
            text = files.read(what)
            body = render_file(what, text, focus_from_text(what, text, team.task.text), budget) \
                if text is not None else "(no such file)"
            parts.append(prompts.data(f"file {what}", body))
        else:
            hits = team.workspace.grep(what)
            listing = "\n".join(f"{p}:{n}: {line}" for p, n, line in hits) or "(no matches)"
            parts.append(prompts.data(f"matches of {what[:60]}", listing))
    return "\n\n".join(parts) + "\n\nNow reply with the edit blocks."


def _guard(team: Team, edits: RoundEdits) -> None:
    """Undo this round's edits to any file where they delete, skip or weaken tests or touch CI config."""
    if not edits.originals:
        return
    from bot.ensemble.edits import write_changes

    changed = sorted({*team.workspace.changed_paths(), *team.frozen})
    before = {p: team.frozen[p] if p in team.frozen else team.workspace.base_text(p) for p in changed}
    files = WorkspaceFiles(team.workspace.path)  # one listing of the tree, not one per changed path
    after = {p: files.read(p) for p in changed}
    found = [t for t in find_test_tampering(before, after, team.task.text) if t.path in edits.originals]
    if not found:
        return
    undone = {t.path for t in found} | {t.also for t in found if t.kind == "moved_test"}
    for path in undone & set(edits.originals):
        original = edits.originals.pop(path)
        if original is None:
            (team.workspace.path / path).unlink(missing_ok=True)
        else:
            write_changes(team.workspace.path, {path: original})
    edits.failures += [EditFailure(t.path, "tampering", t.message.removeprefix(f"{t.path}: ")) for t in found]
    if not edits.originals:
        edits.applied = 0


def _record_refusals(team: Team, rnd: Round, failures: list[EditFailure]) -> None:
    for f in failures:
        refusal = f"{f.path}: {f.message}"
        if f.reason in POLICY_REASONS and refusal not in rnd.refused:
            rnd.refused.append(refusal)
            log.warning("team %s: edit refused: %s", team.name, refusal)
