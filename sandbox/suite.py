"""A test suite run to its end, even when a limit kills the runner half-way.

One test that allocates past `sandbox.memory`, hangs past `sandbox.timeout_s` or is killed from
outside takes the whole runner with it: the tests after it never run, and no JUnit file is written.
Such a run is not evidence as it stands. Where the runner says which test was running (pytest, through
sandbox/pytest_progress.py), the suite is resumed without that test and without those that already
finished; the killed test is reported as an error that names the limit. Where it cannot be resumed,
the result says it is incomplete, and the judge treats the tests it never reached as unknown.
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import replace

from sandbox.model import Environment, ExecResult, Sandbox, TestCase
from sandbox.workspace import Overlay

log = logging.getLogger(__name__)
MAX_RESUMES = 3  # kills survived per suite run: each resume runs what is left
MAX_DESELECT_CHARS = 100_000  # finished tests named on a resume; past this only the killed ones are left out
PLUGIN_MISSING = 'Error importing plugin "ensemble_pytest_progress"'  # pytest's words when it cannot import it


def run_suite(sandbox: Sandbox, env: Environment, command: str, timeout: float | None = None,
              files: Overlay | None = None) -> ExecResult:
    """Run `command` as `sandbox.run` does; after a kill, resume the rest of the suite and merge the results.

    A test command that sets its own PYTHONPATH hides the progress plugin from pytest, which then refuses
    to start: such a run is repeated without the plugin (a kill in it cannot be resumed)."""
    result = sandbox.run(env, command, timeout, files)
    if PLUGIN_MISSING in result.stdout + result.stderr:
        log.info("the test command hides the sandbox's pytest plugin (its own PYTHONPATH); running without it")
        command = f"unset PYTEST_PLUGINS; {command}"
        result = sandbox.run(env, command, timeout, files)
    if not result.killed:
        return result
    finished = {t.name: t for t in result.tests}
    killed: dict[str, TestCase] = {}
    first = result
    for _attempt in range(MAX_RESUMES):
        if not result.killed or result.running is None or result.running in killed:
            break
        why = limit_words(result, env)
        log.warning("the test run was killed by %s while %s ran; resuming the suite without it", why, result.running)
        killed[result.running] = TestCase(result.running, "error", f"killed by {why}: the test runner was stopped "
                                          "while this test ran")
        result = sandbox.run(env, resumed(command, [*killed, *finished]), timeout, files)
        finished.update((t.name, t) for t in result.tests)
    complete = not result.killed
    tests = [*finished.values(), *(k for name, k in killed.items() if name not in finished)]
    return replace(result, exit_code=first.exit_code, tests=tests, timed_out=first.timed_out or result.timed_out,
                   oom_killed=first.oom_killed or result.oom_killed, complete=complete,
                   incomplete_reason="" if complete else f"killed by {limit_words(result, env)} before the suite "
                   "finished, and the runner did not say which test was running, so the rest could not be resumed",
                   duration_s=first.duration_s + (result.duration_s if result is not first else 0.0))


def resumed(command: str, leave_out: list[str]) -> str:
    """`command` with pytest told to leave out the given tests (killed, or already finished)."""
    text = " ".join(shlex.quote(f"--deselect={n}") for n in leave_out)
    if len(text) > MAX_DESELECT_CHARS:  # the finished tests run again; the killed ones (named first) do not
        text = text[:MAX_DESELECT_CHARS].rsplit(" ", 1)[0]
    return f'export PYTEST_ADDOPTS="$PYTEST_ADDOPTS"{shlex.quote(" " + text)}; {command}'


def limit_words(result: ExecResult, env: Environment) -> str:
    """Which limit ended a run, in the config's words."""
    if result.timed_out:
        return f"the time limit (sandbox.timeout_s: {env.spec.timeout_s})"
    if result.oom_killed:
        return f"the memory limit (sandbox.memory: {env.spec.memory})"
    return "a kill signal (exit status 137: the memory limit or the process limit, sandbox.pids)"
