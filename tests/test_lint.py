"""The code passes ruff and mypy, as configured in pyproject.toml; the engine's core passes `mypy --strict`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["bot", "actions", "sandbox", "indexer", "common"]
# Held to `mypy --strict`: the ensemble, the model layer, retrieval, the sandbox and the shared leaf
# package. New code there is typed all the way (no bare dict, no untyped def, no Any returned where
# a type is declared).
STRICT = ["bot/ensemble", "bot/llm", "indexer", "sandbox", "common"]


def test_ruff_finds_nothing() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *PACKAGES, "tests", "bench"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_finds_nothing() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", *PACKAGES], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_strict_finds_nothing_in_the_core() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", *STRICT], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
