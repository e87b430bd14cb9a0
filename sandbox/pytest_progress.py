"""A pytest plugin the sandbox loads into every test run: each test's start and outcome, written as it happens.

JUnit XML is written when the run ends, so a run the sandbox kills (memory, time, processes) leaves
none. This log survives the kill: the tests that finished, and the one that was running when the
limit hit (sandbox/results.py reads it). It goes into the run's own results folder, `$ENSEMBLE_RESULTS`.
The file is copied into the sandbox as a plain module and loaded with `PYTEST_PLUGINS`; it imports
nothing but the standard library.

In a judged run it also has the sandbox's hooks (sandbox/run_hooks.py, loaded as `sitecustomize`) take pytest's
classes down as it loads, and compare them at the first test's start and after each test; and around each test's
call, check that the test item still runs what pytest collected from the test's file (`check_item`).

Lines: `session<TAB>start` when pytest starts, `start<TAB>nodeid` and `done<TAB>nodeid<TAB>outcome`
(pass, fail, error, skip). With `ENSEMBLE_LIST` set (a token) and `--collect-only`, the collected node
ids are printed as `token<TAB>nodeid`, after a line holding the token alone (sandbox/listing.py). With
`ENSEMBLE_LISTED` set in a run that runs its tests, they are logged as `listed<TAB>nodeid` once collected, and
`listed<TAB>` ends the listing: the run lists itself, with no listing run of its own.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the sandbox runs this module with the standard library only
    from collections.abc import Iterator

    import pytest

LOG_NAME = "pytest-progress.log"
LISTED_VARIABLE = "ENSEMBLE_LISTED"  # set: the run lists its tests in the log as it collects them, then runs them
_outcomes: dict[str, str] = {}
_started: list[str] = []
# pytest's classes are taken down as this plugin loads (`PYTEST_PLUGINS`): after pytest's own modules, before any
# `conftest.py`, test module or code under test; checked as each test starts and ends (sandbox/run_hooks.py)
_hooks = sys.modules.get("sitecustomize")
_hooks = _hooks if hasattr(_hooks, "check_runner") else None
if _hooks is not None:
    _hooks.check_pytest()  # a judged run's comparisons routed through the judge's checks (never raises)
    _hooks.snapshot_runner()  # never raises: a failure is recorded as evidence


def _write(*fields: str) -> None:
    folder = os.environ.get("ENSEMBLE_RESULTS")
    if not folder:
        return
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, LOG_NAME), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, ("\t".join(f.replace("\t", " ").replace("\n", " ") for f in fields) + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # a full or read-only disk must not fail the tests


def _check_runner(full: bool) -> None:
    """Compare pytest's and unittest's classes with how they were (sandbox/run_hooks.py, as `sitecustomize`)."""
    if _hooks is not None:
        _hooks.check_runner(full)


def pytest_sessionstart(session: pytest.Session) -> None:
    _write("session", "start")


def pytest_collection_finish(session: pytest.Session) -> None:
    if os.environ.get(LISTED_VARIABLE) and not session.config.getoption("collectonly", False):
        for item in session.items:  # the listing, written before any test runs (a kill leaves it whole)
            _write("listed", item.nodeid)
        _write("listed", "")  # the listing's end: a run killed while it was written has none
    token = os.environ.get("ENSEMBLE_LIST")
    if not token or not session.config.getoption("collectonly", False):
        return
    lines = [token, *(f"{token}\t{item.nodeid}" for item in session.items)]
    capture = session.config.pluginmanager.getplugin("capturemanager")
    if capture is not None:  # the listing must reach stdout, not pytest's capture of it
        with capture.global_and_fixture_disabled():
            _print(lines)
    else:
        _print(lines)


def _print(lines: list[str]) -> None:
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    sys.stdout.flush()


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    if not _outcomes and not _started:  # the first test: what collection (imports) did; later, each test's end
        _started.append(nodeid)
        _check_runner(full=True)
    _write("start", nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _outcomes[report.nodeid] = "error" if report.when != "call" else "fail"
    elif report.skipped and report.nodeid not in _outcomes:
        _outcomes[report.nodeid] = "skip"
    elif report.when == "call" and report.passed:
        _outcomes.setdefault(report.nodeid, "pass")


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    _check_runner(full=False)
    _write("done", nodeid, _outcomes.pop(nodeid, "pass"))


def _runtest_call(item: pytest.Item) -> Iterator[None]:
    """Around a test's call: the item runs what pytest collected (sandbox/run_hooks.py `check_item`), before and
    after, so a swap made for the call alone is seen too."""
    if _hooks is not None:
        _hooks.check_item(item)
    yield
    if _hooks is not None:
        _hooks.check_item(item)


_pytest = sys.modules.get("pytest")
if _hooks is not None and _pytest is not None:  # a judged run, loaded by pytest: a wrapper of its own hook
    pytest_runtest_call = _pytest.hookimpl(hookwrapper=True)(_runtest_call)
