"""A pytest plugin the sandbox loads into every test run: each test's start and outcome, written as it happens.

JUnit XML is written when the run ends, so a run the sandbox kills (memory, time, processes) leaves
none. This log survives the kill: the tests that finished, and the one that was running when the
limit hit (sandbox/progress.py reads it). The file is copied into the sandbox as a plain module and
loaded with `PYTEST_PLUGINS`; it imports nothing but the standard library.

Lines: `start<TAB>nodeid` and `done<TAB>nodeid<TAB>outcome` (pass, fail, error, skip).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the sandbox runs this module with the standard library only
    import pytest

LOG_NAME = "pytest-progress.log"
_outcomes: dict[str, str] = {}


def _write(*fields: str) -> None:
    folder = os.path.join(os.environ.get("ENSEMBLE_WORKSPACE", "."), ".ensemble-results")
    try:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(os.path.join(folder, LOG_NAME), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, ("\t".join(f.replace("\t", " ").replace("\n", " ") for f in fields) + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # a full or read-only disk must not fail the tests


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    _write("start", nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _outcomes[report.nodeid] = "error" if report.when != "call" else "fail"
    elif report.skipped and report.nodeid not in _outcomes:
        _outcomes[report.nodeid] = "skip"
    elif report.when == "call" and report.passed:
        _outcomes.setdefault(report.nodeid, "pass")


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    _write("done", nodeid, _outcomes.pop(nodeid, "pass"))
