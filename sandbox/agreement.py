"""Whether a run's per-test results agree with the runner: its exit status, its own tally, its listing.

The code under test runs inside the test process, so it can write a result file or print lines shaped
like a runner's and leave early. What it cannot easily do is make every account of the run agree: the
exit status, the summary the runner prints at the end (`3 passed in 0.1s`, `Ran 3 tests` + `OK`, go's
`ok`/`FAIL` per package, cargo's `test result:`, TAP's plan and `# pass`), pytest's own progress log,
and the tests the runner lists. Each disagreement is a `Finding`, in plain words with the numbers. The
sandbox only reports them; the judge weighs them against the base run's (a harness whose exit status
never agrees is not a candidate's doing). Results are never dropped or rewritten here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

from sandbox.model import COLLECTION, FAILING, Finding, TestCase
from sandbox.results import cargo_targets, go_events, parse_pytest_progress
from sandbox.scripts import PYTEST_JUNIT, PYTEST_PROGRESS

FIRST_FEW = 3
_DUPLICATE = re.compile(r" \(duplicate \d+\)$")  # results.py keeps a name reported twice apart this way


def findings(runner: str, tests: Sequence[TestCase], exit_code: int, killed: bool, stdout: str, stderr: str,
             files: Mapping[str, bytes]) -> tuple[Finding, ...]:
    """Every disagreement in one run (a run a limit killed has neither its exit status nor its tally to offer)."""
    found: list[Finding] = []
    if runner == "pytest":
        found += pytest_files(tests, killed, files)
    if killed:
        return tuple(found)
    found += exit_status(tests, exit_code)
    check = TALLIES.get(runner)
    if check is not None and tests:
        found += check(tests, stdout, stderr)
    return tuple(found)


def exit_status(tests: Sequence[TestCase], exit_code: int) -> list[Finding]:
    """Per-test results that the exit status contradicts, either way."""
    failing = sum(t.outcome in FAILING for t in tests)
    if tests and not failing and exit_code != 0:
        return [Finding("exit_status", f"none of the {len(tests)} reported tests failed, but the test command "
                                       f"exited with status {exit_code}")]
    if failing and exit_code == 0:
        return [Finding("exit_status", f"{failing} of the {len(tests)} reported tests failed, but the test command "
                                       "exited with status 0")]
    return []


def pytest_files(tests: Sequence[TestCase], killed: bool, files: Mapping[str, bytes]) -> list[Finding]:
    """pytest's result file against its progress log: written when pytest finishes, naming tests that ran."""
    log = files.get(PYTEST_PROGRESS, b"").decode("utf-8", "replace")
    finished, running = parse_pytest_progress(log)
    found = []
    if PYTEST_JUNIT not in files and log and not killed:
        found.append(Finding("result_file", f"pytest started but never wrote its result file {PYTEST_JUNIT}, "
                                            "and no limit stopped it: the run ended before pytest finished"))
    if running is not None and not killed:
        found.append(Finding("result_file", f"pytest's progress log says {running} started and never finished, "
                                            "and no limit stopped the run"))
    if PYTEST_JUNIT in files and log:
        ran = {t.name for t in finished}
        # a skip is no claim that anything passed (and a module skipped at collection has no test to log); a test
        # that fails and then errors in teardown is in the file twice
        never = [t.name for t in tests if _DUPLICATE.sub("", t.name) not in ran and t.outcome != "skip"
                 and not t.name.endswith(COLLECTION)]
        if never:
            found.append(Finding("result_file", f"the result file reports {len(never)} test(s) that pytest's "
                                                f"progress log never saw finish: {_few(never)}"))
    return found


def _counts(tests: Iterable[TestCase]) -> Counter[str]:
    return Counter(t.outcome for t in tests)


def _few(names: Sequence[str]) -> str:
    more = f" and {len(names) - FIRST_FEW} more" if len(names) > FIRST_FEW else ""
    return ", ".join(names[:FIRST_FEW]) + more


def _missing(runner: str, what: str) -> Finding:
    return Finding("tally", f"the results are in {runner}'s format, but {runner}'s {what}, which it prints at the "
                            "end of every complete run, is missing")


_PYTEST_SUMMARY = re.compile(r"^=*\s*((?:\d+ [\w ]+?, )*\d+ [\w ]+?|no tests ran) in [\d.]+s\b.*$", re.M)
_PYTEST_COUNT = re.compile(r"(\d+) ([a-z]+)(?=,|$)")  # `3 subtests passed` (a plugin's) is not pytest's count


def pytest_tally(tests: Sequence[TestCase], stdout: str, stderr: str) -> list[Finding]:
    """pytest's summary line (`2 failed, 3 passed in 0.12s`, in -q and normal form) against the results."""
    lines = _PYTEST_SUMMARY.findall(stdout)
    if not lines:
        return [_missing("pytest", "summary line (`N passed in Xs`)")]
    said = {word.rstrip("s") if word in ("errors", "warnings") else word: int(n)
            for n, word in _PYTEST_COUNT.findall(lines[-1])}
    count = _counts(tests)
    passed, failed, errors = said.get("passed", 0) + said.get("xpassed", 0), said.get("failed", 0), said.get("error", 0)
    ran = passed + failed + said.get("skipped", 0) + said.get("xfailed", 0)
    failing = count["fail"] + count["error"]
    # a test that fails and then errors in teardown counts once as failed and once as an error
    if count["pass"] > passed or failing < failed or (errors and not failing) or not ran <= len(tests) <= ran + errors:
        return [Finding("tally", f"pytest's summary says {passed} passed, {failed} failed, {errors} errors and "
                                 f"{ran - passed - failed} skipped, but the results hold {count['pass']} passed, "
                                 f"{count['fail']} failed, {count['error']} errors and {count['skip']} skipped")]
    return []


_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s\n\n(OK|FAILED)\b(?: \((.*)\))?$", re.M)


def unittest_tally(tests: Sequence[TestCase], stdout: str, stderr: str) -> list[Finding]:
    """unittest's `Ran N tests` and `OK` / `FAILED (failures=1, errors=2)` against the results."""
    runs = _UNITTEST_RAN.findall(stderr + "\n" + stdout)
    if not runs:
        return [_missing("unittest", "`Ran N tests` line")]
    ran = sum(int(n) for n, _, _ in runs)
    failed = any(status == "FAILED" for _, status, _ in runs)
    failing = sum(t.outcome in FAILING for t in tests)
    if ran != len(tests) or failed != bool(failing):
        return [Finding("tally", f"unittest says it ran {ran} tests and {'FAILED' if failed else 'OK'}, but the "
                                 f"results hold {len(tests)} tests, {failing} of them failing")]
    return []


def go_tally(tests: Sequence[TestCase], stdout: str, stderr: str) -> list[Finding]:
    """go test's per-package outcome (the -json package events, `ok`/`FAIL` lines) against the package's tests."""
    verdicts: dict[str, str] = {}
    packages: set[str] = set()
    failing: set[str] = set()
    for event in go_events(stdout):
        package, action = str(event.get("Package", "")), str(event.get("Action", ""))
        if not event.get("Test"):
            verdicts.update({package: action} if action in ("pass", "fail", "skip") else {})
        else:
            packages.add(package)
            failing.update([package] if action == "fail" else [])
    found = []
    if unfinished := sorted(packages - set(verdicts)):
        found.append(Finding("tally", f"go test reported tests of {len(unfinished)} package(s) but never said "
                                      f"whether the package passed (`ok` or `FAIL`): {_few(unfinished)}"))
    if contradicted := sorted(p for p in failing if verdicts.get(p) == "pass"):
        found.append(Finding("tally", f"go test says `ok` for {len(contradicted)} package(s) whose tests failed: "
                                      f"{_few(contradicted)}"))
    return found


_CARGO_RESULT = re.compile(r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;", re.M)
_CARGO_TEST = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored\b.*)$", re.M)


def cargo_tally(tests: Sequence[TestCase], stdout: str, stderr: str) -> list[Finding]:
    """Each test target's `test result: ok. N passed; M failed; K ignored` against its test lines."""
    bounds = [at for at, _ in cargo_targets(stdout)] or [0]
    found = []
    for start, end in zip(bounds, [*bounds[1:], len(stdout)], strict=True):
        section = stdout[start:end]
        lines = Counter(m.group(2).split()[0] for m in _CARGO_TEST.finditer(section))
        if not lines:
            continue
        result = _CARGO_RESULT.search(section)
        if result is None:
            found.append(_missing("cargo", "`test result:` line for a test target"))
            continue
        passed, failed, ignored = (int(n) for n in result.groups())
        if (passed, failed, ignored) != (lines["ok"], lines["FAILED"], lines["ignored"]):
            found.append(Finding("tally", f"cargo's `test result:` says {passed} passed, {failed} failed and "
                                          f"{ignored} ignored, but the test lines above it show {lines['ok']}, "
                                          f"{lines['FAILED']} and {lines['ignored']}"))
    return found


_TAP_PLAN = re.compile(r"^1\.\.(\d+)\b", re.M)
_TAP_COUNT = re.compile(r"^# (pass|fail|cancelled) (\d+)$", re.M)


def tap_tally(tests: Sequence[TestCase], stdout: str, stderr: str) -> list[Finding]:
    """TAP's plan (`1..N`) and node's `# pass N` / `# fail N` against the test points."""
    said = {word: int(n) for word, n in _TAP_COUNT.findall(stdout)}
    if not _TAP_PLAN.search(stdout) and not said:
        return [_missing("TAP", "plan (`1..N`)")]
    count = _counts(tests)
    failing = count["fail"] + count["error"]
    said_failing = said.get("fail", 0) + said.get("cancelled", 0)
    if "pass" in said and (count["pass"] > said["pass"] or bool(failing) != bool(said_failing)):
        return [Finding("tally", f"TAP's summary says {said['pass']} passed and {said_failing} failed, but the "
                                 f"results hold {count['pass']} passed and {failing} failed")]
    return []


TALLIES: dict[str, Callable[[Sequence[TestCase], str, str], list[Finding]]] = {
    "pytest": pytest_tally, "unittest": unittest_tally, "go": go_tally, "cargo": cargo_tally, "tap": tap_tally,
}


def unlisted(tests: Sequence[TestCase], listed: Iterable[str]) -> list[Finding]:
    """Results naming tests the runner's listing does not have (Go subtests count under their test)."""
    known = set(listed)
    # a module skipped at collection has no test to list; a test that fails and then errors in teardown is reported
    # twice (the second kept apart as a duplicate); a collection error is a file's, not a test's
    extra = [t.name for t in tests if t.outcome != "skip" and not t.name.endswith(COLLECTION)
             and not {_DUPLICATE.sub("", t.name), top_level(t.name)} & known]
    if not extra:
        return []
    return [Finding("unlisted", f"the results name {len(extra)} test(s) the runner's listing does not have: "
                                f"{_few(extra)}")]


def top_level(name: str) -> str:
    """A Go subtest's test (`pkg/x_test.go::TestX/sub` -> `pkg/x_test.go::TestX`); other names as they are."""
    head, sep, test = name.rpartition("::")
    return f"{head}{sep}{test.split('/', 1)[0]}" if sep else name
