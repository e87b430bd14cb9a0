"""End to end: `ensemble run` on the sample repo, models behind the fake OpenAI/Gemini servers, tests in Docker."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.ensemble.coder import HIDDEN_CHECK_ROLE
from bot.ensemble.demo import TASK_BODY, TASK_TITLE, create_sample_repo
from fakes.gemini_server import FakeGemini
from fakes.median_replies import ACCEPT, ENOUGH, FIX, FIX_AFTER_SPECIAL, PLAN, REPRO, SPECIAL
from fakes.openai_server import FakeOpenAI

pytestmark = [pytest.mark.docker, pytest.mark.slow]
OPENAI_KEY = "sk-e2e-openai-key-0123456789abcdef"
GEMINI_KEY = "AIza-e2e-gemini-key-0123456789abcdefgh"
CONFIG = """ensembles: 1
max_iterations: 3
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: gemini, model: gemini-2.5-flash}
sandbox: {image: "ensemble-base:bookworm", timeout_s: 120, require_docker: true}
"""


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenAI, FakeGemini]]:
    with FakeOpenAI(api_key=OPENAI_KEY) as openai, FakeGemini(api_key=GEMINI_KEY) as gemini:
        monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", openai.url)
        monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", gemini.url)
        yield openai, gemini


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    repo = create_sample_repo(tmp_path / "stats")
    (repo / ".github").mkdir()
    (repo / ".github" / "ensemble.yml").write_text(CONFIG)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "config"], cwd=repo, check=True)
    (repo / "stats" / "core.py").write_text((repo / "stats" / "core.py").read_text() + "# user's work\n")
    (repo / "notes.txt").write_text("untracked\n")
    return repo


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def run_cli(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    code = main(["run", "--repo", str(repo), "--task", f"{TASK_TITLE}\n\n{TASK_BODY}", "--json", "--no-cache"])
    return code, json.loads(capsys.readouterr().out)


HIDDEN = ("tests/test_repro_median_hidden.py\n<<<<<<< SEARCH\n=======\nfrom stats import median\n\n\n"
          "def test_six():\n    assert median([6, 1, 5, 2, 4, 3]) == 3.5\n>>>>>>> REPLACE")


def test_seeded_bug_is_fixed_on_a_branch_and_the_dirty_checkout_is_untouched(
        servers: tuple[FakeOpenAI, FakeGemini], checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    openai, gemini = servers
    openai.reply(data=PLAN, schema="plan", times=0)  # the first matching rule answers: schema rule first
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    openai.reply(HIDDEN, marker=HIDDEN_CHECK_ROLE, times=0)  # the hidden check, asked apart
    openai.reply("I think the fix is obvious.", marker="You are the coder")  # garbage: no edit blocks
    openai.reply(REPRO, marker="You are the coder")
    openai.reply(SPECIAL, marker="You are the coder")  # the test's values written in: the hidden check is asked
    openai.reply(FIX_AFTER_SPECIAL, marker="You are the coder", times=0)
    gemini.reply(data=ACCEPT, schema="review", times=0)
    status_before = git(checkout, "status", "--porcelain")
    code, result = run_cli(checkout, capsys)
    assert code == 0, result
    assert result["success"] and result["stop_reason"] == "accepted"
    assert result["tests_before"]["passed"] is False and result["tests_after"]["passed"] is True
    assert result["reproduction"]["failed_before"] is True and result["reproduction"]["passed_after"] is True
    branch = result["branch"]
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in git(checkout, "show", f"{branch}:stats/core.py")
    assert "median([4, 1, 3, 2]) == 2.5" in git(checkout, "show", f"{branch}:tests/test_repro_median.py")
    assert git(checkout, "status", "--porcelain") == status_before
    assert (checkout / "stats" / "core.py").read_text().endswith("# user's work\n")
    # the repro (twice), the special case, the hidden check (which refused it), the fix
    assert result["usage"]["by_role"]["coder"]["calls"] == 5
    assert any("a check the coder never saw, `tests/test_repro_median_hidden.py`" in line and ": passes" in line
               for line in result["corroboration"]), "\n".join(result["corroboration"])
    assert any("the reply holds no edit blocks" in r.last_user for r in openai.requests)  # garbage went back


def test_with_review_off_the_critic_is_never_asked_and_the_judged_change_is_delivered(
        servers: tuple[FakeOpenAI, FakeGemini], checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    openai, gemini = servers
    config = checkout / ".github" / "ensemble.yml"
    config.write_text(config.read_text() + "review: off\n")
    openai.reply(data=PLAN, schema="plan", times=0)
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    openai.reply(REPRO, marker="You are the coder")
    openai.reply(FIX, marker="You are the coder", times=0)
    gemini.reply(data=ACCEPT, schema="review", times=0)
    code, result = run_cli(checkout, capsys)
    assert code == 0 and result["success"], result
    assert result["stop_reason"] == "tests_pass" and "the judge's verdict is final" in result["stop_detail"]
    assert "not reviewed" in result["decision"]
    assert gemini.requests == [] and "critic" not in result["usage"]["by_role"]
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in git(checkout, "show", f"{result['branch']}:stats/core.py")


def test_planner_garbage_ends_with_a_clear_report(servers: tuple[FakeOpenAI, FakeGemini], checkout: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    openai, _ = servers
    openai.reply("this is not JSON at all", schema="plan", times=0)
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    code, result = run_cli(checkout, capsys)
    assert code == 1 and not result["success"]
    assert result["stop_reason"] == "crashed"
    assert "planner" in result["decision"] and "gpt-4o" in result["decision"]
    assert not git(checkout, "branch", "--list", "ensemble/*")
