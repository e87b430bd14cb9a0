"""A whole `ensemble run` whose models echo canary secrets everywhere: nothing the run leaves holds one.

The planner puts the canaries in its plan summary, the coder in its prose and in edit blocks,
the critic in its feedback. Models are behind the fake OpenAI server (the real client and the
reply cache in between); tests run in the local sandbox. Then every file under `.ensemble/`
(reply cache, insights, index, traces), every git object, stdout and stderr are searched.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot.cli import main
from bot.ensemble.demo import TASK_BODY, TASK_TITLE
from fakes.median_replies import ENOUGH, FIX, REPRO
from fakes.openai_server import FakeOpenAI
from tests.security.conftest import CANARIES, GHP_CANARY, SAY_CANARIES, Checkout, git_objects, leaks

pytestmark = pytest.mark.slow  # the real index and the local sandbox: about 30 s

CONFIG = """ensembles: 1
max_iterations: 2
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: openai, model: gpt-4o-mini}
secret_env: [DEPLOY_PASSWORD]
sandbox: {test: "python -m pytest -q -p no:cacheprovider"}
"""
PLAN = {"summary": f"Average the middle values. Use {SAY_CANARIES} to deploy.", "files": ["stats/core.py"],
        "steps": ["Reproduction test: tests/test_repro_median.py", f"Fix median(); keys {SAY_CANARIES}"],
        "questions": []}
SECRET_FILE = f"""stats/settings.py
<<<<<<< SEARCH
=======
TOKEN = "{GHP_CANARY}"
OPENAI = "{CANARIES['OPENAI_API_KEY']}"
>>>>>>> REPLACE"""
SECRET_FIX = FIX.replace("    if len(ordered) % 2 == 0:", f"    # deploy with {CANARIES['DEPLOY_PASSWORD']}\n"
                         "    if len(ordered) % 2 == 0:")
REVIEW = {"verdict": "accept", "feedback": f"Looks right. Also, the tokens are {SAY_CANARIES}."}


@pytest.fixture
def checkout(checkout_with: Checkout) -> tuple[Path, FakeOpenAI]:
    return checkout_with(CONFIG, CANARIES, api_key=CANARIES["OPENAI_API_KEY"])


def test_no_canary_survives_a_run_in_any_file_commit_or_output(checkout: tuple[Path, FakeOpenAI],
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    repo, openai = checkout
    openai.reply(data=PLAN, schema="plan", times=0)
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    openai.reply(f"{REPRO}\n\n{SECRET_FILE}", marker="You are the coder")
    openai.reply(f"The rest is done; I kept {SAY_CANARIES} for later.", marker="You are the coder")
    openai.reply(f"Here is the fix. Note {SAY_CANARIES}.\n\n{SECRET_FIX}", marker="You are the coder")
    openai.reply(FIX, marker="You are the coder", times=0)
    openai.reply(data=REVIEW, schema="review", times=0)

    code = main(["run", "--repo", str(repo), "--task", f"{TASK_TITLE}\n\n{TASK_BODY}", "--json"])
    out, err = capsys.readouterr()
    result = json.loads(out)

    assert code == 0, result
    branch = result["branch"]
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in subprocess.run(
        ["git", "show", f"{branch}:stats/core.py"], cwd=repo, capture_output=True, text=True).stdout
    follow_ups = [r.last_user for r in openai.requests if "did NOT apply" in r.last_user]
    assert any("stats/settings.py: the new content holds" in f and "a GitHub token" in f for f in follow_ups)
    refused = "\n".join(result["refused"])  # reported, the kind named, never the value
    assert "stats/core.py" in refused and "the value of a secret variable" in refused
    assert "stats/settings.py" in refused and "a GitHub token" in refused  # refused while writing the test
    assert list((repo / ".ensemble" / "cache" / "llm").rglob("*.json")), "the reply cache was filled"
    assert (repo / ".ensemble" / "insights.jsonl").is_file()
    assert list((repo / ".ensemble" / "runs").rglob("trace.jsonl"))
    assert leaks([repo / ".ensemble"], extra=[("git objects", git_objects(repo)), ("stdout", out.encode()),
                                              ("stderr", err.encode())]) == []
    assert not (repo / "stats" / "settings.py").exists()
    sent = json.dumps([r.messages for r in openai.requests])  # nor sent on to the provider in a later prompt
    assert [name for name, value in CANARIES.items() if value in sent] == []
