"""The code passes ruff and `mypy --strict` on every package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["bot", "actions", "sandbox", "indexer", "common"]


def test_ruff_finds_nothing() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *PACKAGES, "fakes", "tests", "bench"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_strict_finds_nothing() -> None:
    """Typed all the way: no bare dict, no untyped def, no Any returned where a type is declared, no implicit
    re-export."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", *PACKAGES], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
