"""The demo: a small sample repository with a real bug and a failing test, and a scripted transcript."""

from __future__ import annotations

from pathlib import Path

from common.git import git

TRANSCRIPT = Path(__file__).with_name("transcript.jsonl")
TASK_TITLE = "median() is wrong for an even number of values"
TASK_BODY = ("stats.median([1, 2, 3, 4]) returns 3, but the median of an even number of values is the mean "
             "of the two middle values (2.5). tests/test_core.py::test_median_even fails.")

SAMPLE_FILES = {
    "README.md": "# stats\n\nTiny statistics helpers.\n",
    "pytest.ini": "[pytest]\ntestpaths = tests\n",
    "stats/__init__.py": '"""Tiny statistics helpers."""\n\nfrom stats.core import mean, median\n\n'
                         '__all__ = ["mean", "median"]\n',
    "stats/core.py": '''"""Averages of lists of numbers."""


def mean(values):
    """The arithmetic mean of `values`."""
    if not values:
        raise ValueError("mean of an empty list")
    return sum(values) / len(values)


def median(values):
    """The middle value of `values`; the mean of the two middle values when their count is even."""
    if not values:
        raise ValueError("median of an empty list")
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle]
''',
    "tests/test_core.py": '''from stats import mean, median


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_median_odd():
    assert median([3, 1, 2]) == 2


def test_median_even():
    assert median([1, 2, 3, 4]) == 2.5
''',
}


def create_sample_repo(path: Path) -> Path:
    """Write the sample repository at `path` and commit it on `main`."""
    return commit_sample(path, SAMPLE_FILES, "Sample: stats helpers")


def commit_sample(path: Path, files: dict[str, str], message: str) -> Path:
    """Write `files` at `path` and commit them on `main` (the demos' sample repositories)."""
    path.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(content, encoding="utf-8")
    identity = ["-c", "user.name=ensemble demo", "-c", "user.email=demo@example.com"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], [*identity, "commit", "-q", "-m", message]):
        git(path, *args)
    return path
