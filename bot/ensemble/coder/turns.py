"""The coder's turns in a round: ask the coder, apply every edit that matches, follow up on the rest.

A round's conversation is a list of `Turn`s, each one reply of the coder and what came of it, and one
pure function says what comes next: `next_turn(turns, limits) -> Ask | Done`. Inside a round the coder
may first ask for more code (`READ path`, `FIND text`); a reply it already sent in an earlier round is
set aside and asked for again, warmer, once; and it gets a bounded number of follow-up turns for edits
that did not apply or a reply cut off by length, each carrying its own previous reply and exactly what
failed, until a follow-up changes nothing new (a stall). How the coder writes its edits, and how a
reply is read, is the round's `EditFormat` (edit_format.py).

Edits that delete, skip or weaken existing tests, or touch CI configuration, are refused and undone
(guards.py); so are files holding a secret, binary files and files over the size limit
(bot/forge/policy.py). What the turns did comes back as `RoundEdits`; checking, testing and judging
them is the round's (rounds.py).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bot.ensemble import prompt_parts
from bot.ensemble.asking import ask
from bot.ensemble.coder.apply import (
    NO_BLOCKS,
    EditFailure,
    apply_edit_blocks,
    describe_failures,
    linked_paths,
    syntax_errors,
    write_changes,
)
from bot.ensemble.coder.fileview import focus_from_text, render_file
from bot.ensemble.coder.formats import BLOCKS, FORMATS, EditFormat, reply_end, reply_tokens
from bot.ensemble.coder.parsing import ParseResult, cut_oversized_blocks, reply_key
from bot.ensemble.coder.prompts import (
    coder_messages,
    continued_messages,
    judged_tests,
    render_plan,
    task_paths,
)
from bot.ensemble.instructions import Instructions
from bot.ensemble.judge import (
    NO_CLOSURE,
    RUNNER_KINDS,
    AddedTests,
    Closure,
    Tampering,
    find_test_tampering,
    tests_to_move,
)
from bot.ensemble.ports import ModelClient, ModelReply
from bot.ensemble.types import Exploration, Plan, Refusal, RefusalKind, Task, Transcript
from bot.ensemble.workspace_files import Read, WorkspaceFiles
from bot.errors import ContextTooLong, PromptTooLong, StopRequested
from bot.forge import Workspace
from bot.forge.policy import DEFAULT_MAX_FILE_BYTES, content_problems, too_large
from bot.llm.manager import warmer
from bot.llm.reasoning import strip_reasoning
from bot.llm.types import STOP_LIMIT, Message, ReplyEnd
from bot.redact import clip
from bot.trace import span
from common.testids import file_of_test
from common.tokens import chars_for_tokens, estimate_tokens
from sandbox.summary import failing_tests

log = logging.getLogger(__name__)
EDIT_FOLLOW_UPS = 2  # extra coder turns in a round for blocks that did not apply or a cut-off reply
CODE_REQUEST_TURNS = 2  # coder turns in a round that may ask for more code instead of editing
WARM_RETRIES = 1  # replies sent in an earlier round that are asked for again, warmer, in a round
MAX_CODE_REQUESTS = 3
# the failures that are refusals, shown to the user, and their kind: a guard's on the tests or on what runs them
POLICY_REASONS: dict[str, RefusalKind] = {"denied": "policy", "link": "policy", "bad_path": "policy",
                                          "content": "policy", "tampering": "tests", "runner": "runner"}
REPLY_TRACE_CHARS = 1500  # of a coder reply whose blocks did not all apply, kept in the trace
MIN_PROMPT_TOKENS = 1000  # the least room kept for the task, plan and files in a follow-up turn
MAX_FOCUS_LINES = 200  # a retrieved range longer than this says little about where to look
ALREADY_IN_FILES = ("every block you sent is already in the files (an earlier round made this change), so nothing "
                    "changed; the tests below are what that change still gives. Make a different change")
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
    clock: Callable[[], float] = time.monotonic  # the team's clock: how long each reply took

    def conventions(self, plan: Plan) -> str:
        """The repository's conventions that apply to the files of `plan`, rendered."""
        return self.instructions.applying_to(
            [*plan.files, *([plan.reproduction_test] if plan.reproduction_test else [])]).render()

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
    edit_format: EditFormat = BLOCKS  # how the coder writes this round's change (Config.edit_format)
    # the format every request of the team opens in (its first round's), whatever the round's own: a round that
    # switched format then shares its opening with the team's other requests (None: the round's own format)
    opened_in: EditFormat | None = None
    # the coder's replies in earlier rounds whose change was not good (`reply_key`): one sent again is asked anew
    sent: tuple[str, ...] = ()
    # one turn only: a round a critic's revision bought after the judge found a change good, where the good change
    # is kept whatever this round gives, so a follow-up or a warmer retry would buy nothing
    one_turn: bool = False
    temperature: float | None = None  # an independent sample's temperature (None: the team's own)
    reply_by: float | None = None  # a short round: the clock's time the coder's replies must be done by
    # the last round's conversation, which a refinement of its change goes on with (None: the round opens a new one)
    earlier: Transcript | None = None


TurnKind = Literal["edits", "request", "repeat", "empty"]


@dataclass(frozen=True)
class Turn:
    """One reply of the coder in a round, and what came of it.

    `edits`: its changes were applied (those that fit); `request`: it asked for code, and `answer` holds it;
    `repeat`: a reply it sent in an earlier round, set aside unapplied; `empty`: a follow-up answered with
    no change at all.
    """

    kind: TurnKind
    text: str  # the reply, with oversized blocks cut out
    key: str  # the reply as `reply_key` reads it: what a repeat is recognised by
    repeats: int = 0  # how often the coder sent this reply before (earlier rounds and this one)
    answer: str = ""  # the code it asked for
    cut_off: bool = False  # the reply was cut off by the output cap
    failures: tuple[EditFailure, ...] = ()  # what did not apply, or was refused
    originals: tuple[tuple[str, str | None], ...] = ()  # the files it wrote, with their text before it
    applied: int = 0  # blocks that applied and changed a file
    unchanged: int = 0  # blocks whose change was already in the file (sent again): they changed nothing
    seconds: float = 0.0  # how long the reply took to come


@dataclass(frozen=True)
class TurnLimits:
    """What a round allows the coder: turns asking for code, follow-ups, warmer retries of a reply sent before."""

    requests: int = CODE_REQUEST_TURNS
    follow_ups: int = EDIT_FOLLOW_UPS
    warm_retries: int = WARM_RETRIES
    sent: tuple[str, ...] = ()  # the coder's replies in earlier rounds whose change was not good
    temperature: float = 0.0  # the coder's own temperature, which a retry warms
    edit_format: EditFormat = BLOCKS


@dataclass(frozen=True)
class Ask:
    """Ask the coder: the round's prompt, then `tail` (the conversation so far), at `temperature` (None: its own).

    A reply in `set_aside` (sent in an earlier round) is set aside and asked for again, warmer; with
    `answer_requests` a reply that asks for code gets it, else it is read as the edit it is.
    """

    tail: tuple[Message, ...] = ()
    temperature: float | None = None
    set_aside: frozenset[str] = frozenset()
    answer_requests: bool = False


@dataclass(frozen=True)
class Done:
    """The round's turns are over, and why."""

    why: str


def next_turn(turns: Sequence[Turn], limits: TurnLimits) -> Ask | Done:
    """What follows the round's turns so far: another ask (the first, a warmer retry of a reply sent before, the
    code asked for, a follow-up on what did not apply) or the end of the round's turns."""
    last = turns[-1] if turns else None
    if last is not None and last.kind == "empty":
        return Done("a follow-up was answered without any change: the coder has nothing more to change")
    if last is not None and last.kind == "edits":
        edits = [t for t in turns if t.kind == "edits"]
        if not (last.cut_off or any(f.reason != "example" for f in last.failures)):
            # a copy of the example is no edit to correct: asked again with it still in view, a 1.5B coder sent the
            # same copy back in every follow-up seen (bench/peers.py's model.jsonl), so it alone buys no follow-up
            return Done("every change applied")
        if len(edits) > limits.follow_ups:
            return Done("no follow-up left")
        before = edits[-2].failures if len(edits) > 1 else ()
        answered = any(t.kind in ("edits", "request") for t in turns[:-1])
        if answered and not last.originals and _signature(last.failures) == _signature(before) and not last.cut_off:
            return Done("the same failures again, with nothing new written")
    retried = sum(t.kind == "repeat" for t in turns)
    return Ask(_tail(turns, limits.edit_format),
               warmer(limits.temperature, last.repeats) if last is not None and last.kind == "repeat" else None,
               set_aside=frozenset(limits.sent) if retried < limits.warm_retries else frozenset(),
               answer_requests=sum(t.kind == "request" for t in turns) < limits.requests)


def _tail(turns: Sequence[Turn], edit_format: EditFormat) -> tuple[Message, ...]:
    """The conversation after the round's prompt: each reply that was answered, and the answer (the code it asked
    for, or what did not apply); a reply set aside for a retry is not part of it."""
    tail: list[Message] = []
    applied = 0
    for turn in turns:
        applied += turn.applied
        if turn.kind == "request":
            tail += [Message("assistant", turn.text), Message("user", turn.answer)]
        elif turn.kind == "edits":
            said = edit_format.follow_up(turn.failures, applied, turn.cut_off)
            tail += [Message("assistant", turn.text), Message("user", prompt_parts.data("edit results", said))]
    return tuple(tail)


def _signature(failures: Sequence[EditFailure]) -> list[tuple[str, str]]:
    return sorted((f.reason, f.path) for f in failures)


@dataclass(frozen=True)
class RoundEdits:
    """What a round's turns did to the workspace: files written (with their previous text) and failures."""

    originals: Mapping[str, str | None]
    applied: int = 0
    failures: tuple[EditFailure, ...] = ()  # of the last turn that made edits: what is still wrong
    refusals: tuple[EditFailure, ...] = ()  # policy refusals of every turn
    replies: tuple[str, ...] = ()  # each turn's reply as `reply_key` reads it
    unchanged: int = 0  # blocks whose change was already in the file (sent again): they applied and changed nothing
    follow_up_s: float = 0.0  # the replies after the first one took this long (calls the deadline may refuse)
    reply_s: float = 0.0  # the first reply took this long
    compile_error: str = ""  # the syntax errors of the files the change left (Python, JSON), '' when they compile
    transcript: Transcript | None = None  # the conversation as the turns left it, for the next round to go on with

    @classmethod
    def of(cls, turns: Sequence[Turn]) -> RoundEdits:
        """The round's edits, from its turns."""
        originals: dict[str, str | None] = {}
        for turn in turns:
            for path, text in turn.originals:
                originals.setdefault(path, text)
        made = [t for t in turns if t.kind == "edits"]
        refusals = dict.fromkeys(f for t in made for f in t.failures if f.reason in POLICY_REASONS)
        return cls(originals, sum(t.applied for t in made), made[-1].failures if made else (), tuple(refusals),
                   tuple(t.key for t in turns), sum(t.unchanged for t in made), sum(t.seconds for t in turns[1:]),
                   turns[0].seconds if turns else 0.0)

    @property
    def changed(self) -> bool:
        """True when the turns left a change in the workspace."""
        return self.applied > 0 and bool(self.originals)

    def errors(self) -> str:
        """What the coder is told when the turns changed nothing: the failures, or that the change is already in."""
        return describe_failures(self.failures) or (ALREADY_IN_FILES if self.unchanged else "the edits changed nothing")

    def refused(self, team: str) -> tuple[Refusal, ...]:
        """The edits refused in the round's turns, once each (and logged for `team`)."""
        refused: list[Refusal] = []
        for f in [*self.refusals, *self.failures]:
            kind = POLICY_REASONS.get(f.reason)
            refusal = Refusal(kind, f.path, f.message) if kind else None
            if refusal is not None and refusal not in refused:
                refused.append(refusal)
                log.warning("team %s: edit refused: %s", team, refusal)
        return tuple(refused)


@dataclass(frozen=True)
class _Conversation:
    """A round's conversation with the coder: the prompt, and what reading its replies needs."""

    coder: Coder
    prompt: Callable[[int], list[Message]]  # the round's prompt within a budget of tokens
    limits: TurnLimits
    shown: Mapping[str, str]  # the files the coder was shown: path, what it was shown of it
    example: tuple[str, str, str]  # the worked example as a reply reads once parsed, which is never applied
    stops: tuple[str, ...]  # where a reply should end
    reader: EditFormat  # how a reply is read: the round's format, or the whole-file form the conversation opened in
    temperature: float | None = None  # the round's own temperature (an independent sample), None: the team's
    reply_by: float | None = None  # a short round's time the replies must be done by (the model client cuts them)
    max_tokens: int | None = None  # what a reply can need (None: the model's configured output cap)
    until: ReplyEnd | None = None  # where a reply is complete (formats.reply_end)


def write_change(coder: Coder, brief: Brief, frozen: Mapping[str, str], data: Collection[str] = (),
                 closure: Closure = NO_CLOSURE) -> RoundEdits:
    """The coder's turns in one round: edits asked for, applied, guarded (`frozen`: the reproduction test as the
    judge keeps it, which no edit may weaken; `data`: the files the base's tests read, which are the judge's, as is
    the rest of the tests' `closure`) and syntax-checked (`RoundEdits.compile_error`)."""
    plan, files = brief.plan, WorkspaceFiles(coder.workspace.path)
    # a direct attempt's first feedback is the base's failures itself: each text once
    shown = shown_files(coder, plan, brief.found, "\n".join(dict.fromkeys(filter(None, [brief.feedback, brief.failing]))))
    edit_format = brief.edit_format.fitted(shown, files.read)  # a format that picks per file names its picks
    opening = brief.opened_in.fitted(shown, files.read) if brief.opened_in else edit_format
    nearby = brief.found.text_outside(shown)
    conventions = coder.conventions(plan)

    def fresh(budget: int) -> list[Message]:
        return coder_messages(coder.task, plan, shown, nearby, brief.feedback, brief.notes,
                              reproduce=brief.reproduce, team=coder.team, budget=budget, conventions=conventions,
                              edit_format=edit_format, failing=brief.failing, opened_in=opening)

    prompt: Callable[[int], list[Message]] = fresh
    opened, known = opening, {p: files.read(p) for p in shown}
    if (going_on := _going_on(coder, brief, shown, files.read, edit_format)) is not None:
        prompt, opened, known = going_on
    # a reply in a conversation that opened with whole files may still send one whole: it is read as such
    reader = opened if opened.name != BLOCKS.name else edit_format
    paths = task_paths(shown, plan)
    judged = judged_tests(shown, coder.task, plan, brief.reproduce)
    shown_whole = reader.shown_whole(shown, files.read)
    editable = [p for p in paths if p not in judged]
    planned = [*plan.files, *([plan.reproduction_test] if plan.reproduction_test else [])]
    new_files = sum(files.read(p) is None for p in dict.fromkeys(planned) if p not in judged)
    need = max(reply_tokens(f, shown, files.read, editable, new_files) for f in (edit_format, reader)) if shown else None
    limits = TurnLimits(0, 0, 0) if brief.one_turn else TurnLimits(sent=brief.sent)
    own = brief.temperature if brief.temperature is not None else coder.temperature or 0.0
    limits = replace(limits, temperature=own, edit_format=edit_format)
    whole = {p: shown[p] for p in shown_whole}
    stops = (*reader.stops(whole, judged, coder.task.text), *edit_format.stops(whole, judged, coder.task.text))
    # the reproduction round writes its test alone; a round may end its reply once the one file it changes is listed
    targets = [plan.reproduction_test] if brief.reproduce and plan.reproduction_test else editable
    talk = _Conversation(coder, prompt, limits, shown, opened.example(paths),
                         tuple(dict.fromkeys(stops))[:STOP_LIMIT], reader, brief.temperature, brief.reply_by, need,
                         reply_end(edit_format, shown, files.read, targets))
    edits, ended = _converse(talk)
    transcript = Transcript(ended, plan, opened.name, tuple(known.items())) if ended else None
    edits = replace(_guard(coder, edits, frozen, data, closure), transcript=transcript)
    if not edits.changed:
        return edits
    return replace(edits, compile_error=syntax_errors(coder.workspace.path, sorted(edits.originals)))


def _going_on(coder: Coder, brief: Brief, shown: Mapping[str, str], read: Read, edit_format: EditFormat,
              ) -> tuple[Callable[[int], list[Message]], EditFormat, dict[str, str | None]] | None:
    """The round's request as the last round's conversation going on (`Brief.earlier`: a refinement of its change,
    on the same plan), its opening's format, and each file's text as the conversation will have shown it; None when
    the round opens a conversation of its own, or the conversation would not fit the coder's prompt budget. A file
    the conversation showed otherwise than it is now, the coder's own changes included, is shown again: a small
    coder copies the SEARCH lines of its next blocks from the last listing it read, not from its own reply (the
    local 1.5B coder searched for lines its whole-file reply had dropped: bench/peers.py's model.jsonl).

    On a local server a round's time is mostly its prompt's reading (the local 1.5B coder on two cores reads about
    43 tokens a second and writes about 8: bench/prefix_read.py), and a server that caches prompt prefixes reads a
    request from where it differs from the last one: this one from its last message on, where a new request would
    differ from the first file the last round changed, or from the system prompt when the format changes."""
    earlier = brief.earlier
    if earlier is None or brief.reproduce or earlier.plan != brief.plan:
        return None
    known = dict(earlier.known)
    now = [p for p in shown if p not in known or read(p) != known[p]]
    notes = brief.notes if brief.notes and not any(brief.notes in m.content for m in earlier.messages) else ""
    opened = FORMATS.get(earlier.opened_in, edit_format)
    messages = continued_messages(earlier.messages, coder.task, brief.plan, shown, now, brief.feedback, notes,
                                  coder.team, edit_format, switched=opened.name != edit_format.name)
    if sum(estimate_tokens(m.content) + 8 for m in messages) > coder.prompt_budget:
        return None
    return (lambda budget: messages), opened, {**known, **{p: read(p) for p in now}}


def _converse(talk: _Conversation) -> tuple[RoundEdits, tuple[Message, ...]]:
    """Ask and read the coder's replies until `next_turn` says the round's turns are done; the round's edits, and
    the conversation as they left it (`_ended`).

    Each turn's first messages are built again to leave room, within the coder's prompt budget, for the
    conversation so far. A follow-up the model client refuses for lack of time (or room) ends the turns with
    what applied so far, if anything; a stop someone asked for ends the team.
    """
    coder = talk.coder
    turns: list[Turn] = []
    asked: list[Message] = []  # the messages of the last request that got a reply
    while isinstance(step := next_turn(turns, talk.limits), Ask):
        if turns:
            coder.check_stop()  # another model call: a stop (or the deadline) ends the round here
        if step.temperature is not None:
            log.info("team %s: the coder sent a reply it had sent before; asking again at temperature %s",
                     coder.team, step.temperature)
        used = sum(estimate_tokens(m.content) + 8 for m in step.tail)
        built: list[Message] = []

        def messages(budget: int, used: int = used, tail: tuple[Message, ...] = step.tail,
                     built: list[Message] = built) -> list[Message]:
            built[:] = [*talk.prompt(max(budget - used, MIN_PROMPT_TOKENS)), *tail]
            return list(built)

        began = coder.clock()
        try:
            temperature = step.temperature if step.temperature is not None else talk.temperature
            # after code it asked for, the coder may change a file the round's cap (and its end) did not count
            read_more = any(t.kind == "request" for t in turns)
            need, until = (None, None) if read_more else (talk.max_tokens, talk.until)
            reply = ask(coder.models, "coder", messages, coder.prompt_budget, temperature=temperature,
                        stop=talk.stops, by=talk.reply_by, max_tokens=need, until=until)
        except (ContextTooLong, PromptTooLong):
            if not step.tail:
                raise
            log.warning("team %s: the conversation outgrew the coder's window; ending the round's turns", coder.team)
            break
        except StopRequested as exc:
            # A follow-up the deadline would cut off is not asked for: the round ends with what it has (what applied
            # is still tested, a few seconds), and the policy decides whether another round fits in the time left
            # (one in the other edit format may). A stop someone asked for (coder.stop) ends the team.
            if not step.tail or coder.stop():
                raise
            log.info("team %s: %s; the round ends with the edits that applied", coder.team, exc)
            break
        turns.append(replace(_read(talk, turns, reply, step), seconds=coder.clock() - began))
        asked = built
    return RoundEdits.of(turns), _ended(asked, turns[-1] if turns else None)


def _ended(asked: Sequence[Message], last: Turn | None) -> tuple[Message, ...]:
    """The conversation as the round's turns left it: the last request that got a reply, then that reply, unless it
    was set aside (a repeat), and the code it asked for, if it did; empty when no request got a reply."""
    if not asked or last is None:
        return ()
    if last.kind == "repeat":
        return tuple(asked)
    return (*asked, Message("assistant", last.text), *([Message("user", last.answer)] if last.kind == "request" else []))


def _read(talk: _Conversation, turns: Sequence[Turn], reply: ModelReply, step: Ask) -> Turn:
    """One reply as a turn: set aside (a repeat), a request for code (answered), nothing (after a follow-up), or
    edits, applied."""
    coder = talk.coder
    text, oversized = cut_oversized_blocks(reply.text or "", coder.max_file_bytes)
    key = reply_key(text)  # after the cut: a huge block split into lines would cost ten times its size
    repeats = [*talk.limits.sent, *(t.key for t in turns)].count(key)
    if key in step.set_aside:
        return Turn("repeat", text, key, repeats)
    files = WorkspaceFiles(coder.workspace.path)
    parsed = talk.reader.parse(text, files.read, talk.shown)
    asked = _code_requests(text) if not parsed.blocks else []
    if asked and step.answer_requests:
        return Turn("request", text, key, repeats, answer=_answer(coder, asked))
    if step.tail and not parsed.blocks and not parsed.failures:
        return Turn("empty", text, key, repeats)
    cut_off = reply.finish_reason == "length" or reply.truncated
    turn = _apply(talk, parsed, text, sum(t.applied for t in turns))
    return replace(turn, key=key, repeats=repeats, cut_off=cut_off,
                   failures=(*turn.failures, *_too_large(oversized, coder.max_file_bytes)))


def _apply(talk: _Conversation, parsed: ParseResult, text: str, applied_before: int) -> Turn:
    """Apply one reply's blocks that match (less a copied example) to the workspace, traced. A reply with nothing
    but the example is told so, not also that it holds no edit; one with nothing at all is told in the words of
    the round's format."""
    coder, edit_format = talk.coder, talk.limits.edit_format
    parsed, copied = _without_example(parsed, talk.example)
    files = WorkspaceFiles(coder.workspace.path)
    with span("ensemble.edits", team=coder.team, blocks=len(parsed.blocks)) as s:
        result = apply_edit_blocks(parsed.blocks, files, coder.deny, shown=tuple(talk.shown),
                                   root=str(coder.workspace.path.resolve()))
        linked = linked_paths(coder.workspace.path, [*(b.path for b in parsed.blocks), *result.changes])
        linked += tuple(EditFailure(path, "content", problem.removeprefix(f"{path}: "))
                        for path, new in result.changes.items()
                        for problem in content_problems(path, files.read(path), new, coder.max_file_bytes))
        blocked = {f.path for f in linked}
        changes = {p: c for p, c in result.changes.items() if p not in blocked}
        originals = tuple((path, files.read(path)) for path in changes)
        write_changes(coder.workspace.path, changes)
        failures = [*parsed.failures, *[f for f in result.failures if f.path not in blocked], *linked]
        if NO_BLOCKS in failures and (copied or edit_format.no_edit != NO_BLOCKS):
            failures = [f for f in failures if f != NO_BLOCKS] + ([] if copied else [edit_format.no_edit])
        failures = [*copied, *failures]
        applied = result.applied if changes else 0
        # what the coder wrote and why it did not apply: the evidence for model behaviour analysis
        s.set(applied=applied_before + applied, failures=[f"{f.reason}: {f.path}" for f in failures][:10],
              reply_head=clip(text, REPLY_TRACE_CHARS) if failures else "")
    return Turn("edits", text, "", failures=tuple(failures), originals=originals, applied=applied,
                unchanged=0 if changes else result.applied)


def shown_files(coder: Coder, plan: Plan, found: Exploration, feedback: str, read: Read | None = None) -> dict[str, str]:
    """What the coder sees of each file the plan names: whole, or its outline and the relevant windows; `read` is
    the tree the files are read from (the workspace's when None)."""
    read = read or WorkspaceFiles(coder.workspace.path).read
    wanted = [*plan.files, *([plan.reproduction_test] if plan.reproduction_test else []),
              *failing_test_files(feedback, exists=lambda p: read(p) is not None)]
    contents = {p: c for p in dict.fromkeys(wanted) if (c := read(p)) is not None}
    if not contents:
        return {}
    per_file = chars_for_tokens(coder.prompt_budget // 2) // len(contents)  # the files take half the budget
    hints = "\n".join([coder.task.text, render_plan(plan), feedback])
    views = {}
    for path, text in contents.items():
        # What the task, plan and test output name comes first; then the chunks retrieval found.
        focus = focus_from_text(path, text, hints) + [
            (r.start_line, r.end_line) for r in found.retrieved
            if r.path == path and r.start_line and r.end_line and r.end_line - r.start_line < MAX_FOCUS_LINES]
        views[path] = render_file(path, text, focus, max(per_file, 2000))
    return views


def failing_test_files(feedback: str, exists: Callable[[str], bool], limit: int = 2) -> list[str]:
    """The files of the tests the feedback names as failing (`FAILED path::test`): small models fix from them."""
    return list(dict.fromkeys(file_of_test(t, exists) for t in failing_tests(feedback) if "::" in t))[:limit]


def _too_large(cut: list[tuple[str, int]], limit: int) -> list[EditFailure]:
    return [EditFailure(path, "content", problem.removeprefix(f"{path}: "))
            for path, size in cut for problem in [too_large(path, size, limit)]]


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
            parts.append(prompt_parts.data(f"file {what}", body))
        else:
            hits = coder.workspace.grep(what)
            listing = "\n".join(f"{p}:{n}: {line}" for p, n, line in hits) or "(no matches)"
            parts.append(prompt_parts.data(f"matches of {what[:60]}", listing))
    return "\n\n".join(parts) + "\n\nNow reply with the edit blocks."


def _move_added_tests(coder: Coder, found: Sequence[Tampering], before: Mapping[str, str | None],
                      after: Mapping[str, str | None], edited: Collection[str]) -> list[AddedTests]:
    """The tests this round added to existing test files, written to the files of their own the judge gives them,
    the existing files put back as they were (bot/ensemble/judge/added_tests.py)."""
    workspace = coder.workspace
    taken = {*before, *after}

    def exists(p: str) -> bool:
        return p in taken or (workspace.path / p).exists() or workspace.base_text(p) is not None

    moved = tests_to_move(found, before, after, edited, coder.task.text, exists)
    for added in moved:
        write_changes(workspace.path, {added.path: before[added.path] or "", added.moved_to: added.text})
        log.info("team %s: the tests added to %s are judged in a file of their own, %s", coder.team, added.path,
                 added.moved_to)
    return moved


def _guard(coder: Coder, edits: RoundEdits, frozen: Mapping[str, str], data: Collection[str] = (),
           closure: Closure = NO_CLOSURE) -> RoundEdits:
    """Undo this round's edits to any file where they delete, skip or weaken tests or touch CI config."""
    if not edits.originals:
        return edits
    changed = sorted({*coder.workspace.changed_paths(), *frozen})
    before = {p: frozen[p] if p in frozen else coder.workspace.base_text(p) for p in changed}
    files = WorkspaceFiles(coder.workspace.path)  # one listing of the tree, not one per changed path
    after = {p: files.read(p) for p in changed}
    found = [t for t in find_test_tampering(before, after, coder.task.text, data, base=coder.workspace.base_text,
                                            closure=closure, tree=files) if t.path in edits.originals]
    if moved := _move_added_tests(coder, found, before, after, edits.originals):  # added to an existing file
        edits = replace(edits, originals={**edits.originals, **{m.moved_to: None for m in moved}})
        return _guard(coder, edits, frozen, data, closure)
    if not found:
        return edits
    undone = ({t.path for t in found} | {t.also for t in found if t.kind == "moved_test"}) & set(edits.originals)
    for path in undone:
        original = edits.originals[path]
        if original is None:
            (coder.workspace.path / path).unlink(missing_ok=True)
        else:
            write_changes(coder.workspace.path, {path: original})
    originals = {p: text for p, text in edits.originals.items() if p not in undone}
    tampering = tuple(EditFailure(t.path, "runner" if t.kind in RUNNER_KINDS else "tampering",
                                  t.message.removeprefix(f"{t.path}: ")) for t in found)
    return replace(edits, originals=originals, failures=(*edits.failures, *tampering),
                   applied=edits.applied if originals else 0)
