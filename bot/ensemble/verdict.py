"""Is a candidate good? Judged against the base, test by test (DESIGN.md, "When is a change good").

A candidate is good when the tests the task requires (the reproduction test, tests the task
names) pass, no test that passed at the base fails, is skipped or disappears, and no new test fails.
Tests that already failed at the base are reported and never block; but when the base had failing
tests and the task requires none, the change must turn at least one of them green (a change that
fixes nothing is not good just because nothing new broke). A file whose tests could not be
collected at the base (an import error) is fixed when its tests run and pass after the change.

Only a complete run is evidence: when the base reported per-test results, a run after the change
without them is not a pass, and a run whose tests cannot all be accounted for (killed and not
resumed, results that disagree with the runner's exit status or tally) is never good; tests it
never reached are named as unknown. A run the judge found tampered with (judging.py, sentinels.py)
is no evidence at all, and the change is refused as a cheat. Without per-test results on either
side only the exit status can judge.

    judgement = judge(tests_before, tests_after, required=("tests/test_repro.py",))
    judgement.good, judgement.fixed, judgement.broken, judgement.still_failing
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from bot.ensemble.types import Judgement, TestOutcome
from common.languages import is_code
from common.testfiles import is_test_path
from sandbox.model import COLLECTION

FAILED = ("fail", "error")


def judge(before: TestOutcome | None, after: TestOutcome, required: Sequence[str] = ()) -> Judgement:
    """Judge `after` against `before`; `required` holds test names or test-file paths that must pass."""
    now = dict(after.results)
    base = dict(before.results) if before is not None else {}
    if after.tampering:
        return Judgement(False, "the test run was tampered with, so its results are no evidence: "
                         + "; ".join(after.tampering), per_test=bool(now), tampered=after.tampering,
                         required_failing=tuple(matching_tests(now or base, required)))
    if not now and not base:
        return _by_exit_status(after, matching_tests(now, required))
    if not now:
        return Judgement(False, f"the run after the change reported no per-test results (the base run reported "
                         f"{len(base)}): the tests did not run, or the runner was changed", per_test=True,
                         required_failing=tuple(matching_tests(base, required)))
    needed = [n for n in matching_tests([*now, *(n for n in base if n not in now)], required)
              if not _collected_elsewhere(n, now)]
    failing_now = {name for name, outcome in now.items() if outcome in FAILED}
    failed_base = {name for name, outcome in base.items() if outcome in FAILED}
    missing = [n for n in base if n not in now and not n.endswith(f"::{COLLECTION}")]
    unknown = sorted(missing) if not after.complete else []
    vanished = sorted(n for n in missing if base[n] == "pass") if after.complete else []
    broken = sorted({*(n for n in failing_now if base.get(n) == "pass"), *vanished,
                     *(n for n, o in now.items() if o == "skip" and base.get(n) == "pass")})
    collected = _collected_now(base, now)
    new_failing = sorted(n for n in failing_now if n not in base and n not in needed)
    required_failing = sorted(n for n in needed if now.get(n) != "pass")
    fixed = tuple(sorted({*(n for n in failed_base if now.get(n) == "pass"), *collected}))
    fixes_nothing = bool(failed_base) and not needed and not fixed
    judgement = Judgement(
        good=after.complete and not (broken or new_failing or required_failing or fixes_nothing),
        reason="",
        fixed=fixed,
        # a required test is the change's to fix, so never "not blocking", however it did at the base
        still_failing=tuple(sorted(((failed_base & failing_now) | {n for n in failed_base - failing_now
                                                                   if n not in fixed and n not in unknown})
                                   - set(required_failing))),
        broken=tuple(broken), new_failing=tuple(new_failing), required_failing=tuple(required_failing),
        per_test=True, unknown=tuple(unknown), vanished=tuple(vanished))
    return _with_reason(judgement, after)


def _collected_now(base: dict[str, str], now: dict[str, str]) -> list[str]:
    """Base collection errors (`file::<collection>`) whose file's tests now run, and all pass."""
    fixed = []
    for pseudo in (n for n in base if n.endswith(f"::{COLLECTION}") and n not in now):
        where = pseudo.rsplit("::", 1)[0]
        tests = [o for n, o in now.items() if _belongs(n, where)]
        if tests and all(o in ("pass", "skip") for o in tests) and "pass" in tests:
            fixed.append(pseudo)
    return fixed


def _collected_elsewhere(name: str, now: dict[str, str]) -> bool:
    """True for a base collection error whose file's tests were collected after the change."""
    if name in now or not name.endswith(f"::{COLLECTION}"):
        return False
    where = name.rsplit("::", 1)[0]
    return any(_belongs(n, where) for n in now)


def _belongs(name: str, where: str) -> bool:
    """True when test `name` lives in the file or module `where` ('tests/test_x.py' or 'tests.test_x')."""
    head = name.split("::", 1)[0]
    return head == where or head.startswith(where + ".")


def matching_tests(now: Iterable[str], required: Sequence[str]) -> list[str]:
    """The test names in `now` that `required` names: exactly, or as the test file they live in."""
    names: list[str] = []
    now = list(now)
    for want in filter(None, required):
        stem = want.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        names += [n for n in now if n == want or n.startswith(want + "::") or _in_file(n, want, stem)]
    return list(dict.fromkeys(names))


def _in_file(name: str, path: str, stem: str) -> bool:
    """True when test `name` ('tests/test_x.py::test_y', 'tests.test_x::test_y') lives in `path`."""
    where = name.split("::", 1)[0]
    dotted = path.rsplit(".", 1)[0].replace("/", ".")
    # unittest names the class after the module: 'tests.test_x.TestY::test_z' lives in tests/test_x.py
    return where in (path, dotted) or where.endswith(("/" + path, "." + dotted)) or where.rsplit(".", 1)[-1] == stem \
        or where.startswith(dotted + ".") or where.split(".")[-2:-1] == [stem]


def _by_exit_status(after: TestOutcome, needed: list[str]) -> Judgement:
    if after.passed:
        return Judgement(True, "the test command succeeded")
    why = "the tests timed out" if after.timed_out else "the test command failed"
    return Judgement(False, f"{why} (no per-test results to compare with the base)", required_failing=tuple(needed))


def _with_reason(j: Judgement, after: TestOutcome) -> Judgement:
    if j.good:
        parts = [f"{len(j.fixed)} test(s) fixed"] if j.fixed else ["no test broke"]
        if j.still_failing:
            parts.append(f"{len(j.still_failing)} failed before the change too and still fail (not blocking)")
        return replace(j, reason="; ".join(parts))
    parts = []
    if not (j.required_failing or j.broken or j.new_failing or j.unknown or not after.complete):
        parts.append("no test that failed before the change passes now: the change fixes nothing the tests check")
    if j.required_failing:
        parts.append(f"required test(s) fail: {', '.join(j.required_failing[:5])}")
    if j.broken:
        gone = f" ({len(j.vanished)} of them were not reported at all)" if j.vanished else ""
        parts.append(f"the change broke {len(j.broken)} test(s) that passed before{gone}: {', '.join(j.broken[:5])}")
    if j.unknown:
        parts.append(f"the run is incomplete ({after.incomplete_reason or 'killed'}): {len(j.unknown)} test(s) of "
                     f"the base never ran: {', '.join(j.unknown[:5])}")
    elif not after.complete:
        parts.append(f"the run is incomplete, so it is no evidence: {after.incomplete_reason or 'killed'}")
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
        path = file_of_test(name, lambda p: read(p) is not None)
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
            test_file = is_test_path(line[4:].strip().removeprefix("b/"))
        elif test_file:
            continue
        elif line.startswith("@@"):
            names.update(_DEFINITION.findall(line.split("@@", 2)[-1]))
        elif line[:1] in "+-" and not line.startswith(("+++", "---")):
            names.update(_DEFINITION.findall(line))
    return names


def file_of_test(name: str, exists: Callable[[str], bool] | None = None) -> str:
    """The file a test id names: 'tests/test_x.py::T::t' -> tests/test_x.py, 'tests.test_x::T::t' -> tests/test_x.py.

    unittest's dotted ids may carry the class too ('tests.test_x.T::t'): given `exists`, the longest dotted
    prefix that is a file wins (tests/test_x.py, not tests/test_x/T.py).
    """
    where = name.split("::", 1)[0]
    if "/" in where or is_code(where):
        return where
    parts = where.split(".")
    candidates = ["/".join(parts[:end]) + ".py" for end in range(len(parts), 0, -1)]
    return next((c for c in candidates if exists is not None and exists(c)), candidates[0])


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]


_CONCRETE = re.compile(r"`[^`]+`|\b[\w/]+\.\w{1,5}\b|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b\w+\(|\bline \d+|\d")
_NAME = re.compile(r"\w+")
# what a reviewer writes right before the code it asks for: "should be `x`", "should be changed to `x`", "use `x`"
_ASKS_FOR = re.compile(r"\b(?:be|become|use|using|(?:changed|set|updated|corrected|fixed|modified) to|"
                       r"(?:calculated|computed|written|defined|implemented) as|replaced? (?:with|by))\s*:?\s*$",
                       re.IGNORECASE)


def names_a_problem(feedback: str, diff: str | None = None) -> bool:
    """True when a critic's feedback points at something concrete: code, a file, a name, a value or a line.

    Given the change's `diff`, what it points at must be code the change wrote: a fragment of a line it
    added, or a name that first appears there. A reviewer who found a defect in a change can quote it;
    "consider edge cases", the name of the function the change is in, a line the change already
    replaced, or an unchanged line around it quote nothing the change did. Nor does code the change wrote
    quoted as what the code should be ("`start` should be `(page - 1) * per_page`", when that is the line
    the change added): the feedback asks for what is already there (2 of the 5 revisions of right changes
    that quoted code the change wrote in the local 1.5B critic's last bench run, and its 1 of a wrong one).
    """
    if len(feedback.strip()) < 15:
        return False
    quoted = [(m.group().strip("`").strip(), feedback[max(0, m.start() - 30):m.start()])
              for m in _CONCRETE.finditer(feedback)]
    if diff is None:
        return bool(quoted)
    added, kept = _sides(diff)
    return any(_wrote(name, added, kept) and not _ASKS_FOR.search(before)
               for n, before in quoted for name in (n, n.removesuffix("()").rstrip("(")))


def _sides(diff: str) -> tuple[str, str]:
    """The text of a unified diff's added lines, and of the rest of its code (removed and unchanged lines,
    hunk headers' context), whitespace runs collapsed to one space."""
    added, kept = [], []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            continue  # file headers; other header lines ("index", "new file mode") start with no marker below
        if line.startswith("+"):
            added.append(line[1:])
        elif line.startswith("@@"):
            kept.append(line.split("@@", 2)[-1])
        elif line[:1] in " -":
            kept.append(line[1:])
    return _squeezed("\n".join(added)), _squeezed("\n".join(kept))


def _wrote(name: str, added: str, kept: str) -> bool:
    """Whether `name` (a code fragment or a name the feedback quotes) is in code the change added: a name
    must be new there, since one it only reuses (the function it edits) points at nothing it did."""
    name = _squeezed(name)
    if len(name) < 3:
        return False
    if not _NAME.fullmatch(name):
        return name in added
    word = re.compile(rf"\b{re.escape(name)}\b")
    return bool(word.search(added)) and not word.search(kept)


def _squeezed(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text).strip()
