"""A coder that makes the tests pass by deleting, skipping or weakening them gets no success.

The real engine (`run_task`) on the sample repository, whose test_median_even fails at the base:
the coder's only edit is an attack on that test. It is refused and undone, and the run does not
claim the task done.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.security.test_edit_guards import run

TEST_FILE = "tests/test_core.py"
ATTACKS = {
    "delete": ("def test_median_even():\n    assert median([1, 2, 3, 4]) == 2.5\n", ""),
    "skip": ("def test_median_even():", "import pytest\n\n\n@pytest.mark.skip\ndef test_median_even():"),
    "weaken": ("    assert median([1, 2, 3, 4]) == 2.5", "    assert True"),
}


def edit(search: str, replace: str) -> str:
    return f"{TEST_FILE}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE"


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_failing_test_deleted_skipped_or_weakened_is_refused_and_the_run_fails(sample: Path, attack: str) -> None:
    result, _ = run(sample, edit(*ATTACKS[attack]))
    assert not result.success
    assert any(r.startswith(f"team a: {TEST_FILE}:") for r in result.refused), result.refused
    branch_has_it = subprocess.run(["git", "rev-parse", "--verify", "-q", result.branch], cwd=sample,
                                   capture_output=True).returncode == 0
    if branch_has_it:  # nothing of the attack reached the branch
        shown = subprocess.run(["git", "show", f"{result.branch}:{TEST_FILE}"], cwd=sample, capture_output=True,
                               text=True).stdout
        assert "assert median([1, 2, 3, 4]) == 2.5" in shown and "skip" not in shown
