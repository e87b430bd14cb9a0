"""An edit block to an absolute path outside the repository, end to end through `ensemble run`.

It used to be re-rooted into the repository (`/tmp/x.py` committed as `tmp/x.py`); it is refused
with the reason, nothing is written there, and nothing named `tmp/…` reaches any commit.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.ensemble.demo import TASK_BODY, TASK_TITLE
from fakes.median_replies import ENOUGH, FIX, REPRO
from fakes.openai_server import FakeOpenAI
from tests.security.conftest import RUN_CONFIG, Checkout

pytestmark = pytest.mark.slow  # the real index and the local sandbox

PLAN = {"summary": "Average the middle values.", "files": ["stats/core.py"],
        "steps": ["Reproduction test: tests/test_repro_median.py", "Fix median()"], "questions": []}


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder under /tmp the run must not write into (removed afterwards whatever happened)."""
    folder = Path("/tmp") / f"ensemble-planted-{secrets.token_hex(4)}"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def checkout(checkout_with: Checkout) -> tuple[Path, FakeOpenAI]:
    return checkout_with(RUN_CONFIG, {"OPENAI_API_KEY": "sk-fake-key-for-the-fake-server-0002"})


def test_an_edit_to_an_absolute_path_outside_the_repository_is_refused_and_never_committed(
        checkout: tuple[Path, FakeOpenAI], outside: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, openai = checkout
    planted = outside / "planted.py"
    openai.reply(data=PLAN, schema="plan", times=0)
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    openai.reply(f"{REPRO}\n\n{planted}\n<<<<<<< SEARCH\n=======\nplanted = 1\n>>>>>>> REPLACE\n",
                 marker="You are the coder")
    openai.reply("The test is written; the other file is not needed.", marker="You are the coder")
    openai.reply(FIX, marker="You are the coder", times=0)
    openai.reply(data={"verdict": "accept", "feedback": "Correct."}, schema="review", times=0)

    code = main(["run", "--repo", str(repo), "--task", f"{TASK_TITLE}\n\n{TASK_BODY}", "--json"])
    result = json.loads(capsys.readouterr().out)

    assert code == 0, result
    follow_ups = "\n".join(r.last_user for r in openai.requests)
    assert f"'{planted}' is an absolute path outside the repository" in follow_ups  # the coder is told why
    assert not planted.exists() and not outside.exists()
    committed = subprocess.run(["git", "log", "--all", "--name-only", "--format="], cwd=repo, capture_output=True,
                               text=True, check=True).stdout.split()
    assert "stats/core.py" in committed
    assert [p for p in committed if p.startswith("tmp/") or p.endswith("planted.py")] == []
    assert not list(repo.rglob("planted.py"))
