"""A check the coder never sees: the test the change must fix, again on other inputs, written apart and kept hidden.

A coder shown a failing test can make it pass by answering exactly the inputs that test uses
(`if values == [1, 2, 3, 4]: return 2.5`); with one team, no other team's test stands in the way. So once a
team's change first passes, the coder is asked, in a request of its own that sees the task, the test that shows
the bug (the reproduction test, else a failing test the change fixed) and the code as the base has it, but not
the change, for a new test of the same behaviour on other inputs (the coder's `write_hidden_check` asks; this
module runs what it wrote). It is run alone at the base (where it must fail
by an assertion, not by an error of its own) and on every good candidate after; it is never in the team's
workspace, its prompts or the feedback it reads.

What a candidate gives on it (`Hidden.outcome`):
- `passes`: each of its tests that failed at the base passes (or some do): an independent test backs the change;
- `unchanged`: every such test still fails, with the very assertion lines of the base (the code's answer on the
  hidden inputs did not move), and the code the change wrote holds a value of the test the coder was shown (an
  input or an expected answer: `if values == [1, 2, 3, 4]: return 2.5`): the change answers only what the coder
  was shown. The round is refused as special-cased (the coder is told so, never what the hidden check asks) and
  the team plays on. Failing as at the base with none of those values in the change, it refuses nothing: a
  model-written test whose inputs never reach the bug and whose expected value is wrong fails so before and after
  an honest fix (`assert median([1, 2, 3]) == 3` in a check of the even case); the pull request says so;
- `differs`: they still fail, with other values: the change moved the answer but the hidden check disagrees with
  it. A model-written test can be wrong, so this refuses nothing; the pull request says so;
- `not_run`: the hidden run was cut short or tampered with: no evidence either way.

In every language the check is a test file named as its runner finds tests (`test_x_hidden.py`,
`x_hidden_test.go` in the shown test's package, `x_hidden.test.js`, `Foo_hiddenTest.java`), run without the base's
other test files (but those it uses), its tests named by the file the run saw though it is never in the repository
(sandbox/results.py), its failures read by their assertion lines in the failure summary (sandbox/summary.py:
pytest's `E` lines, Go's `t.Errorf` lines, Node's expected and actual values).

A wrong hidden check cannot refuse an honest change: an honest fix of the behaviour moves the answer on hidden
inputs that reach the bug (`differs` at worst), and one that leaves them as the bug had them is refused only where
it also writes the shown test's own values into the code. A hidden
check that passes at the base, or that errors there, or fails there only by names it never defines, shows nothing
and is set aside with a note (`at_base`).
"""

from __future__ import annotations

import ast
import keyword
import operator
import re
import tokenize
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bot.ensemble.judge.answers import added_line_numbers, answers_of, compares_with_a_literal, is_answer
from bot.ensemble.judge.runs import TeamJudge
from bot.ensemble.ports import TestRunner
from bot.ensemble.types import HiddenResult, TestOutcome
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.forge import Workspace
from bot.redact import clip
from common.testfiles import is_test_path
from common.testids import matching_tests
from sandbox.summary import ENTRY

HiddenOutcome = Literal["passes", "unchanged", "differs", "not_run"]
# a failure entry of sandbox/summary.py: "FAILED <test id>", its assertion lines indented by two, then "  at <frame>"
_NUMBER_AT_END = re.compile(r"\s+\d+(?:\.\d+)?s$")  # a duration some runners print after a failure


@dataclass(frozen=True)
class HiddenCheck:
    """A team's hidden check: its file (`path`, `text`), the test it varies (`source`), and each of its tests that
    failed at the base with that failure's assertion lines (`base`); `note` says why it backs nothing when `base`
    is empty (it passed at the base, errored there, or could not be written)."""

    path: str = ""
    text: str = ""
    source: str = ""
    base: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    note: str = ""

    def result(self) -> HiddenResult:
        """Why the check backs nothing, as a result (for a check that is not `usable`)."""
        return HiddenResult("none", self.note)

    @property
    def usable(self) -> bool:
        """True when the check failed at the base by its assertions: a candidate can be judged by it."""
        return bool(self.base)


@dataclass(frozen=True)
class Hidden:
    """What a candidate gave on the team's hidden check: the outcome (the module's docstring) and in words."""

    check: HiddenCheck
    outcome: HiddenOutcome
    detail: str
    shown: tuple[str, ...] = ()  # the values of the shown test that the code the change wrote holds (`shown_values`)
    reached: tuple[str, ...] = ()  # where its code reached into a running test (TeamJudge.reached)

    @property
    def special_cased(self) -> bool:
        """True when the candidate left the hidden inputs' answers as the bug had them, and can tell the shown
        tests apart: it wrote their values into the code, or its code reached into them as they ran (took a
        test's code from its frame, set a trace function): refused."""
        return self.outcome == "unchanged" and bool(self.shown or self.reached)

    def result(self) -> HiddenResult:
        """The outcome, with the pull request's line: which check, and what it showed."""
        what = (f"a check the coder never saw, `{self.check.path}` ({len(self.check.base)} test(s) of the behaviour "
                f"`{self.check.source}` checks, on other inputs, failing at the base)")
        unchanged = (f"FAILS as at the base, and the change holds the shown test's {', '.join(self.shown[:3])} (the "
                     "change was refused as special-cased)" if self.shown else
                     f"FAILS as at the base, and the change's code reached into the running tests ({self.reached[0]}; "
                     "the change was refused as special-cased)" if self.reached else "FAILS as at the base, but the change "
                     "holds none of the shown test's values, so it was not refused (the check's inputs may not reach "
                     "the bug: review it)")
        words = {"passes": "passes", "unchanged": unchanged,
                 "differs": "still fails, with other values than at the base (the check may be wrong, or the fix "
                            "incomplete: review it)", "not_run": "could not be run on this change"}
        return HiddenResult(self.outcome, f"{what}: {words[self.outcome]} ({self.detail})")


def no_hidden_check(note: str) -> HiddenCheck:
    """No hidden check, and why."""
    return HiddenCheck(note=note)


SPECIAL_CASED = ("The tests you were shown pass, but a check you were not shown, of the same behaviour on other inputs, "
           "fails exactly as it did before your change: the change answers only the inputs of the tests you saw. "
           "Fix the behaviour itself, for every input the task describes, not the values in the tests.")


def hidden_check_at_base(check: HiddenCheck, judge: TeamJudge, runner: TestRunner, workspace: Workspace) -> HiddenCheck:
    """`check` run alone over the base's tree: each of its tests that fails there by an assertion, with the
    failure's lines; or a note on why it backs nothing."""
    return at_base(check, judge.run_alone(runner, workspace, {check.path: check.text}, at_base=True))


def at_base(check: HiddenCheck, tests: TestOutcome) -> HiddenCheck:
    """`check` as its run over the base's tree (`tests`) left it: each of its tests that failed there by an
    assertion, with the failure's lines; or a note on why it backs nothing.

    A test that failed by a name it never defines (a NameError, JavaScript's ReferenceError), or by an exception
    other than an assertion's raised in its own file (a function or keyword of the code it guessed wrong: an
    AttributeError, a TypeError), failed by an error of its own, and fails so whatever the code does: taken as
    backing, it would refuse an honest fix as special-cased (unittest counts such a test an error, set aside too).
    The local 1.5B coder wrote such a check (`assert count([None, 2, 3]) == 3` in a test of a settings loader),
    and the right fix of settings_port_traceback was refused (bench/peers.py)."""
    results = dict(tests.results)
    names = matching_tests(results, [check.path])
    if not names or not tests.complete or tests.tampering:
        why = tests.incomplete_reason or "; ".join(tests.tampering) or "none of its tests ran"
        return HiddenCheck(check.path, check.text, check.source, note=f"the hidden check did not run at the base "
                                                                      f"({clip(why, 200)})")
    lines, frames = failure_lines(tests.summary), innermost_frames(tests.summary)
    failed = {n: lines.get(n, ()) for n in names if results[n] == "fail"}
    failing = {n: found for n, found in failed.items()
               if not (found and (_UNDEFINED.match(found[0]) or _own_error(found[0], frames.get(n, ""), check.path)))}
    if not failing:
        errors = [n for n in names if results[n] == "error"]
        why = (f"its tests failed there by an error of their own code ({clip(next(iter(failed.values()))[0], 120)})"
               if failed else f"{len(errors)} of its tests errored there" if errors else "it passed there")
        return HiddenCheck(check.path, check.text, check.source, note=f"the hidden check shows nothing: {why}")
    return HiddenCheck(check.path, check.text, check.source, base=failing)


def judge_by_hidden_check(check: HiddenCheck, judge: TeamJudge, runner: TestRunner, workspace: Workspace,
                          tests: TestOutcome | None = None) -> Hidden:
    """The candidate in `workspace` on the usable hidden check `check` (the module's docstring); `tests`: its
    judged run, where its code may have reached into the running tests (TeamJudge.reached)."""
    seen = outcome_of(check, judge.run_alone(runner, workspace, {check.path: check.text}))
    if seen.outcome != "unchanged":
        return seen
    shown = judge.frozen.get(check.source) or workspace.base_text(check.source) or ""
    return replace(seen, shown=shown_in_change(shown, check.source, workspace), reached=reached(judge, workspace, tests))


def can_tell_apart(judge: TeamJudge, test: str, source: str, workspace: Workspace, tests: TestOutcome | None) -> bool:
    """Whether the good change in `workspace` (judged as `tests`) can tell the shown `test` (the file `source`) apart:
    it writes the test's values into the code, or its code reached into the running tests. Only such a change can
    be refused by a hidden check, so only for one is a check written (`not_needed`)."""
    return bool(shown_in_change(test, source, workspace) or reached(judge, workspace, tests))


def reached(judge: TeamJudge, workspace: Workspace, tests: TestOutcome | None) -> tuple[str, ...]:
    """Where the good change in `workspace` (judged as `tests`) reached into the running tests (took a test's code,
    set a trace function, started a process, read the tests' data) where the base did not, and compares what it
    has with something: without a comparison or a table, what it read cannot single the shown inputs out (a helper
    that names its caller in a message, a fix that runs `git`), so it tells nothing apart (answers.py)."""
    found = judge.reached(tests) if tests is not None else ()
    return found if found and any(compares_with_a_literal(*file, literal=False) for file in _changed_code(workspace)) \
        else ()


def _changed_code(workspace: Workspace) -> list[tuple[str, str | None, str | None]]:
    """Each file of the code (not the tests) the change in `workspace` changed: its path, its text at the base, now."""
    files = WorkspaceFiles(workspace.path)
    return [(path, workspace.base_text(path), files.read(path)) for path in workspace.changed_paths()
            if not is_test_path(path)]


def shown_in_change(test: str, source: str, workspace: Workspace) -> tuple[str, ...]:
    """The values of the shown `test` (the file `source`; `shown_values`) that the lines the change in `workspace`
    added to the code (not to its tests) hold and that tell the test apart: its inputs, and its answers only where
    the change also compares with a literal (bot/ensemble/judge/answers.py: a fix that writes the answer the task
    asks for is no special case). Where there are none, the hidden check cannot refuse the change: `unchanged`
    refuses only with such a value, so a change without one needs no check written for it (`not_needed`)."""
    changed = _changed_code(workspace)
    shown = shown_values(test, [line for _, before, after in changed for line in added_lines(before, after)])
    answers = answers_of(test, source)
    if not shown or not any(answers) or any(compares_with_a_literal(*file) for file in changed):
        return shown
    return tuple(value for value in shown if not is_answer(value, answers, _number(value)))


def not_needed(source: str) -> HiddenResult:
    """Why no hidden check was written for a good change that holds none of the shown test `source`'s values."""
    return HiddenResult("none", f"no hidden check was asked for: the change writes none of the values of {source} "
                                "into the code (none of its inputs, no answer behind a comparison with a literal) "
                                "and its code reached into no running test to compare what it found there, and only "
                                "a change that does one or the other can be refused as special-cased (a check is "
                                "written once a good change does)")


def added_lines(before: str | None, after: str | None) -> list[str]:
    """The lines `after` has that `before` does not (as many times as it has more of them)."""
    lines = (after or "").splitlines()
    return [lines[number - 1] for number in sorted(added_line_numbers(before, after or ""))]


def shown_values(test: str, added: Sequence[str]) -> tuple[str, ...]:
    """The values the shown `test` writes (its numbers but 0, 1 and 2, its strings of two characters or more but
    blanks) that the lines a change `added` to the code hold, compared by value: a number however it is spelled
    (`0x5`, `5.0`, `2.50`, `1_000`) or worked out from literals alone (`10 // 2`, `(2 + 3)`), a string as its text
    (escaped or split in two). A value computed any other way (`len('abcde')`) is not found."""
    code = "\n".join(added)
    numbers, strings = _literals(added)
    found = []
    for spelled in dict.fromkeys(_NUMBER.findall(test)):
        value = _number(spelled)
        if value is not None and abs(value) not in _TRIVIAL and value in numbers:
            found.append(spelled)
    for quote in _STRING.finditer(test):
        text = quote.group("text")
        if len(text.strip()) >= 2 and (text in code or any(text in s for s in strings)):
            found.append(repr(text))
    return tuple(dict.fromkeys(found))


_TRIVIAL = frozenset({0, 1, 2})  # numbers any code is full of
_NUMBER = re.compile(r"(?<![\w.])-?(?:0[xXoObB][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)(?![\w.])")
_STRING = re.compile(r"(?P<q>[\"'`])(?P<text>[^\"'`\n\\]{2,200})(?P=q)")
_ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%", "**", "(", ")"})
_OPERATORS: dict[type[ast.AST], Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.USub: operator.neg,
    ast.UAdd: operator.pos}


def _number(text: str) -> int | float | None:
    """A number literal's value (`0x5` -> 5, `2.50` -> 2.5, `-3` -> -3), or None."""
    try:
        value = ast.literal_eval(text.replace(" ", ""))
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _literals(lines: Sequence[str]) -> tuple[set[int | float], list[str]]:
    """Every number the `lines` write (each literal, and each run of literals and arithmetic worked out) and every
    string's text (adjacent strings joined), read with Python's tokenizer line by line; a line it cannot read
    gives what it read before."""
    numbers: set[int | float] = set()
    strings: list[str] = []
    for line in lines:
        run: list[str] = []
        joined: list[str] = []
        operand = False  # whether the token before ends an operand (`x`, `3`, `)`): a `-` after it subtracts
        for kind, text in _tokens(line.strip()):
            if kind == tokenize.NUMBER or (kind == tokenize.OP and text in _ARITHMETIC):
                if kind == tokenize.NUMBER and (value := _number(text)) is not None:
                    numbers.add(value)
                # a run starts at a number, a bracket or a sign; never at an operator between operands
                if run or kind == tokenize.NUMBER or text == "(" or (text in "+-" and not operand):
                    run.append(text)
            else:
                numbers |= _worked_out(run)
                run = []
            if kind == tokenize.STRING:
                joined.append(text)
            elif joined and kind not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                strings += _string(joined)
                joined = []
            operand = kind in (tokenize.NUMBER, tokenize.STRING) or text in (")", "]", "}") or (
                kind == tokenize.NAME and not keyword.iskeyword(text))
        numbers |= _worked_out(run)
        strings += _string(joined)
    return numbers, strings


def _tokens(line: str) -> list[tuple[int, str]]:
    """The tokens of one line of code (of any language: Python's tokenizer reads numbers and quotes alike)."""
    found: list[tuple[int, str]] = []
    try:
        for token in tokenize.generate_tokens(iter([line + "\n"]).__next__):
            found.append((token.type, token.string))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def _string(parts: Sequence[str]) -> list[str]:
    """The text of adjacent string literals, joined; none where they are not plain literals (f-strings)."""
    try:
        value = ast.literal_eval(" ".join(parts)) if parts else None
    except (ValueError, SyntaxError):
        return []
    return [value] if isinstance(value, str) else []


def _worked_out(run: Sequence[str]) -> set[int | float]:
    """The value of a run of number literals and arithmetic (`10 // 2`, `-(3)`), with its unmatched brackets at
    either end left off; none where it is not an expression or too large to work out."""
    text = " ".join(run).strip()
    while text.count("(") > text.count(")") and text.startswith("("):
        text = text[1:].strip()
    while text.count(")") > text.count("(") and text.endswith(")"):
        text = text[:-1].strip()
    if not text or not any(c.isdigit() for c in text):
        return set()
    try:
        value = _evaluate(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, ArithmeticError):
        return set()
    return {value} if value is not None else set()


def _evaluate(node: ast.AST) -> int | float | None:
    """A number expression's value: literals, + - * / // % and small powers only."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        inner = _evaluate(node.operand)
        return None if inner is None else _OPERATORS[type(node.op)](inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Pow) and abs(right) > 64):
            return None
        value = _OPERATORS[type(node.op)](left, right)
        return value if isinstance(value, int | float) and abs(value) < 1e18 else None
    return None


def outcome_of(check: HiddenCheck, tests: TestOutcome) -> Hidden:
    """What the hidden check's run on a candidate (`tests`) shows against its failures at the base."""
    if tests.tampering:
        return Hidden(check, "not_run", "its run was tampered with: " + clip("; ".join(tests.tampering), 200))
    results = dict(tests.results)
    lines = failure_lines(tests.summary)
    fixed = [n for n in check.base if results.get(n) == "pass"]
    if fixed:
        return Hidden(check, "passes", f"{len(fixed)} of its {len(check.base)} test(s) failing at the base pass")
    if not tests.complete or any(n not in results for n in check.base):
        return Hidden(check, "not_run", clip(tests.incomplete_reason or "its tests did not all run", 200))
    same = [n for n in check.base if results[n] == "fail" and _same(lines.get(n, ()), check.base[n])]
    if len(same) == len(check.base):
        return Hidden(check, "unchanged", f"its {len(same)} test(s) fail with the base's assertion lines")
    return Hidden(check, "differs", f"{len(check.base) - len(same)} of its {len(check.base)} test(s) fail "
                                    "with other values than at the base")


_UNDEFINED = re.compile(r"(?:NameError|ReferenceError)\b")  # a failure by a name the test never defines
_EXCEPTION = re.compile(r"([A-Za-z_][\w.]*(?:Error|Exception))\b")  # a Python failure's exception, first on its line


def _own_error(line: str, frame: str, path: str) -> bool:
    """Whether a failure (its first line, its innermost frame in the repository) is an exception other than an
    assertion's, raised in the test's own file `path`: an error of the test's code, not the answer of the code."""
    found = _EXCEPTION.match(line)
    return found is not None and found.group(1).rsplit(".", 1)[-1] != "AssertionError" \
        and frame.startswith(f"{path}:")


def innermost_frames(summary: str) -> dict[str, str]:
    """Each failing test's innermost frame in the repository in a failure summary (sandbox/summary.py: the last of
    its `at <frame>` lines), where it names one."""
    found: dict[str, str] = {}
    current = ""
    for line in summary.splitlines():
        entry = ENTRY.match(line)
        if entry:
            current = entry.group(1).strip()
        elif current and line.startswith("  at "):
            found[current] = line[len("  at "):].strip()
        elif not line.startswith("  "):
            current = ""
    return found


def _same(now: Sequence[str], before: Sequence[str]) -> bool:
    """Whether two failures read the same: their assertion lines, both known, equal."""
    return bool(before) and tuple(now) == tuple(before)


def failure_lines(summary: str) -> dict[str, tuple[str, ...]]:
    """Each failing test's assertion lines in a failure summary (sandbox/summary.py): the lines under its
    `FAILED <id>` entry, without the frames (`at path:line`, which move as the code under test is edited)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in summary.splitlines():
        entry = ENTRY.match(line)
        if entry:
            current = found.setdefault(entry.group(1).strip(), [])
        elif current is not None and line.startswith("  ") and not line.startswith("  at "):
            current.append(_NUMBER_AT_END.sub("", line.strip()))
        elif not line.startswith("  "):
            current = None
    return {name: tuple(lines) for name, lines in found.items()}
