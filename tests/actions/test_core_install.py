"""The core install for real: a fresh venv without the engine extra answers `/ensemble help`.

The package is installed from a copy of its sources with pip (dependencies resolved as a user's
pip would, from the pip cache where it can), then `ensemble handle-event` of that venv answers
events from the fake GitHub running in this process. An event that runs the engine stops with
`needs-engine` and writes nothing but the 👀 reaction.
"""

from __future__ import annotations

import importlib.util
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes.github_hub import REPO
from fakes.github_server import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("bench_action_start", ROOT / "bench" / "action_start.py")
action_start = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(action_start)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("core")
    source = action_start.copy_sources(tmp / "src")
    # no bytecode compiled at install (a third of its time); what the test runs compiles on import
    action_start.build_venv(tmp / "venv", source, engine=False, env=action_start.base_env() | {"PIP_NO_COMPILE": "1"})
    return tmp / "venv"


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(tmp_path / "github") as fake:
        action_start.populate(fake)
        yield fake


def test_the_core_venv_has_no_torch_and_no_sentence_transformers(core_venv: Path) -> None:
    for module in ("torch", "sentence_transformers", "faiss", "numpy"):
        found = subprocess.run([str(core_venv / "bin" / "python"), "-c", f"import {module}"], capture_output=True)
        assert found.returncode != 0, f"{module} is importable in the core venv"


def test_the_core_venv_answers_help_with_eyes_and_the_help_text(core_venv: Path, fake: FakeGitHub,
                                                                  tmp_path: Path) -> None:
    seconds, proc, outputs = action_start.handle_comment(core_venv, fake, tmp_path, "/ensemble help",
                                                         action_start.base_env())
    assert proc.returncode == 0, proc.stderr
    assert action_start.replied_with_help(fake)
    assert [r["content"] for r in fake.repos[REPO].reactions] == ["eyes"]
    assert "replied" in outputs.read_text()
    assert seconds < 60


def test_the_core_venv_defers_a_run_to_the_engine_install_without_writing(core_venv: Path, fake: FakeGitHub,
                                                                           tmp_path: Path) -> None:
    _, proc, outputs = action_start.handle_comment(core_venv, fake, tmp_path, "/ensemble run",
                                                   action_start.base_env())
    assert proc.returncode == 0, proc.stderr
    assert "needs-engine" in outputs.read_text()
    assert "pip install 'ensemble-bot[engine]'" in proc.stderr
    assert [c["body"] for c in fake.comments_on(REPO, 1)] == ["/ensemble run"]  # no progress comment, no reply
    assert fake.repos[REPO].issues[1]["labels"] == []


def test_the_core_venv_says_how_to_install_the_engine(core_venv: Path, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    proc = subprocess.run([str(core_venv / "bin" / "ensemble"), "index", "--repo", str(tmp_path)],
                          capture_output=True, text=True, env=action_start.base_env())
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert "the engine extra is not installed" in proc.stderr and "pip install 'ensemble-bot[engine]'" in proc.stderr
