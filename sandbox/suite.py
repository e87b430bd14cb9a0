"""A test suite run to its end, even when a limit kills the runner half-way, and checked against its listing.

One test that allocates past `sandbox.memory`, hangs past `sandbox.timeout_s` or is killed from
outside takes the whole runner with it: the tests after it never run, and no result file is written.
Such a run is not evidence as it stands. Where the runner's output says which test was running, the
suite is resumed without that test and without those that already finished, each runner in its own
way: pytest (its progress log, sandbox/pytest_progress.py) through `--deselect`; `unittest -v` (which
names each test as it starts) through a skip list sandbox/run_hooks.py reads; `go test -json` (its
`run` events) through `GOFLAGS=-run=` with the listed tests that are left; cargo (libtest's `test x ...`
line, printed first when tests run one at a time, as resumed runs do) through `-- --skip x --exact`.
The killed test is reported as an error that names the limit.

Given the suite's listing (sandbox/listing.py: pytest lists its tests in the run itself, as it collects them;
other runners in a listing run of their own), a run that leaves a listed test unreported is
incomplete, and results naming tests the listing lacks are a finding. Without one, a kill that cannot
be resumed leaves the run incomplete; the judge treats the tests it never reached as unknown.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Collection, Sequence
from dataclasses import replace

from sandbox.agreement import top_level, unlisted
from sandbox.evidence import MAX_READS
from sandbox.listing import list_tests, listing_itself, with_test_args
from sandbox.model import Environment, ExecResult, Sandbox, TestCase
from sandbox.results import libtest_name
from sandbox.workspace import Overlay

log = logging.getLogger(__name__)
MAX_RESUMES = 3  # kills survived per suite run: each resume runs what is left
MAX_DESELECT_CHARS = 100_000  # finished tests named on a resume; past this only the killed ones are left out
PLUGIN_MISSING = 'Error importing plugin "ensemble_pytest_progress"'  # pytest's words when it cannot import it
FIRST_FEW = 3
LEFT_OUT = "left out of this run: the time limit killed it in the base's run, and it would only be waited for again"

__all__ = ["accounted", "list_tests", "listing_itself", "run_suite"]


def run_suite(sandbox: Sandbox, env: Environment, command: str, timeout: float | None = None,
              files: Overlay | None = None, listed: Sequence[str] | None = None,
              trace_reads: bool = False, owned: Collection[str] = (), leave_out: Collection[str] = (),
              runner: str = "") -> ExecResult:
    """Run `command` as `sandbox.run` does; after a kill, resume the rest of the suite and merge the results.

    `listed`: the suite's tests (`list_tests`), which the results must account for; `owned`: the files no run of
    the suite may change (`Sandbox.run`). A test command that sets its own PYTHONPATH hides the progress plugin
    from pytest, which then refuses to start: such a run is repeated without the plugin (a kill in it cannot be
    resumed). `leave_out`: tests not to run, told to `runner` (the runner that named them) as a resumed run tells
    it, each reported as an error that says so (tests the time limit killed in an earlier run: waiting for the
    limit again shows nothing new); where that runner cannot be told, they run."""
    skipping = resume_command(runner, command, sorted(leave_out), listed) if leave_out and runner else None
    result = sandbox.run(env, skipping or command, timeout, files, trace_reads=trace_reads, owned=owned)
    if PLUGIN_MISSING in result.stdout + result.stderr:
        log.info("the test command hides the sandbox's pytest plugin (its own PYTHONPATH); running without it")
        command, skipping = f"unset PYTEST_PLUGINS; {command}", None
        result = sandbox.run(env, command, timeout, files, trace_reads=trace_reads, owned=owned)
    if result.killed:
        result = _resumed(sandbox, env, command, timeout, files, listed, trace_reads, result, owned,
                          sorted(leave_out) if skipping else [])
    if skipping:
        left = [TestCase(name, "error", LEFT_OUT) for name in sorted(leave_out)]
        result = replace(result, tests=[*(t for t in result.tests if t.name not in leave_out), *left])
    return accounted(result, listed)


def _resumed(sandbox: Sandbox, env: Environment, command: str, timeout: float | None, files: Overlay | None,
             listed: Sequence[str] | None, trace_reads: bool, first: ExecResult,
             owned: Collection[str] = (), skipped: Sequence[str] = ()) -> ExecResult:
    """`first`, a killed run, with the rest of its suite run after it (up to MAX_RESUMES kills); `skipped`: the
    tests the run was told to leave out, which the resumed runs leave out too."""
    finished = {t.name: t for t in first.tests}
    killed: dict[str, TestCase] = {}
    hung: list[str] = []  # the killed tests the time limit stopped
    runs, result, serial = [first], first, False
    for _attempt in range(MAX_RESUMES):
        if not result.killed or result.running in killed:
            break
        if result.running is not None:
            why = limit_words(result, env)
            log.warning("the test run was killed by %s while %s ran; resuming the suite without it", why,
                        result.running)
            killed[result.running] = TestCase(result.running, "error", f"killed by {why}: the test runner was "
                                              "stopped while this test ran")
            if result.timed_out:
                hung.append(result.running)
        elif first.runner != "cargo" or serial:  # libtest runs tests at once; one at a time, it names the killer
            break
        serial = True
        if first.runner == "go" and listed is None:
            listed = list_tests(sandbox, env, command, files)
        again = resume_command(first.runner, command, [*killed, *finished, *skipped], listed)
        if again is None:
            break
        result = sandbox.run(env, again, timeout, files, trace_reads=trace_reads, owned=owned)
        runs.append(result)
        finished.update((t.name, t) for t in result.tests)
    tests = [*finished.values(), *(k for name, k in killed.items() if name not in finished)]
    complete = not result.killed
    return replace(result, exit_code=first.exit_code, tests=tests, listed=first.listed,
                   timed_out=any(r.timed_out for r in runs),
                   oom_killed=any(r.oom_killed for r in runs), complete=complete, runner=first.runner,
                   incomplete_reason="" if complete else f"killed by {limit_words(result, env)} before the suite "
                   "finished, and the runner did not say which test was running, so the rest could not be resumed",
                   duration_s=sum(r.duration_s for r in runs),
                   findings=tuple(dict.fromkeys(f for r in runs for f in r.findings)),
                   reads=tuple(sorted({p for r in runs for p in r.reads}))[:MAX_READS], hung=tuple(hung))


def resume_command(runner: str, command: str, leave_out: list[str], listed: Sequence[str] | None) -> str | None:
    """`command` told to leave out the given tests (the killed ones first, then those that finished), for the
    runner whose results named them; None where that runner cannot be told."""
    if runner == "go":
        return _go_remaining(command, leave_out, listed)
    if runner == "cargo":
        skips = _capped([f"--skip {shlex.quote(libtest_name(n))}" for n in leave_out])
        cargo = with_test_args(command, [*shlex.split(skips), "--exact"])
        return f"export RUST_TEST_THREADS=1; {cargo}" if cargo else None
    if runner == "unittest":
        return f"export ENSEMBLE_SKIP={shlex.quote(_capped(leave_out, chr(10)))}; {command}"
    if runner == "pytest":
        text = _capped([shlex.quote(f"--deselect={n}") for n in leave_out])
        return f'export PYTEST_ADDOPTS="$PYTEST_ADDOPTS"{shlex.quote(" " + text)}; {command}'
    return None


def _capped(items: list[str], separator: str = " ") -> str:
    """`items` joined, cut to MAX_DESELECT_CHARS: finished tests past it run again, the killed ones (first) do not."""
    text = separator.join(items)
    return text if len(text) <= MAX_DESELECT_CHARS else text[:MAX_DESELECT_CHARS].rsplit(separator, 1)[0]


def _go_remaining(command: str, leave_out: list[str], listed: Sequence[str] | None) -> str | None:
    """`command` running only the listed Go tests that are left (go before 1.20 has no -skip)."""
    if listed is None:
        return None
    done = {top_level(name) for name in leave_out}
    left = sorted({name.rpartition("::")[2] for name in listed if name not in done})
    if not left:
        return None
    return f'export GOFLAGS="$GOFLAGS -run=^({"|".join(left)})$"; {command}'


def accounted(result: ExecResult, listed: Sequence[str] | None) -> ExecResult:
    """`result` checked against the suite's listing: complete when every listed test was reported."""
    if listed is None:
        return result
    reported = {t.name for t in result.tests} | {top_level(t.name) for t in result.tests}
    missing = [name for name in listed if name not in reported]
    findings = tuple(dict.fromkeys([*result.findings, *unlisted(result.tests, listed)]))
    if missing:
        more = f" and {len(missing) - FIRST_FEW} more" if len(missing) > FIRST_FEW else ""
        reason = (f"{len(missing)} of the {len(listed)} listed tests were never reported: "
                  f"{', '.join(missing[:FIRST_FEW])}{more}")
        if not result.complete:
            reason = f"{result.incomplete_reason}; {reason}"
        return replace(result, complete=False, incomplete_reason=reason, findings=findings)
    # every listed test is accounted for: a kill after the last of them (or of a test that was left out) loses none
    return replace(result, complete=True, incomplete_reason="", findings=findings)


def limit_words(result: ExecResult, env: Environment) -> str:
    """Which limit ended a run, in the config's words."""
    if result.timed_out:
        return f"the time limit (sandbox.timeout_s: {env.spec.timeout_s})"
    if result.oom_killed:
        return f"the memory limit (sandbox.memory: {env.spec.memory})"
    return "a kill signal (exit status 137: the memory limit or the process limit, sandbox.pids)"
