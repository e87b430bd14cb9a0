"""The plain data of an ensemble run: the task, what the planner read, the plan, each round, each team, the result."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Literal

from bot.forge import Commit
from bot.llm.budget import SpendSummary, no_spend
from bot.llm.types import Message
from bot.redact import clip
from common.tokens import estimate_tokens
from sandbox.model import FAILING


class StopReason(StrEnum):
    """Why a team's loop ended, and so the run (the winner's reason); `words` says it in plain words."""

    ACCEPTED = "accepted"
    TESTS_PASS = "tests_pass"
    MAX_ITERATIONS = "max_iterations"
    BUDGET = "budget"
    STUCK = "stuck"
    STOPPED = "stopped"
    QUESTIONS = "questions"
    CRASHED = "crashed"

    @property
    def words(self) -> str:
        """The reason in plain words, for summaries and PR bodies."""
        return STOP_WORDS[self]


ACCEPTED, TESTS_PASS, MAX_ITERATIONS, BUDGET, STUCK, STOPPED, QUESTIONS, CRASHED = (
    StopReason.ACCEPTED, StopReason.TESTS_PASS, StopReason.MAX_ITERATIONS, StopReason.BUDGET, StopReason.STUCK, StopReason.STOPPED,
    StopReason.QUESTIONS, StopReason.CRASHED)
STOP_WORDS: dict[str, str] = {
    ACCEPTED: "the tests pass and the critic accepted the change",
    TESTS_PASS: "the tests pass; the critic asked for more, and the one round more it was given brought no "
                "accepted change (or its feedback named nothing to change, or it reviews no change in this run), so "
                "the passing change is kept",
    MAX_ITERATIONS: "the refinement rounds ran out (max_iterations) before the tests passed and the critic accepted",
    BUDGET: "the model budget ran out (budget_usd / budget_tokens)",
    STUCK: "the coder was stuck (the same failure, or replies that changed nothing) in every approach tried",
    STOPPED: "a stop was requested",
    QUESTIONS: "the task is too ambiguous: the planner asked questions",
    CRASHED: "the team failed with an unexpected error",
}


class Phase(StrEnum):
    """The steps of a run as progress reports name them (actions/render.py maps them to the checklist)."""

    INDEXING = "indexing"
    BASELINE = "baseline tests"
    EXPLORING = "exploring"
    PLANNING = "planning"
    REPRODUCING = "reproducing"
    CODING = "coding"
    TESTING = "testing"
    REVIEWING = "reviewing"
    REPLANNING = "re-planning"


RoundKind = Literal["reproduce", "fix"]
Progress = Callable[[str, Phase, int, str], None]  # how a run reports progress: team, phase, round, detail


@dataclass(frozen=True)
class Task:
    """What to do: a title and the full text (an issue's title and body, or --task text)."""

    title: str
    body: str = ""
    slug: str = ""
    plan: Plan | None = None  # a plan a maintainer approved: the teams code from it instead of planning anew

    @property
    def text(self) -> str:
        """Title and body as one text."""
        return f"{self.title}\n\n{self.body}".strip()


@dataclass(frozen=True)
class Plan:
    """The planner's reply (`plan` schema) plus the reproduction test it names, if any."""

    summary: str
    files: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    reproduction_test: str | None = None
    no_test_reason: str = ""
    # What the models charged to make the plan, when it was made on its own (`require_plan_approval`); None: unknown
    cost_usd: float | None = field(default=None, compare=False)


@dataclass(frozen=True)
class TestOutcome:
    """A test run as the loop sees it: passed or not, which tests failed, the compact summary.

    `passed` is the test command's own status (exit 0 within its limits); `results` holds each
    test's outcome ('pass', 'fail', 'error', 'skip') where the runner reports them, which is
    what judging against the base needs (bot/ensemble/judge/verdict.py).
    """

    __test__ = False  # not a pytest class

    passed: bool
    failing: tuple[str, ...] = ()
    summary: str = ""
    exit_code: int | None = None
    total: int | None = None
    duration_s: float = 0.0
    results: tuple[tuple[str, str], ...] = ()
    timed_out: bool = False
    complete: bool = True  # False when a limit killed the run and the tests after the kill never ran
    incomplete_reason: str = ""
    findings: tuple[str, ...] = ()  # "kind: detail": where the results disagree with the runner (sandbox.Finding)
    reads: tuple[str, ...] = ()  # repository files the tests opened (asked for at the base run)
    listed: tuple[str, ...] | None = None  # the tests the runner listed up front; None: not asked, or cannot list
    tampering: tuple[str, ...] = ()  # the judge's evidence that the run was tampered with (bot/ensemble/judge/sentinels.py)
    opened: tuple[tuple[str, str], ...] = ()  # each file opened with the file whose code opened it (the same run)
    hung: tuple[str, ...] = ()  # the tests running when the time limit killed the runner (each then resumed without)

    @property
    def signature(self) -> str:
        """What identifies this failure: the failing tests, or the summary's first line."""
        if self.passed:
            return ""
        return ",".join(sorted(self.failing)) or clip((self.summary.strip().splitlines() or ["failed"])[0], 200)


@dataclass(frozen=True)
class Judgement:
    """The verdict on one test run against the base run, with the tests that decided it."""

    good: bool
    reason: str
    fixed: tuple[str, ...] = ()  # failed at the base, pass now (red -> green)
    still_failing: tuple[str, ...] = ()  # failed at the base and still fail: not the change's to fix
    broken: tuple[str, ...] = ()  # passed at the base, and now fail, are skipped or were not reported
    new_failing: tuple[str, ...] = ()  # tests the base did not have that fail now
    required_failing: tuple[str, ...] = ()  # tests the task requires that do not pass (or did not run)
    per_test: bool = False  # True when judged test by test, False when only the exit status was known
    unknown: tuple[str, ...] = ()  # base tests a killed run never reached
    vanished: tuple[str, ...] = ()  # the broken tests that were not reported at all after the change
    tampered: tuple[str, ...] = ()  # evidence that the run was tampered with: the change is refused as a cheat
    # the hidden check's tests (bot/ensemble/judge/hidden.py) that the change left failing as at the base: refused as
    # special-cased to the inputs of the tests the coder was shown
    special_cased: tuple[str, ...] = ()
    # made from the fields above: the failing tests the change is answerable for (what the coder is told about)
    blamed: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "blamed", tuple(dict.fromkeys((*self.required_failing, *self.broken,
                                                                 *self.new_failing))))

    @property
    def improves(self) -> bool:
        """Better than the base without being good: a failing test turned green, nothing broken, no new test
        failing, and a complete run (partial work worth delivering when a run stops on a limit)."""
        return self.per_test and bool(self.fixed) and not (self.broken or self.new_failing or self.unknown or self.tampered
                                                           or self.special_cased)


def passes(judgement: Judgement | None, tests: TestOutcome | None) -> bool:
    """Whether a change passes: by its judgement against the base, else by the test command's status."""
    if judgement is not None:
        return judgement.good
    return bool(tests and tests.passed)


@dataclass(frozen=True)
class Retrieved:
    """Provenance of a piece of context: a file or chunk, and how it was found."""

    path: str
    how: str  # search | open | symbol | plan
    score: float = 0.0
    start_line: int | None = None
    end_line: int | None = None
    query: str = ""


@dataclass
class Exploration:
    """What the planner has read: the repo map, context text and where each piece came from."""

    repo_map: str = ""
    context: list[str] = field(default_factory=list)
    retrieved: list[Retrieved] = field(default_factory=list)

    def add(self, item: Retrieved, text: str) -> None:
        """Add a piece of context unless the same place is already there."""
        key = (item.path, item.start_line, item.end_line)
        if any((r.path, r.start_line, r.end_line) == key for r in self.retrieved):
            return
        self.retrieved.append(item)
        lines = f":{item.start_line}-{item.end_line}" if item.start_line else ""
        self.context.append(f"# {item.path}{lines} ({item.how})\n{text.rstrip()}")

    @property
    def text(self) -> str:
        """All context pieces as one text."""
        return "\n\n".join(self.context)

    def text_outside(self, paths: Collection[str]) -> str:
        """The context pieces that are not from `paths` (files the coder is shown anyway), as one text."""
        return "\n\n".join(piece for piece in self.context if _piece_path(piece) not in paths)

    @property
    def tokens(self) -> int:
        """Estimated tokens of the context gathered so far."""
        return estimate_tokens(self.text)


def _piece_path(piece: str) -> str:
    """The path a context piece came from, read from its header `# path:START-END (how)`."""
    where = piece.split("\n", 1)[0].removeprefix("# ").split(" ", 1)[0]
    path, _, lines = where.rpartition(":")
    return path if path and re.fullmatch(r"\d+-\d+", lines) else where


@dataclass(frozen=True)
class Reproduction:
    """The reproduction test of a bug: does it fail before the fix and pass after it."""

    path: str | None
    failed_before: bool | None = None
    passed_after: bool | None = None
    note: str = ""
    refused: tuple[Refusal, ...] = ()  # what was refused while the test was written


@dataclass(frozen=True)
class TestChange:
    """A change to an existing test or harness file that the task asked for by name, with its diff."""

    __test__ = False  # not a pytest class

    path: str
    diff: str


@dataclass(frozen=True)
class RunnerHook:
    """A line of a change that reaches into the test runner (bot/ensemble/judge/screen.py), kept because the task asked for
    it: shown to the critic and in the PR."""

    path: str
    line: int
    what: str  # what it does, in words: "patches unittest.TestCase.assertEqual"
    code: str  # the line itself


@dataclass(frozen=True)
class Review:
    """The critic's answer on a change the judge found good (the `review` schema): accept or revise, and why.

    `verdict` is None when no critic model answered in shape. `pointed` says whether a revision's feedback
    points at code the change wrote (bot/ensemble/critic.py decides it): only such a revision buys the team
    another round.
    """

    verdict: Literal["accept", "revise"] | None
    feedback: str = ""
    pointed: bool = False
    accepted: bool = field(init=False)  # the critic accepted the change

    def __post_init__(self) -> None:
        object.__setattr__(self, "accepted", self.verdict == "accept")


RefusalKind = Literal["policy", "tests", "runner", "commit", "cheat", "special-cased"]


@dataclass(frozen=True)
class Refusal:
    """Something the bot refused and undid, written where it was decided: an edit to a denied path or with a secret
    (`policy`), an edit to the tests or their closure (`tests`), to what runs them (`runner`), a change the commit
    policy refused (`commit`), a change whose test run was tampered with (`cheat`), one special-cased to the tests the
    coder saw (`special-cased`, bot/ensemble/judge/hidden.py). `path` is the file it was about ("" for a whole change)."""

    kind: RefusalKind
    path: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}: {self.why}" if self.path else self.why


@dataclass(frozen=True)
class HiddenResult:
    """What a team's hidden check (bot/ensemble/judge/hidden.py) showed of a change, or why there was none (`none`)."""

    outcome: Literal["passes", "unchanged", "differs", "not_run", "none"]
    line: str  # in words, for the summary and the pull request

    @property
    def backs(self) -> bool:
        """True when the hidden check passes on the change: an independently written test backs it."""
        return self.outcome == "passes"


@dataclass(frozen=True)
class Transcript:
    """A round's conversation with the coder as it ended, which the next round may go on with: the messages of its
    last request and the coder's last reply, the plan it was about, the edit format its system prompt set, and
    each file's text as the conversation last showed it (None: no such file)."""

    messages: tuple[Message, ...]
    plan: Plan
    opened_in: str
    known: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True)
class Round:
    """One refinement round of one team, as it ended: made once, never changed (a new value replaces it)."""

    number: int
    kind: RoundKind = "fix"
    edit_format: str = "blocks"  # how the coder wrote this round's change (bot/ensemble/coder/formats.py)
    approach: str = "refine"  # how the round went about it: refining the last change, or a new attempt (policy.py)
    applied: bool = False
    edit_errors: str = ""
    compile_error: str = ""
    tests: TestOutcome | None = None
    judgement: Judgement | None = None  # the tests judged against the base
    review: Review | None = None  # None: no review (the change was not judged good, or the run stopped first)
    commit: str | None = None
    refused: tuple[Refusal, ...] = ()  # what the round's change or edits had refused, where it was decided
    partial: str = ""  # blocks that did not apply in a round where others did
    replies: tuple[str, ...] = ()  # the coder's replies (edit_parsing.reply_key): a repeat is asked anew
    idle: bool = False  # the coder's reply changed nothing and nothing in it failed: no edit, or its files sent back
    seconds: float = 0.0  # how long the round took, its review included
    follow_up_s: float = 0.0  # of which the coder's replies after its first (a follow-up the deadline may refuse)
    reply_s: float = 0.0  # of which the coder's first reply
    short: bool = False  # a short round: its replies were cut to the time the deadline left (no measure of a round)
    hidden: HiddenResult | None = None  # what the hidden check showed of a change the judge found good (hidden.py)
    # the lines of its tested change that reach into the test runner, let through because the task asked for them
    # (bot/ensemble/judge/screen.py): what the critic is shown beside the diff
    runner_hooks: tuple[RunnerHook, ...] = ()
    # the conversation the round's coder calls ended with, for the next round to go on with
    transcript: Transcript | None = field(default=None, compare=False, repr=False)

    # made from the fields above when the round is (a new round replaces it, so they never go stale):
    good: bool = field(init=False)  # the change passes: judged against the base where possible
    accepted: bool = field(init=False)  # the change passes and the critic accepted it
    signature: str = field(init=False)  # the failure that detects a stuck loop (failures not blamed on it left out)

    def __post_init__(self) -> None:
        good = passes(self.judgement, self.tests)
        object.__setattr__(self, "good", good)
        object.__setattr__(self, "accepted", good and self.review is not None and self.review.accepted)
        object.__setattr__(self, "signature", self._signature())

    def _signature(self) -> str:
        if not self.applied:
            return "edits:" + clip(self.edit_errors, 120)
        if self.compile_error:
            return "compile:" + clip(self.compile_error.splitlines()[0], 120)
        if self.judgement is not None:
            return "" if self.judgement.good else ",".join(self.judgement.blamed) or clip(self.judgement.reason, 200)
        return self.tests.signature if self.tests else ""


@dataclass(frozen=True)
class CrossCheck:
    """Another team's reproduction test, frozen as it wrote it, run on this team's change (an independent test)."""

    team: str
    path: str
    passed: bool
    detail: str = ""


@dataclass
class TeamResult:
    """How one team's loop ended."""

    name: str
    stop_reason: StopReason | None = None  # None only while the loop runs
    stop_detail: str = ""
    plan: Plan | None = None
    rounds: list[Round] = field(default_factory=list)
    reproduction: Reproduction | None = None
    tests_after: TestOutcome | None = None
    accepted: bool = False
    diff: str = ""
    models: str = ""
    retrieved: list[Retrieved] = field(default_factory=list)
    error: str = ""
    kept: str = ""  # set when the team's last state failed and an earlier passing round was kept instead
    judgement: Judgement | None = None  # the final tests judged against the base
    test_changes: list[TestChange] = field(default_factory=list)  # test edits the task asked for, shown in the PR
    frozen: dict[str, str] = field(default_factory=dict)  # its reproduction test as round 0 wrote it (path -> text)
    # the other teams' reproduction tests run on this team's final change: (team, path, passed, what happened)
    cross: list[CrossCheck] = field(default_factory=list)
    hidden: HiddenResult | None = None  # what the team's hidden check showed of its kept change, or why there was none
    runner_hooks: list[RunnerHook] = field(default_factory=list)  # lines reaching into the runner the task allowed

    @property
    def refused(self) -> list[Refusal]:
        """Everything refused in this team's rounds (the reproduction round's first), once each."""
        early = self.reproduction.refused if self.reproduction else ()
        return list(dict.fromkeys([*early, *(r for rnd in self.rounds for r in rnd.refused)]))

    @property
    def passed(self) -> bool:
        """True when the team's final change passes (judged against the base where possible)."""
        return passes(self.judgement, self.tests_after)

    @property
    def diff_size(self) -> int:
        """Changed lines in the team's diff."""
        return sum(1 for line in self.diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))


@dataclass(frozen=True)
class TeamSummary:
    """One team's outcome as the run's result reports it: its rank among the teams and what it did."""

    name: str
    rank: int = 0  # 1 for the winner; 0: not ranked
    outcome: str = ""  # in words (select.describe)
    stop_reason: StopReason | None = None
    rounds: int = 0
    passed: bool = False
    accepted: bool = False
    diff_lines: int = 0
    error: str = ""
    kept: str = ""
    refused: tuple[str, ...] = ()
    models: str = ""  # planner/coder/critic model names
    judgement: Judgement | None = None  # its change's tests against the base: what the ranking compared
    cross: tuple[CrossCheck, ...] = ()  # the other teams' reproduction tests run on its change


@dataclass
class RunResult:
    """Everything a caller (the CLI, the GitHub handler) needs to report a run."""

    run_id: str
    task: Task
    branch: str = ""
    commits: list[Commit] = field(default_factory=list)
    plan: Plan | None = None
    stop_reason: StopReason | None = None  # None only while the run runs
    stop_detail: str = ""
    tests_before: TestOutcome | None = None
    tests_after: TestOutcome | None = None
    reproduction: Reproduction | None = None
    retrieved: list[Retrieved] = field(default_factory=list)
    usage: SpendSummary = field(default_factory=no_spend)
    questions: tuple[str, ...] = ()
    winner: str = ""
    teams: list[TeamSummary] = field(default_factory=list)
    decision: str = ""
    diff: str = ""
    duration_s: float = 0.0
    replayed: bool = False
    notes: list[str] = field(default_factory=list)
    environment: str = ""  # where the tests ran: language, sandbox backend, image and how it was found
    sentinels: str = ""  # where the judge's known-answer checks ran, or why they could not
    unchecked: str = ""  # the tests the judge's Python-only checks do not reach (closure.unchecked)
    refused: list[str] = field(default_factory=list)  # edits refused by policy, every team
    trace: str = ""  # the run's trace.jsonl (`ensemble report` reads it)
    judgement: Judgement | None = None  # the winner's tests against the base: fixed, still failing, broken
    test_changes: list[TestChange] = field(default_factory=list)  # the winner's test edits the task asked for
    # which independently written tests back the winner's change: its team's reproduction test and the other
    # teams' (each run on it), or that only one backs it
    corroboration: list[str] = field(default_factory=list)
    runner_hooks: list[RunnerHook] = field(default_factory=list)  # the winner's lines reaching into the test runner

    @property
    def passed(self) -> bool:
        """True when the winning change passes, judged against the base where possible."""
        return passes(self.judgement, self.tests_after)

    @property
    def pre_existing_failures(self) -> tuple[str, ...]:
        """Tests that already failed before any change."""
        before = self.tests_before
        return tuple(n for n, o in before.results if o in FAILING) if before else ()

    @property
    def success(self) -> bool:
        """True only when a passing change was produced and landed on the branch."""
        return bool(self.commits) and self.passed

    @property
    def partial(self) -> bool:
        """True when the branch holds partial work: a run stopped by a limit kept a change that does not pass
        but fixed tests without breaking any (the runner lands nothing else that does not pass)."""
        return bool(self.commits) and not self.passed

    @property
    def stop_words(self) -> str:
        """The stop reason in plain words."""
        return STOP_WORDS.get(self.stop_reason, self.stop_reason) if self.stop_reason else ""

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (what `ensemble run --json` prints): the fields under their names, nested values as dicts."""
        data = asdict(self)
        data.update(success=self.success, partial=self.partial, stop_words=self.stop_words,
                     pre_existing_failures=list(self.pre_existing_failures))
        return data
