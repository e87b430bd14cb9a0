"""The judge owns the tests: the files a candidate is judged with, whatever it wrote.

Every judged run sees the candidate's tree with the base's version of every existing test file and
harness file (common/testfiles.py) put back over it, the reproduction test as it was frozen in round 0,
and no new file that decides what the runner collects (a new `conftest.py`, a `pytest.py` shadowing the
runner). The candidate's new test files run beside them. A test or harness change the task asks for
(`allowed`) is the only exception, and it is shown to the user (`test_changes`).

Pure functions over paths and text: the caller reads the files.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping

from bot.ensemble.guards import task_names_change, tests_in
from common.testfiles import harness_part, is_harness_path, is_test_path, is_whole_harness, shadows_runner

Read = Callable[[str], "str | None"]


def owned_by_judge(path: str) -> bool:
    """True for files whose base version the judge runs: tests and test harness."""
    return is_test_path(path) or is_harness_path(path)


def allowed_changes(task_text: str, changed: Iterable[str], base: Read) -> list[str]:
    """The changed test and harness files whose change the task asks for by name (guards.task_names_change)."""
    return [p for p in changed if owned_by_judge(p) and (text := base(p)) is not None
            and task_names_change(task_text, p, tests_in(p, text))]


def judged_files(changed: Iterable[str], base: Read, now: Read, frozen: Mapping[str, str] | None = None,
                 allowed: Collection[str] = ()) -> dict[str, bytes | None]:
    """What a judged run puts over the candidate's tree: path -> the base's (or frozen) bytes, None to leave out.

    `changed` are the paths that differ from the base; `frozen` maps the reproduction test to its
    round-0 text; `allowed` are paths whose change the task asked for.
    """
    frozen = frozen or {}
    overlay: dict[str, bytes | None] = {}
    for path in sorted({*changed, *frozen}):
        if path in allowed:
            continue
        want = frozen[path] if path in frozen else base(path)
        current = now(path)
        if want is None:
            if current is not None and (is_whole_harness(path) or shadows_runner(path)):
                overlay[path] = None  # a new harness file never decides how the tests run
            continue
        if current == want:
            continue
        if path in frozen or is_test_path(path) or is_whole_harness(path) or is_harness_path(path) and harness_part(path, current) != harness_part(path, want):
            overlay[path] = want.encode()
    return overlay


def diff_by_file(diff: str) -> dict[str, str]:
    """A unified diff (`git diff`) cut into each file's part, by the file's path after the change."""
    parts: dict[str, str] = {}
    for chunk in ("\n" + diff).split("\ndiff --git ")[1:]:
        header = chunk.split("\n", 1)[0]
        path = header.rsplit(" b/", 1)[-1] if " b/" in header else header
        parts[path] = "diff --git " + chunk.rstrip("\n")
    return parts
