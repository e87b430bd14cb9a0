"""The code passes ruff and mypy, as configured in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["bot", "actions", "sandbox", "indexer", "common"]


def test_ruff_finds_nothing() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *PACKAGES, "tests", "bench"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_finds_nothing() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", *PACKAGES], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
