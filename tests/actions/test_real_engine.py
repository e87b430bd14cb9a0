"""End to end with the real engine: a labelled issue on the fake GitHub becomes a draft PR whose tests pass.

The models sit behind the fake OpenAI/Gemini servers; retrieval, the Docker sandbox and git are real.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from actions.app import handle_event
from bot.ensemble.demo import SAMPLE_FILES, TASK_BODY, TASK_TITLE
from fakes.gemini_server import FakeGemini
from fakes.github_hub import Hub
from fakes.github_server import FakeGitHub
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO
from fakes.openai_server import FakeOpenAI

pytestmark = [pytest.mark.docker, pytest.mark.slow]
REPO = "octo/stats"
OPENAI_KEY = "sk-actions-openai-key-0123456789abcdef"
GEMINI_KEY = "AIza-actions-gemini-key-0123456789abcdefgh"
CONFIG = """ensembles: 1
max_iterations: 3
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: gemini, model: gemini-2.5-flash}
sandbox: {image: "ensemble-base:bookworm", timeout_s: 120, require_docker: true}
"""


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Hub, FakeOpenAI, FakeGemini]]:
    with FakeGitHub(tmp_path / "github") as fake, FakeOpenAI(api_key=OPENAI_KEY) as openai, \
            FakeGemini(api_key=GEMINI_KEY) as gemini:
        fake.add_repo(REPO, {**SAMPLE_FILES, ".github/ensemble.yml": CONFIG})
        fake.add_issue(REPO, TASK_TITLE, TASK_BODY, user="alice")
        fake.set_permission(REPO, "alice", "write")
        hub = Hub(fake, tmp_path, engine=None)  # type: ignore[arg-type]
        hub.extra_env = {"GITHUB_REPOSITORY": REPO, "OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": openai.url,
                         "GEMINI_API_KEY": GEMINI_KEY, "GOOGLE_GEMINI_BASE_URL": gemini.url}
        yield hub, openai, gemini


def test_a_labelled_issue_becomes_a_draft_pr_with_passing_tests(stack: tuple[Hub, FakeOpenAI, FakeGemini]) -> None:
    hub, openai, gemini = stack
    openai.reply(data=PLAN, schema="plan", times=0)
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    openai.reply(REPRO, marker="You are the coder")
    openai.reply(FIX, marker="You are the coder", times=0)
    gemini.reply(data=ACCEPT, schema="review", times=0)
    payload = _labeled(hub)
    # the real engine, in its own process as in production (no engine argument), with the job's whole environment
    outcome = handle_event({**os.environ, **hub.env("issues", payload)})
    assert outcome.result == "pr-opened", outcome.message
    body = hub.fake.repos[REPO].issues[outcome.pr_number]["body"]
    assert body.startswith("Closes #1") and "- after: pass" in body and "fails before the fix: yes" in body
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in hub.fake.file_at(REPO, "ensemble/issue-1", "stats/core.py")
    assert all("Ensemble-Run:" in m for m in hub.fake.commit_messages(REPO, "ensemble/issue-1"))
    assert hub.fake.token not in "".join(r.last_user for r in openai.requests)
    _assert_traced(hub.tmp / "runs", secrets=(hub.fake.token, OPENAI_KEY, GEMINI_KEY))


def _assert_traced(runs: Path, secrets: tuple[str, ...]) -> None:
    """The event's trace holds the GitHub and git work, the engine's the index, sandbox and commits."""
    traces = {p.parent.name: [json.loads(line) for line in p.read_text().splitlines()] for p in runs.glob("*/trace.jsonl")}
    event = next(spans for spans in traces.values() if any(s["name"] == "ensemble.event" for s in spans))
    names = {s["name"] for s in event}
    assert {"ensemble.event", "ensemble.engine", "git.clone", "git.push", "github.api"} <= names
    engine_run = next(s for s in event if s["name"] == "ensemble.engine")["attributes"]["engine_run"]
    top = next(s for s in event if s["name"] == "ensemble.event")["attributes"]
    assert top["result"] == "pr-opened" and top["pr_number"]
    engine = {s["name"]: s for s in traces[engine_run]}  # the engine's own trace, linked by its run id
    assert {"ensemble.run", "index.open", "index.search", "sandbox.prepare", "sandbox.run", "git.worktree",
            "git.commit", "git.publish"} <= set(engine)
    runs_seen = [s["attributes"] for s in traces[engine_run] if s["name"] == "sandbox.run"]
    # the base's run and the fix's, each with its exit status (a judged run's known-failing check fails each: the
    # verdict is the body's, above)
    assert len(runs_seen) >= 2 and all(isinstance(a["exit_code"], int) for a in runs_seen)
    assert all(a["backend"] == "docker" and a["image"] for a in runs_seen)
    text = "".join(p.read_text() for p in runs.glob("*/trace.jsonl"))
    assert not [s for s in secrets if s in text]


def _labeled(hub: Hub) -> dict:
    payload = hub._base("issues", "alice")
    payload["repository"] |= {"full_name": REPO, "name": "stats"}
    issue = hub.fake.repos[REPO].issues[1]
    payload["issue"] |= {"number": 1, "title": issue["title"], "body": issue["body"]}
    payload["label"] |= {"name": "ensemble"}
    return payload
