"""End-to-end harness of the Action's tests: the fake GitHub (`fakes.github_hub`) with a scripted engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes.github_hub import Hub, github_hub
from fakes.scripted_engine import ScriptedEngine


@pytest.fixture
def engine() -> ScriptedEngine:
    return ScriptedEngine()


@pytest.fixture
def hub(tmp_path: Path, engine: ScriptedEngine) -> Iterator[Hub]:
    with github_hub(tmp_path, engine) as made:
        yield made
