"""The coder's turn in a round: ask the coder, apply every edit block that matches, follow up on the rest.

Inside a round the coder may first ask for more code (`READ path`, `FIND text`), and gets a
bounded number of follow-up turns for blocks that did not apply or a reply cut off by length:
each follow-up carries its own previous reply and exactly what failed. Edits that delete,
skip or weaken existing tests, or touch CI configuration, are refused and undone (guards.py); so
are files holding a secret, binary files and files over the size limit (bot/forge/policy.py).
What the edits did comes back as `RoundEdits`; checking, testing and judging them is the round's
(rounds.py).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from bot.ensemble import prompts
from bot.ensemble.asking import ask
from bot.ensemble.edit_format import EXAMPLE_FILE, example, whole_example
from bot.ensemble.edit_parsing import EditBlock, ParseResult, cut_oversized_blocks, parse_whole_files
from bot.ensemble.edits import (
    NO_BLOCKS,
    EditFailure,
    apply_edit_blocks,
    describe_failures,
    linked_paths,
    parse_edit_blocks,
    write_changes,
)
from bot.ensemble.fileview import focus_from_text, render_file
from bot.ensemble.guards import find_test_tampering
from bot.ensemble.instructions import Instructions
from bot.ensemble.planner import Exploration
from bot.ensemble.ports import ModelClient
from bot.ensemble.types import Plan, Task
from bot.ensemble.verdict import file_of_test
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.errors import ContextTooLong, PromptTooLong, StopRequested
from bot.forge import Workspace
from bot.forge.policy import DEFAULT_MAX_FILE_BYTES, content_problems, too_large
from bot.llm.manager import warmer
from bot.llm.reasoning import strip_reasoning
from bot.llm.types import STOP_LIMIT, Message
from bot.redact import clip
from bot.trace import span
from common.testfiles import is_test_path
from common.tokens import chars_for_tokens, estimate_tokens

log = logging.getLogger(__name__)
EDIT_FOLLOW_UPS = 2  # extra coder turns in a round for blocks that did not apply or a cut-off reply
CODE_REQUEST_TURNS = 2  # coder turns in a round that may ask for more code instead of editing
MAX_CODE_REQUESTS = 3
POLICY_REASONS = ("denied", "link", "bad_path", "tampering", "content")  # failures that are refusals, shown to the user
REPLY_TRACE_CHARS = 1500  # of a coder reply whose blocks did not all apply, kept in the trace
MIN_PROMPT_TOKENS = 1000  # the least room kept for the task, plan and files in a follow-up turn
MAX_FOCUS_LINES = 200  # a retrieved range longer than this says little about where to look
ECHO_MIN_CHARS = 24  # the shortest opening of a test file sent as a stop sequence (a lone `import x` is too common)
ALREADY_IN_FILES = ("every block you sent is already in the files (an earlier round made this change), so nothing "
                    "changed; the tests below are what that change still gives. Make a different change")
NO_LISTINGS = EditFailure("?", "parse", "the reply holds no file listing: send each file you change whole, its path "
                          "on its own line right above the opening ```")
_REQUEST = re.compile(r"^\s*[`*-]*\s*(READ|FIND)\s*[:]?\s+(.+?)\s*`*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Coder:
    """A team's coder: its model, the task, the workspace it edits, and the limits on what it may write."""

    models: ModelClient
    team: str
    task: Task
    workspace: Workspace
    instructions: Instructions = Instructions()
    deny: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # paths.max_file_kb: a bigger file is refused
    stop: Callable[[], bool] = lambda: False  # True once a stop was requested: no further model call
    temperature: float | None = None  # the team's sampling temperature (None: the coder model's own, taken as 0)

    @property
    def prompt_budget(self) -> int:
        """Tokens the coder's model can take as a prompt."""
        return self.models.prompt_budget("coder")

    def check_stop(self) -> None:
        """Raise StopRequested when a stop was requested (Ctrl-C, `/ensemble stop`, the deadline)."""
        if self.stop():
            raise StopRequested("a stop was requested")


@dataclass(frozen=True)
class Brief:
    """What the coder is told in one round: the plan, what exploring found, what earlier rounds taught, the other
    teams' notes; `reproduce` when the round writes the reproduction test."""

    plan: Plan
    found: Exploration
    feedback: str = ""
    notes: str = ""
    reproduce: bool = False
    failing: str = ""  # the base's failing tests (a direct attempt): their files are shown in every round
    whole: bool = False  # this round's format (Config.edit_format): files shown whole come back whole
    # the coder's replies in earlier rounds whose change was not good (`reply_key`): one sent again is asked anew
    sent: tuple[str, ...] = ()
    # one turn only: a round a critic's revision bought after the judge found a change good, where the good change
    # is kept whatever this round gives, so a follow-up or a warmer retry would buy nothing
    one_turn: bool = False


@dataclass
class RoundEdits:
    """What a round's turns did to the workspace: files written (with their previous text) and failures."""

    originals: dict[str, str | None] = field(default_factory=dict)
    applied: int = 0
    failures: list[EditFailure] = field(default_factory=list)  # of the last turn: what is still wrong
    refusals: list[EditFailure] = field(default_factory=list)  # policy refusals of every turn
    redirected: list[tuple[str, str]] = field(default_factory=list)
    writes: int = 0  # files written over all turns: a follow-up that writes nothing new made no progress
    replies: list[str] = field(default_factory=list)  # each turn's reply as `reply_key` reads it
    unchanged: int = 0  # blocks whose change was already in the file (sent again): they applied and changed nothing

    @property
    def changed(self) -> bool:
        """True when the turns left a change in the workspace."""
        return self.applied > 0 and bool(self.originals)

    def errors(self) -> str:
        """What the coder is told when the turns changed nothing: the failures, or that the change is already in."""
        return describe_failures(self.failures) or (ALREADY_IN_FILES if self.unchanged else "the edits changed nothing")


def write_change(coder: Coder, brief: Brief, frozen: Mapping[str, str], data: Collection[str] = ()) -> RoundEdits:
    """The coder's turns in one round: edits asked for, applied and guarded (`frozen`: the reproduction test as
    the judge keeps it, which no edit may weaken; `data`: the files the base's tests read, which are the judge's)."""
    plan = brief.plan
    # a direct attempt's first feedback is the base's failures itself: each text once
    shown = shown_files(coder, plan, brief.found, "\n".join(dict.fromkeys(filter(None, [brief.feedback, brief.failing]))))
    conventions = coder.instructions.applying_to(
        [*plan.files, *([plan.reproduction_test] if plan.reproduction_test else [])]).render()

    whole = brief.whole

    def prompt(budget: int) -> list[Message]:
        return prompts.coder_messages(coder.task, plan, shown, brief.found.text_outside(shown), brief.feedback,
                                      brief.notes, reproduce=brief.reproduce, team=coder.team, budget=budget,
                                      conventions=conventions, whole=whole, failing=brief.failing)

    paths = list(dict.fromkeys([*shown, *([plan.reproduction_test] if plan.reproduction_test else [])]))
    files = WorkspaceFiles(coder.workspace.path)
    shown_whole = frozenset(p for p, view in shown.items() if view == files.read(p)) if whole else frozenset()
    copied = whole_example(paths) if whole else example(paths)  # the example the prompt shows, on its path
    judged = prompts.judged_tests(shown, coder.task, plan, brief.reproduce)
    stops = echo_stops({p: shown[p] for p in shown_whole}, judged, coder.task.text)
    edits = _converse(coder, prompt, list(shown), copied, brief.sent, shown_whole, whole, brief.one_turn, stops)
    _guard(coder, edits, frozen, data)
    return edits


def shown_files(coder: Coder, plan: Plan, found: Exploration, feedback: str) -> dict[str, str]:
    """What the coder sees of each file the plan names: whole, or its outline and the relevant windows."""
    files = WorkspaceFiles(coder.workspace.path)
    wanted = [*plan.files, *([plan.reproduction_test] if plan.reproduction_test else []),
              *failing_test_files(feedback, exists=lambda p: files.read(p) is not None)]
    contents = {p: c for p in dict.fromkeys(wanted) if (c := files.read(p)) is not None}
    if not contents:
        return {}
    per_file = chars_for_tokens(coder.prompt_budget // 2) // len(contents)  # the files take half the budget
    hints = "\n".join([coder.task.text, prompts.render_plan(plan), feedback])
    views = {}
    for path, text in contents.items():
        # What the task, plan and test output name comes first; then the chunks retrieval found.
        focus = focus_from_text(path, text, hints) + [
            (r.start_line, r.end_line) for r in found.retrieved
            if r.path == path and r.start_line and r.end_line and r.end_line - r.start_line < MAX_FOCUS_LINES]
        views[path] = render_file(path, text, focus, max(per_file, 2000))
    return views


def echo_stops(whole: Mapping[str, str], judged: Iterable[str], task_text: str) -> tuple[str, ...]:
    """Where a whole-file reply starts to copy one of the judge's tests back: the opening of each test file in
    `whole` (the files shown whole: path, text) that is `judged`, i.e. its first two lines that are not blank and
    what lies between them. Sent as stop sequences, they end the reply there.

    After its change, a small coder often sends the unchanged tests back whole (27 of the 27 such copies in the
    bench's recorded replies of the local 1.5B model came after the changed file, none before), which costs a
    CPU server seconds for nothing: the judge runs the base's tests whatever comes back. An opening that the
    files the coder may change, the example or the task also hold is left out: the reply must not end there.
    """
    judged = set(judged)
    if not any(p not in judged for p in whole):
        return ()  # nothing the coder may change is shown: leave its reply alone
    others = "\n".join([task_text, EXAMPLE_FILE, *(text for p, text in whole.items() if p not in judged)])
    stops: list[str] = []
    for path in sorted(judged & set(whole)):
        opening = _opening(whole[path])
        if len(opening) >= ECHO_MIN_CHARS and opening not in others and opening not in stops:
            stops.append(opening)
    return tuple(stops[:STOP_LIMIT])


def _opening(text: str) -> str:
    """The text from the first line that is not blank through the second one."""
    lines = text.splitlines()
    filled = [i for i, line in enumerate(lines) if line.strip()][:2]
    return "\n".join(lines[filled[0]:filled[-1] + 1]) if filled else ""


def failing_test_files(feedback: str, limit: int = 2, exists: Callable[[str], bool] | None = None) -> list[str]:
    """The files of the tests the feedback names as failing (`FAILED path::test`): small models fix from them."""
    names = re.findall(r"^(?:FAILED|ERROR) (\S+?)::", feedback, re.MULTILINE)
    return list(dict.fromkeys(file_of_test(n + "::x", exists) for n in names))[:limit]


def _converse(coder: Coder, prompt: Callable[[int], list[Message]], shown: list[str],
              example: tuple[str, str, str], sent: Sequence[str] = (),
              shown_whole: frozenset[str] = frozenset(), whole: bool = False, one_turn: bool = False,
              stops: tuple[str, ...] = ()) -> RoundEdits:
    """The coder's turns in one round: code requests answered, edits applied, failures followed up.

    Each turn's first messages are built again to leave room, within the coder's prompt budget,
    for the conversation so far (its replies and our answers). A reply the coder already sent
    (`sent`: in an earlier round whose change was not good, or earlier in this one) is asked for
    again, warmer, once a round (in a follow-up, only a reply of an earlier round): at temperature 0 a small
    model answers a slightly different prompt with the same blocks, and applying them again would only repeat
    a known failure. A `one_turn` round makes one model call: no code requests, follow-ups or warmer
    retries. A follow-up refused for lack of time ends the turns with what applied so far.
    """
    edits = RoundEdits()
    requests_left, follow_ups_left = (0, 0) if one_turn else (CODE_REQUEST_TURNS, EDIT_FOLLOW_UPS)
    tail: list[Message] = []
    rewarmed = one_turn
    while True:
        if tail:
            coder.check_stop()  # a follow-up turn is a model call: a stop (or the deadline) ends the round here
        used = sum(estimate_tokens(m.content) + 8 for m in tail)

        def messages(budget: int, used: int = used, tail: list[Message] = tail) -> list[Message]:
            return [*prompt(max(budget - used, MIN_PROMPT_TOKENS)), *tail]

        try:
            reply = ask(coder.models, "coder", messages, coder.prompt_budget, stop=stops)
            text, oversized = cut_oversized_blocks(reply.text or "", coder.max_file_bytes)
            key = reply_key(text)  # after the cut: a huge block split into lines would cost ten times its size
            repeats = [*sent, *edits.replies].count(key)
            # a follow-up answered with this round's own last reply is a stall, ended below: asked again warmer,
            # a 1.5B coder sent the same reply back every time it was seen (bench/peers.py's model.jsonl, 5 of 5)
            if repeats and not rewarmed and (not tail or key in sent):
                rewarmed = True
                coder.check_stop()
                warm = warmer(coder.temperature or 0.0, repeats)
                log.info("team %s: the coder sent a reply it had sent before; asking again at temperature %s",
                         coder.team, warm)
                edits.replies.append(key)
                reply = ask(coder.models, "coder", messages, coder.prompt_budget, temperature=warm, stop=stops)
                text, oversized = cut_oversized_blocks(reply.text or "", coder.max_file_bytes)
                key = reply_key(text)
        except (ContextTooLong, PromptTooLong):
            if not tail:
                raise
            log.warning("team %s: the conversation outgrew the coder's window; ending the round's turns", coder.team)
            return edits
        except StopRequested as exc:
            # A follow-up the deadline would cut off is not asked for; what already applied is still tested (a few
            # seconds), not thrown away with the round. A stop someone asked for (coder.stop) ends the round.
            if not (tail and edits.changed) or coder.stop():
                raise
            log.info("team %s: %s; the edits that applied are tested as they are", coder.team, exc)
            return edits
        edits.replies.append(key)
        parsed = _parse(coder, text, shown_whole, whole)
        asked = _code_requests(text) if not parsed.blocks else []
        if asked and requests_left > 0:
            requests_left -= 1
            tail += [Message("assistant", text), Message("user", _answer(coder, asked))]
            continue
        if tail and not parsed.blocks and not parsed.failures:
            return edits  # a follow-up answered without any block: the coder has nothing more to change
        writes, before = edits.writes, _signature(edits.failures)
        turn = [*_turn(coder, parsed, text, shown, edits, example, whole), *_too_large(oversized, coder.max_file_bytes)]
        edits.refusals += [f for f in turn if f.reason == "content" and f not in edits.refusals]
        cut_off = reply.finish_reason == "length" or reply.truncated
        stalled = bool(tail) and edits.writes == writes and _signature(turn) == before
        edits.failures = turn
        # a copy of the example is no edit to correct: asked again with it still in view, a 1.5B coder sent the
        # same copy back in every follow-up seen (bench/peers.py's model.jsonl), so it alone buys no follow-up
        to_correct = [f for f in turn if f.reason != "example"]
        if not (to_correct or cut_off) or follow_ups_left == 0 or (stalled and not cut_off):
            return edits  # done, out of follow-ups, or the same failures again with nothing new written
        follow_ups_left -= 1
        tail += [Message("assistant", text), Message("user", _follow_up(turn, edits, cut_off, whole))]


def _turn(coder: Coder, parsed: ParseResult, text: str, shown: list[str], edits: RoundEdits,
          example: tuple[str, str, str], whole: bool = False) -> list[EditFailure]:
    """Apply one reply's blocks (less a copied example), traced; the failures of this turn. A reply with nothing
    but the example is told so, not also that it holds no edit; in the `whole` format the word is on listings."""
    parsed, copied = _without_example(parsed, example)
    with span("ensemble.edits", team=coder.team, blocks=len(parsed.blocks)) as s:
        applied = _apply(coder, parsed, shown, edits)
        if NO_BLOCKS in applied and (copied or whole):
            applied = [f for f in applied if f != NO_BLOCKS] + ([] if copied else [NO_LISTINGS])
        turn = [*copied, *applied]
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


def _parse(coder: Coder, text: str, shown_whole: frozenset[str], whole: bool) -> ParseResult:
    """The reply's edit blocks and, in the `whole` format, its whole-file listings as blocks: a listing replaces a
    file the coder was shown whole (`shown_whole`) or creates a new one; one without a path is the file to change
    when the coder was shown one such file whole (not counting tests) and it keeps most of its lines. A listing
    of a file shown only in part would drop every line the coder never saw, so it is refused with a word on how
    to change that file."""
    parsed = parse_edit_blocks(text)
    if not whole:
        return parsed
    files = WorkspaceFiles(coder.workspace.path)
    blocks, failures = list(parsed.blocks), list(parsed.failures)
    editable = [p for p in shown_whole if not is_test_path(p)]
    lone = (editable[0], files.read(editable[0]) or "") if len(editable) == 1 else None
    for path, content in parse_whole_files(text, lone):
        current = files.read(path)
        if current is None or path in shown_whole:
            blocks.append(EditBlock(path, current or "", content))
        else:
            failures.append(EditFailure(path, "parse", f"{path} was shown to you in part, so it cannot be sent "
                                        "whole: change it with SEARCH/REPLACE edit blocks"))
    return ParseResult(tuple(blocks), tuple(failures))


def reply_key(text: str) -> str:
    """A coder reply as far as it changes anything: its blocks (path, SEARCH, REPLACE) and whole-file listings
    (path, content), stripped, or its text when it has neither. Read from the text alone, not against the files:
    the same whole file sent again after a round changed the file is still the same reply."""
    parts = [f"{b.path.strip()}\n{b.search.strip()}\n{b.replace.strip()}" for b in parse_edit_blocks(text).blocks]
    parts += [f"{path}\n{content.strip()}" for path, content in parse_whole_files(text)]
    return "\n\0".join(parts) if parts else " ".join(text.split())


def _apply(coder: Coder, parsed: ParseResult, shown: list[str], edits: RoundEdits) -> list[EditFailure]:
    """Apply the blocks that match to the workspace; the failures of this turn."""
    files = WorkspaceFiles(coder.workspace.path)
    result = apply_edit_blocks(parsed.blocks, files, coder.deny, shown=tuple(shown),
                               root=str(coder.workspace.path.resolve()))
    linked = linked_paths(coder.workspace.path, [*(b.path for b in parsed.blocks), *result.changes])
    linked += tuple(EditFailure(path, "content", problem.removeprefix(f"{path}: "))
                    for path, new in result.changes.items()
                    for problem in content_problems(path, files.read(path), new, coder.max_file_bytes))
    blocked = {f.path for f in linked}
    changes = {p: c for p, c in result.changes.items() if p not in blocked}
    for path in changes:
        edits.originals.setdefault(path, files.read(path))
    write_changes(coder.workspace.path, changes)
    edits.writes += len(changes)
    edits.applied += result.applied if changes else 0
    edits.unchanged += 0 if changes else result.applied
    edits.redirected += list(result.redirected)
    return [*parsed.failures, *[f for f in result.failures if f.path not in blocked], *linked]


def _without_example(parsed: ParseResult, example: tuple[str, str, str]) -> tuple[ParseResult, list[EditFailure]]:
    """The reply's blocks less any copy of the format example (a small model's favourite edit)."""
    path, search, replace_text = (part.strip() for part in example)
    copies = [b for b in parsed.blocks if (b.path.strip(), b.search.strip(), b.replace.strip()) ==
              (path, search, replace_text)]
    if not copies:
        return parsed, []
    kept = tuple(b for b in parsed.blocks if b not in copies)
    return replace(parsed, blocks=kept), [EditFailure(path, "example", "this block is the format example from the "
                                                      "instructions, not a change; write the change the plan asks for")]


def _follow_up(failures: list[EditFailure], edits: RoundEdits, cut_off: bool, whole: bool = False) -> str:
    """The message that asks the coder to fix what did not apply (the applied blocks are in place), in the words
    of the round's format (`whole` files or edit blocks)."""
    parts = []
    if edits.applied:
        parts.append(f"{edits.applied} of your edit blocks applied and are now in the files; do not send them again.")
    if cut_off:
        parts.append("Your reply was cut off because it was too long. Send the remaining changes as smaller "
                     "blocks (only the lines that change, with two or three lines around them).")
    if failures:
        parts.append(("These changes were NOT applied:\n" if whole else "These blocks did NOT apply:\n")
                     + describe_failures(failures))
        parts.append("Send each file you change again, whole, its path on the line above the opening ```." if whole
                     else "Send corrected blocks for these only, copying SEARCH lines exactly from the file.")
    return prompts.data("edit results", "\n\n".join(parts))


def _code_requests(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2).strip("`'\" ")) for m in _REQUEST.finditer(strip_reasoning(text))][:MAX_CODE_REQUESTS]


def _answer(coder: Coder, asked: list[tuple[str, str]]) -> str:
    """The code the coder asked for: files (windows of large ones) and exact-text matches."""
    files = WorkspaceFiles(coder.workspace.path)
    parts = []
    budget = chars_for_tokens(coder.prompt_budget // 4) // max(len(asked), 1)  # answers: a quarter
    for kind, what in asked:
        if kind == "READ":
            text = files.read(what)
            body = render_file(what, text, focus_from_text(what, text, coder.task.text), budget) \
                if text is not None else "(no such file)"
            parts.append(prompts.data(f"file {what}", body))
        else:
            hits = coder.workspace.grep(what)
            listing = "\n".join(f"{p}:{n}: {line}" for p, n, line in hits) or "(no matches)"
            parts.append(prompts.data(f"matches of {what[:60]}", listing))
    return "\n\n".join(parts) + "\n\nNow reply with the edit blocks."


def _guard(coder: Coder, edits: RoundEdits, frozen: Mapping[str, str], data: Collection[str] = ()) -> None:
    """Undo this round's edits to any file where they delete, skip or weaken tests or touch CI config."""
    if not edits.originals:
        return
    changed = sorted({*coder.workspace.changed_paths(), *frozen})
    before = {p: frozen[p] if p in frozen else coder.workspace.base_text(p) for p in changed}
    files = WorkspaceFiles(coder.workspace.path)  # one listing of the tree, not one per changed path
    after = {p: files.read(p) for p in changed}
    found = [t for t in find_test_tampering(before, after, coder.task.text, data, base=coder.workspace.base_text)
             if t.path in edits.originals]
    if not found:
        return
    undone = {t.path for t in found} | {t.also for t in found if t.kind == "moved_test"}
    for path in undone & set(edits.originals):
        original = edits.originals.pop(path)
        if original is None:
            (coder.workspace.path / path).unlink(missing_ok=True)
        else:
            write_changes(coder.workspace.path, {path: original})
    edits.failures += [EditFailure(t.path, "tampering", t.message.removeprefix(f"{t.path}: ")) for t in found]
    if not edits.originals:
        edits.applied = 0
