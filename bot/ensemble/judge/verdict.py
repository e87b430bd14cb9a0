"""The test judge: is a candidate good? Judged against the base, test by test (DESIGN.md, "When is a change good").

A candidate is good when the tests the task requires (the reproduction test, tests the task
names) pass, no test that passed at the base fails, is skipped or disappears, and no new test fails.
Tests that already failed at the base are reported and never block; but when the base had failing
tests and the task requires none, the change must turn at least one of them green (a change that
fixes nothing is not good just because nothing new broke). A file whose tests could not be
collected at the base (an import error) is fixed when its tests run and pass after the change.

Only a complete run is evidence: when the base reported per-test results, a run after the change
without them is not a pass, and a run whose tests cannot all be accounted for (killed and not
resumed, results that disagree with the runner's exit status or tally) is never good; tests it
never reached are named as unknown. A run the judge found tampered with (team_judge.py, sentinels.py)
is no evidence at all, and the change is refused as a cheat. Without per-test results on either
side only the exit status can judge.

    judgement = judge(tests_before, tests_after, required=("tests/test_repro.py",))
    judgement.good, judgement.fixed, judgement.broken, judgement.still_failing

Round 0's reproduction test is judged the other way round: it must fail at the base (`reproduces`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.ensemble.types import Judgement, TestOutcome
from common.testids import belongs_to, matching_tests
from sandbox.model import COLLECTION
from sandbox.model import FAILING as FAILED


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


def reproduces(judgement: Judgement, tests: TestOutcome) -> bool:
    """True when the reproduction test being written (required in `judgement`) fails at the base: red before the
    fix (without per-test results: the run failed)."""
    if judgement.per_test:
        return bool(judgement.required_failing)
    return not tests.passed


def _collected_now(base: dict[str, str], now: dict[str, str]) -> list[str]:
    """Base collection errors (`file::<collection>`) whose file's tests now run, and all pass."""
    fixed = []
    for pseudo in (n for n in base if n.endswith(f"::{COLLECTION}") and n not in now):
        where = pseudo.rsplit("::", 1)[0]
        tests = [o for n, o in now.items() if belongs_to(n, where)]
        if tests and all(o in ("pass", "skip") for o in tests) and "pass" in tests:
            fixed.append(pseudo)
    return fixed


def _collected_elsewhere(name: str, now: dict[str, str]) -> bool:
    """True for a base collection error whose file's tests were collected after the change."""
    if name in now or not name.endswith(f"::{COLLECTION}"):
        return False
    where = name.rsplit("::", 1)[0]
    return any(belongs_to(n, where) for n in now)


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


