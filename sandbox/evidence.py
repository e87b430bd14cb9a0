"""What a finished test command leaves as evidence, read the same way by both backends.

A run's runners write into its own folder, `.ensemble-results/<nonce>` (a fresh unpredictable name
per run, sandbox/scripts.py); only the files they were told to write there are read (`RUN_FILES`),
never whatever else a test leaves in `.ensemble-results/` or elsewhere. Surefire and Gradle cannot be
told where to write: their usual folders are read when the run's own folder holds no results. From
these and the output come the per-test results, the test that was running when the command ended, the
repository files the tests read (when traced), and the findings where the results disagree with the
runner (sandbox/agreement.py).

The judge's logs are files the code under test could empty or rewrite by a process of its own (`truncate`, `sed`),
which no hook of the Python process sees. So the judged process also streams each record on its standard error as
it writes it (sandbox/run_hooks.py), where nothing the run does later can take it back: the logs are read with the
streamed records added (`with_streamed`), a streamed record missing from its log is the judge's file changed, and a
process whose stream started but never ended (its descriptor closed or taken over, the process ended by `os._exit`)
left its record cut short, unless a limit killed the run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from common.testfiles import is_harness_path, is_test_path
from sandbox.agreement import findings
from sandbox.model import (
    CHANGED_EXAMPLES,
    FORGED_VALUE,
    KILLED_EXITS,
    OWNED_CHANGED,
    REACHED_TESTS,
    READS_TESTS,
    RUNNER_PATCHED,
    ExecResult,
    Finding,
)
from sandbox.output import MAX_RECORDS, OVERFLOW, records_of
from sandbox.results import parse_pytest_listing, read_tests, running_test
from sandbox.scripts import (
    HONESTY_LOG,
    OWNED_LOG,
    PATCHES_LOG,
    PLUGINS_DIR,
    PYTEST_PROGRESS,
    READS_LOG,
    RESULTS_DIR,
    RUN_FILES,
)
from sandbox.workspace import Overlay

MAX_READS = 5000  # repository files reported as read by one run
MAX_REFUSALS = 50  # refused changes to the judge's files reported for one run


class Ended(NamedTuple):
    """How a command ended, as the backend saw it."""

    command: str
    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool
    oom_killed: bool


def result_of(ended: Ended, files: Mapping[str, bytes], reports: Mapping[str, bytes],
              repo_dir: Path | None, overlay: Overlay | None = None) -> ExecResult:
    """The ExecResult of a finished command: `files` are the run's own result files by name (others are
    dropped), `reports` the files of the report folders a runner cannot be told to move; `overlay` what the run
    saw over `repo_dir` (the tests are named by the files of that tree)."""
    killed = ended.timed_out or ended.oom_killed or ended.exit_code in KILLED_EXITS
    (stdout, records), (stderr, more) = records_of(ended.stdout), records_of(ended.stderr)
    ended = ended._replace(stdout=stdout, stderr=stderr)
    own, cut = with_streamed({name: data for name, data in files.items() if name in RUN_FILES}, [*records, *more],
                             killed)
    runner, tests = read_tests(own, ended.stdout, ended.stderr, repo_dir, reports, overlay)
    found = (*findings(runner, tests, ended.exit_code, killed, ended.stdout, ended.stderr, own), *cut)
    runner, running = running_test(runner, own, ended.stdout, ended.stderr, repo_dir, overlay)
    reads = own.get(READS_LOG, b"")
    listed = parse_pytest_listing(own[PYTEST_PROGRESS].decode("utf-8", "replace")) if PYTEST_PROGRESS in own else None
    return ExecResult(*ended, tests=tests, runner=runner, reads=reads_of(reads), opened=opened_of(reads),
                      running=running, listed=listed, findings=(*found, *refusals_of(own.get(OWNED_LOG, b"")),
                                                 *patches_of(own.get(PATCHES_LOG, b"")),
                                                 *honesty_of(own.get(HONESTY_LOG, b""))))


def with_streamed(own: Mapping[str, bytes], records: list[str], killed: bool) -> tuple[dict[str, bytes],
                                                                                     list[Finding]]:
    """The run's own files with each streamed record its log lacks added back, and the findings of a record
    changed: a log that lost records, a process whose records never ended (not where a limit killed the run),
    more records than any run streams."""
    files, found = dict(own), []
    missing: dict[str, list[str]] = {}
    started: dict[str, str] = {}
    ended: set[tuple[str, str]] = set()
    for record in records:
        kind, _, rest = record.partition("\t")
        if kind == "log":
            name, _, line = rest.partition("\t")
            if name in (OWNED_LOG, PATCHES_LOG, HONESTY_LOG):
                missing.setdefault(name, []).append(line)
        elif kind in ("start", "end"):
            pid, _, token = rest.partition("\t")
            if kind == "start":
                started[pid] = token
            else:
                ended.add((pid, token))
        elif record == OVERFLOW.decode():
            found.append(Finding(OWNED_CHANGED, f"the run wrote more than {MAX_RECORDS} of the judge's records on its "
                                                "output: no run's own checks write that many, so some are not known"))
    for name, lines in missing.items():
        have = Counter(files.get(name, b"").decode("utf-8", "replace").splitlines())
        gone = []
        for line in lines:
            if have[line]:
                have[line] -= 1
            else:
                gone.append(line)
        if gone:
            files[name] = files.get(name, b"") + "".join(f"{line}\n" for line in gone).encode("utf-8", "replace")
            found.append(Finding(OWNED_CHANGED, f"{RESULTS_DIR}/…/{name}: the judge's log was changed while the tests "
                                                f"ran ({len(gone)} of its records were gone from it; they are read "
                                                "from the run's output, where they were streamed)"))
    if not killed:
        found += [Finding(OWNED_CHANGED, f"the judge's record of the run's Python process {pid} was cut short: its "
                                         "records were streamed from its start but never ended (their output closed "
                                         "or taken over, or the process ended without exiting)")
                  for pid, token in started.items() if (pid, token) not in ended]
    return files, found


def honesty_of(log: bytes) -> tuple[Finding, ...]:
    """The values of the code under test that the tests' comparisons could not trust, the tests' files the code under
    test read, and doctest examples that were not as written (sandbox/run_hooks.py, `kind<TAB>detail` lines): one
    finding each, in the order seen."""
    found: dict[str, Finding] = {}
    for line in log.decode("utf-8", "replace").splitlines():
        kind, _, detail = line.strip().partition("\t")
        if kind in (FORGED_VALUE, READS_TESTS, CHANGED_EXAMPLES, REACHED_TESTS) and detail \
                and len(found) < MAX_REFUSALS:
            found.setdefault(detail, Finding(kind, detail))
    return tuple(found.values())


def patches_of(log: bytes) -> tuple[Finding, ...]:
    """The methods of a test runner's classes that were replaced, added or removed while the tests ran, and the
    standard library's functions and modules found to be the repository's code (sandbox/run_hooks.py,
    `target<TAB>replacement` lines): one finding each, but for those the tests or the harness replaced with their
    own code (a test's `monkeypatch.setattr(TestCase, ...)`), which are theirs to make. The replacement is named by
    the file its code is in, repository-relative inside the repository."""
    def relative(origin: str) -> bool:  # a file of the repository (the others are absolute, or no file at all)
        return bool(origin) and not origin.startswith(("/", "a ", "<")) and origin != "removed"

    found: dict[str, str] = {}
    for line in log.decode("utf-8", "replace").splitlines():
        target, _, origin = line.strip().partition("\t")
        if not target or (relative(origin) and (is_test_path(origin) or is_harness_path(origin))):
            continue
        if len(found) < MAX_REFUSALS:
            found.setdefault(target, origin)
    return tuple(Finding(RUNNER_PATCHED, f"{target}: replaced while the tests ran, by "
                                         f"{'code in ' + origin if relative(origin) else origin or 'unknown code'}")
                 for target, origin in sorted(found.items()))


def refusals_of(log: bytes) -> tuple[Finding, ...]:
    """The changes to the judge's files that a run's Python processes tried and were refused (sandbox/run_hooks.py,
    `event<TAB>path<TAB>opener` lines), one finding per file and opener: evidence of what the code tried, though
    nothing changed."""
    found: dict[tuple[str, str], list[str]] = {}
    for line in log.decode("utf-8", "replace").splitlines():
        event, _, rest = line.strip().partition("\t")
        path, _, opener = rest.partition("\t")
        if event and path and len(found) < MAX_REFUSALS:
            events = found.setdefault((path, opener), [])
            if event not in events:
                events.append(event)
    return tuple(Finding(OWNED_CHANGED, f"{path}: the test run tried to change this file, which the judge owns (a "
                                        f"test, the harness or the tests' data), and was refused: {', '.join(events)} "
                                        f"from {opener or 'code outside the repository'}")
                 for (path, opener), events in sorted(found.items()))


def opened_of(log: bytes) -> tuple[tuple[str, str], ...]:
    """Each repository file a reads log names with the repository file whose code opened it (`<doctest>` for a file
    whose examples ran as doctests; none for what the runner read with no repository frame on the stack): the
    raw pairs the judge learns the tests' closure from. Sorted, unique, capped."""
    found = set()
    for line in log.decode("utf-8", "replace").splitlines():
        name, _, opener = line.strip().partition("\t")
        if name and opener and _inside(name) and (opener.startswith("<") or _inside(opener)):
            found.add((PurePosixPath(name).as_posix(), opener))
    return tuple(sorted(found)[:MAX_READS])


def _inside(name: str) -> bool:
    """True for a repository-relative path that is not the sandbox's own."""
    path = PurePosixPath(name)
    return not (path.is_absolute() or ".." in path.parts or path.parts[0] in (RESULTS_DIR, PLUGINS_DIR))


def reads_of(log: bytes) -> tuple[str, ...]:
    """The files the tests themselves read, from a reads log (`path<TAB>opener` lines): those whose opener, the
    innermost frame of the repository's code at the open, is a test file (common/testfiles.py); not what the code
    under test reads, nor what the runner reads with no repository frame on the stack. Sorted, unique, capped."""
    return tuple(sorted({path for path, opener in opened_of(log) if is_test_path(opener)}))
