"""Is a candidate good? Judged against the base, test by test (DESIGN.md, "When is a change good").

A candidate is good when the tests the task requires (the reproduction test, tests the task
names) pass, no test that passed at the base fails, and no new test fails. Tests that already
failed at the base are reported and never block; but when the base had failing tests and the
task requires none, the change must turn at least one of them green (a change that fixes nothing
is not good just because nothing new broke). Without per-test results on both sides only the
exit status can judge: the whole suite must pass.

    judgement = judge(tests_before, tests_after, required=("tests/test_repro.py",))
    judgement.good, judgement.fixed, judgement.broken, judgement.still_failing
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.ensemble.types import TestOutcome

FAILED = ("fail", "error")


@dataclass(frozen=True)
class Judgement:
    """The verdict on one test run against the base run, with the tests that decided it."""

    good: bool
    reason: str
    fixed: tuple[str, ...] = ()  # failed at the base, pass now (red -> green)
    still_failing: tuple[str, ...] = ()  # failed at the base and still fail: not the change's to fix
    broken: tuple[str, ...] = ()  # passed at the base, fail now
    new_failing: tuple[str, ...] = ()  # tests the base did not have that fail now
    required_failing: tuple[str, ...] = ()  # tests the task requires that do not pass
    per_test: bool = False  # True when judged test by test, False when only the exit status was known

    @property
    def blamed(self) -> tuple[str, ...]:
        """The failing tests the change is answerable for (what the coder is told about)."""
        return tuple(dict.fromkeys((*self.required_failing, *self.broken, *self.new_failing)))


def judge(before: TestOutcome | None, after: TestOutcome, required: Sequence[str] = ()) -> Judgement:
    """Judge `after` against `before`; `required` holds test names or test-file paths that must pass."""
    now = dict(after.results)
    base = dict(before.results) if before is not None else {}
    needed = matching_tests(now, required)
    if not now or (before is not None and not before.passed and not base):
        return _by_exit_status(after, needed)
    if after.timed_out:
        return Judgement(False, "the tests timed out", per_test=True)
    failing_now = {name for name, outcome in now.items() if outcome in FAILED}
    failed_base = {name for name, outcome in base.items() if outcome in FAILED}
    broken = sorted(n for n in failing_now if base.get(n) == "pass")
    new_failing = sorted(n for n in failing_now if n not in base and n not in needed)
    required_failing = sorted(n for n in needed if now.get(n) != "pass")
    fixed = tuple(sorted(n for n in failed_base if now.get(n) == "pass"))
    fixes_nothing = bool(failed_base) and not needed and not fixed
    judgement = Judgement(
        good=not (broken or new_failing or required_failing or fixes_nothing),
        reason="",
        fixed=fixed,
        still_failing=tuple(sorted(failed_base & failing_now)),
        broken=tuple(broken), new_failing=tuple(new_failing), required_failing=tuple(required_failing),
        per_test=True)
    return _with_reason(judgement)


def matching_tests(now: Iterable[str], required: Sequence[str]) -> list[str]:
    """The test names in `now` that `required` names: exactly, or as the test file they live in."""
    names: list[str] = []
    for want in filter(None, required):
        stem = want.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        names += [n for n in now if n == want or n.startswith(want + "::") or _in_file(n, want, stem)]
    return list(dict.fromkeys(names))


def _in_file(name: str, path: str, stem: str) -> bool:
    """True when test `name` ('tests/test_x.py::test_y', 'tests.test_x::test_y') lives in `path`."""
    where = name.split("::", 1)[0]
    dotted = path.rsplit(".", 1)[0].replace("/", ".")
    return where in (path, dotted) or where.endswith(("/" + path, "." + dotted)) or where.rsplit(".", 1)[-1] == stem


def _by_exit_status(after: TestOutcome, needed: list[str]) -> Judgement:
    if after.passed:
        return Judgement(True, "the test command succeeded")
    why = "the tests timed out" if after.timed_out else "the test command failed"
    return Judgement(False, f"{why} (no per-test results to compare with the base)", required_failing=tuple(needed))


def _with_reason(j: Judgement) -> Judgement:
    from dataclasses import replace

    if j.good:
        parts = [f"{len(j.fixed)} test(s) fixed"] if j.fixed else ["no test broke"]
        if j.still_failing:
            parts.append(f"{len(j.still_failing)} failed before the change too and still fail (not blocking)")
        return replace(j, reason="; ".join(parts))
    parts = []
    if not (j.required_failing or j.broken or j.new_failing):
        parts.append("no test that failed before the change passes now: the change fixes nothing the tests check")
    if j.required_failing:
        parts.append(f"required test(s) fail: {', '.join(j.required_failing[:5])}")
    if j.broken:
        parts.append(f"the change broke {len(j.broken)} test(s) that passed before: {', '.join(j.broken[:5])}")
    if j.new_failing:
        parts.append(f"new test(s) fail: {', '.join(j.new_failing[:5])}")
    return replace(j, reason="; ".join(parts))


def related_failures(failed: Iterable[str], changed: Sequence[str], read: Callable[[str], str | None],
                     is_test: Callable[[str], bool], diff: str = "") -> list[str]:
    """The tests of `failed` whose test file uses the code the change edits: the change's business.

    A test that already failed at the base is not blocking, unless it exercises the code the change
    touched: then it is likely the bug's own test, and a change that leaves it red has not fixed it.
    A test file uses the code when it names an edited source module or a function or class whose
    definition the diff touches (from its hunk headers and changed definition lines).
    """
    names = {_stem(path) for path in changed if not is_test(path)} | changed_definitions(diff)
    names -= {"", "__init__", "index", "main", "lib", "mod", "test", "tests"}
    if not names:
        return []
    words = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, names))) + r")\b")
    texts: dict[str, str | None] = {}
    related = []
    for name in failed:
        path = file_of_test(name)
        if path not in texts:
            texts[path] = read(path)
        if texts[path] and words.search(texts[path] or ""):
            related.append(name)
    return related


_DEFINITION = re.compile(r"\b(?:def|class|func|function|fn|struct|interface)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)")


def changed_definitions(diff: str) -> set[str]:
    """Names of functions and classes a unified diff touches, outside test files."""
    names: set[str] = set()
    test_file = False
    for line in diff.splitlines():
        if line.startswith("+++ "):
            test_file = "test" in line.rsplit("/", 1)[-1].lower()
        elif test_file:
            continue
        elif line.startswith("@@"):
            names.update(_DEFINITION.findall(line.split("@@", 2)[-1]))
        elif line[:1] in "+-" and not line.startswith(("+++", "---")):
            names.update(_DEFINITION.findall(line))
    return names


def file_of_test(name: str) -> str:
    """The file a test id names: 'tests/test_x.py::T::t' -> tests/test_x.py, 'tests.test_x::T::t' -> tests/test_x.py."""
    where = name.split("::", 1)[0]
    if "/" in where or where.endswith((".py", ".js", ".ts", ".go", ".rs", ".java")):
        return where
    return where.replace(".", "/") + ".py"


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]
