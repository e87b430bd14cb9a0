"""The judge owns the tests: the files a candidate is judged with, whatever it wrote.

Every judged run sees the candidate's tree with the base's version of every existing test file, harness
file and test data file (common/testfiles.py) put back over it, the reproduction test as it was frozen in
round 0, and no new file that decides what the runner collects (a new `conftest.py` with hooks or collection
settings, `.pytest.ini`, `pytest.toml`) or replaces a module inside the test process (`pytest.py`, `argparse.py`,
`json/__init__.py`). The candidate's new test files run apart from the base's tests (team_judge.py), and so does a
new `conftest.py` that only defines fixtures and helpers for them (common/testfiles.py `runs_apart`): the overlay
leaves it in the tree, and the judge keeps it out of the base's tests' process like a new test file. A test, harness
or data change the task asks for (`allowed`) is the only exception, and it is shown to the user (`test_changes`).

Test data is a file in a data folder (`fixtures/`, `testdata/`, ...) and each of `data`: the files the
base's tests read or name (`judged_data`: those seen opened in the base run, and those a base test names in a
string literal), less code, manifests and lock files.

The judge owns them during the run too (`guarded`): the test process, which runs the candidate's code, cannot
change the tests, the harness, the data folders' files or the data the base's tests name (sandbox/model.py), in
the base's run as in every candidate's, so a suite that writes into such a file fails alike in both. The data
seen only in the base's traced run is left out of it: a test that writes a file and reads it back made it data
there, and would fail on every candidate's run alone.

Pure functions over paths and text: the caller reads the files.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from functools import cache

from bot.ensemble.judge.guards import task_names_change, tests_in
from bot.ensemble.workspace_files import Read
from common.languages import is_code
from common.testfiles import (
    data_named_by_tests,
    declares_only,
    harness_part,
    is_harness_path,
    is_new_harness,
    is_test_data,
    is_test_path,
    is_whole_harness,
    pytest_pythonpath,
    runs_apart,
    shadows_runner,
)


def owned_by_judge(path: str, data: Collection[str] = ()) -> bool:
    """True for files whose base version the judge runs: tests, test harness and test data."""
    return is_test_path(path) or is_harness_path(path) or is_test_data(path, data)


def judged_data(tree: Iterable[str], base: Read, traced: Collection[str] = ()) -> frozenset[str]:
    """The files at the base that its tests read (`traced`: seen opened in the base run) or name in a string
    literal (common/testfiles.py `data_named_by_tests`), less code, manifests and lock files: `data` for the guard
    and the judge. `tree` lists the base's files; `base` reads one."""
    paths = list(tree)
    texts = {p: text for p in paths if is_test_path(p) and is_code(p) and (text := base(p)) is not None}
    named = data_named_by_tests(texts, paths)
    return frozenset(p for p in {*traced, *named} if is_test_data(p, {p}))


def guarded(tree: Iterable[str], named: Collection[str]) -> list[str]:
    """The files of a judged tree (`tree` lists its paths) that its test process may not change: tests, harness and
    test data by folder, and `named`, the data the base's tests name (`judged_data` without a traced run)."""
    return sorted(p for p in tree if owned_by_judge(p, named))


def allowed_changes(task_text: str, changed: Iterable[str], base: Read, data: Collection[str] = ()) -> list[str]:
    """The changed test, harness and test data files whose change the task asks for by name
    (guards.task_names_change)."""
    return [p for p in changed if owned_by_judge(p, data) and (text := base(p)) is not None
            and task_names_change(task_text, p, tests_in(p, text), fixes=_data_alone(p, data))]


def _data_alone(path: str, data: Collection[str]) -> bool:
    """The tests' data, neither a test file nor the harness: where a bug can be, so "fix" names its change."""
    return is_test_data(path, data) and not is_test_path(path) and not is_harness_path(path)


def judged_files(changed: Iterable[str], base: Read, now: Read, frozen: Mapping[str, str] | None = None,
                 allowed: Collection[str] = (), data: Collection[str] = ()) -> dict[str, bytes | None]:
    """What a judged run puts over the candidate's tree: path -> the base's (or frozen) bytes, None to leave out.

    `changed` are the paths that differ from the base; `frozen` maps the reproduction test to its
    round-0 text; `allowed` are paths whose change the task asked for; `data` the files the base's tests
    read or name (`judged_data`).
    """
    frozen = frozen or {}
    pythonpath = cache(lambda: pytest_pythonpath(base))  # read only when the change adds a file
    overlay: dict[str, bytes | None] = {}
    for path in sorted({*changed, *frozen}):
        if path in allowed:
            continue
        want = frozen[path] if path in frozen else base(path)
        current = now(path)
        if want is None:
            if current is not None and (is_new_harness(path, current) and not runs_apart(path, current)
                                        or shadows_runner(path, pythonpath())
                                        or path in data and is_test_data(path, data)):
                overlay[path] = None  # a new file never decides how the tests run, nor what data they read
            continue
        if current != want and _owned(path, current, want, frozen, data):
            overlay[path] = want.encode()
    return overlay


def _owned(path: str, current: str | None, want: str, frozen: Mapping[str, str], data: Collection[str]) -> bool:
    """True when the judge runs the base's (or frozen) version of a file the candidate changed: not for test
    settings that only declare more (`declares_only`: a new test's marker)."""
    if path in frozen:
        return True
    if current is not None and declares_only(path, want, current):
        return False
    if is_test_path(path) or is_whole_harness(path) or is_test_data(path, data):
        return True
    return is_harness_path(path) and harness_part(path, current) != harness_part(path, want)
