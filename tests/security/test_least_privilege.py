"""Least privilege around the model: the process that talks to models holds no GitHub credential, and
the working copy it works in cannot push.

Proved from outside, as an attacker on the runner would: the fake model server traces each request's
connection to the process at its other end (/proc/net/tcp and /proc/<pid>/fd) and reads that process's
environment from /proc/<pid>/environ; the fake GitHub does the same for its API requests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from actions.app import handle_event
from actions.engine_process import ChildEngine
from bot.ensemble.demo import SAMPLE_FILES, TASK_BODY, TASK_TITLE
from fakes.github_hub import REPO as DEMO_REPO
from fakes.github_hub import Hub
from fakes.github_server import FakeGitHub
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO
from fakes.openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
REPO = "octo/stats"
OPENAI_KEY = "sk-least-privilege-openai-key-0123456789"
CONFIG = """ensembles: 1
max_iterations: 3
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: openai, model: gpt-4o-mini}
sandbox: {image: "ensemble-base:bookworm", timeout_s: 120, require_docker: true}
"""


def credentials(token: str) -> dict[str, str]:
    """GitHub's and the Actions runner's credentials as a job's step holds them."""
    return {"GITHUB_TOKEN": token, "GH_TOKEN": token, "INPUT_GITHUB-TOKEN": token,
            "ACTIONS_RUNTIME_TOKEN": "eyJhbGciOiJSUzI1NiJ9.runtime-token-4d1c9a.sig",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-request-token-77b2e0c5a9",
            "INPUT_APP-PRIVATE-KEY": "-----BEGIN RSA PRIVATE KEY-----\nMIIEapp-key-5f3e\n-----END RSA PRIVATE KEY-----"}


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Hub, FakeOpenAI]]:
    with FakeGitHub(tmp_path / "github") as fake, FakeOpenAI(api_key=OPENAI_KEY, trace_peers=True) as openai:
        fake.add_repo(REPO, {**SAMPLE_FILES, ".github/ensemble.yml": CONFIG})
        fake.add_issue(REPO, TASK_TITLE, TASK_BODY, user="alice")
        fake.set_permission(REPO, "alice", "write")
        fake.trace_peers = True
        hub = Hub(fake, tmp_path, engine=None)  # type: ignore[arg-type]
        hub.extra_env = {"GITHUB_REPOSITORY": REPO}
        yield hub, openai


@pytest.mark.docker
@pytest.mark.slow
def test_the_process_that_talks_to_the_models_holds_no_github_credential(stack: tuple[Hub, FakeOpenAI]) -> None:
    hub, openai = stack
    openai.reply(data=PLAN, schema="plan", times=0)
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    openai.reply(REPRO, marker="You are the coder")
    openai.reply(FIX, marker="You are the coder", times=0)
    openai.reply(data=ACCEPT, schema="review", times=0)
    secrets = credentials(hub.fake.token)
    env = {**os.environ, **hub.env("issues", _labeled(hub)), **secrets, "PYTHONPATH": str(ROOT),
           "OPENAI_API_KEY": OPENAI_KEY, "INPUT_OPENAI-API-KEY": OPENAI_KEY, "OPENAI_BASE_URL": openai.url}
    # `ensemble handle-event` as the action runs it: its own process, the job's whole environment
    done = subprocess.run([sys.executable, "-m", "bot.cli", "handle-event"], env=env, cwd=hub.tmp,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "result<<" in hub.outputs_text() and "pr-opened" in hub.outputs_text()

    handlers = {r.peer.pid: r.peer.environ for r in hub.fake.requests if r.peer is not None}
    engines = {r.peer.pid: r.peer.environ for r in openai.requests if r.peer is not None}
    assert len(engines) == 1 and len(openai.requests) >= 4, "every model request is traced to one process"
    # the handler talks to GitHub, and so may the git it starts to push (when its request is seen before it exits)
    assert handlers and not set(handlers) & set(engines), "GitHub and the models see different processes"
    engine = next(iter(engines.values()))
    assert engine is not None
    # the handler holds the token, and only the handler's side talks to GitHub
    assert any(env is not None and env.get("GITHUB_TOKEN") == hub.fake.token for env in handlers.values()), handlers
    assert engine["OPENAI_API_KEY"] == OPENAI_KEY  # the engine holds the model key it needs
    leaked = [name for name in engine if name.startswith(("GITHUB_", "GH_", "ACTIONS_", "INPUT_"))]
    assert not leaked
    everything = "\n".join(f"{name}={value}" for name, value in engine.items())
    assert not [name for name, value in secrets.items() if value in everything]


def test_the_engines_working_copy_stores_no_credential_and_cannot_push(tmp_path: Path) -> None:
    with FakeGitHub(tmp_path / "github") as fake:
        fake.add_repo(DEMO_REPO, {"calc.py": "def add(a, b):\n    return a - b\n"})
        fake.add_issue(DEMO_REPO, "add() subtracts", "Make add() add.", user="alice")
        fake.set_permission(DEMO_REPO, "alice", "write")
        hub = Hub(fake, tmp_path, engine=None)  # type: ignore[arg-type]
        env = {**os.environ, **hub.env("issues", hub.labeled(1)), **credentials(fake.token)}
        reports: list[str] = []
        engine = ChildEngine(entry="tests.actions.child_engines:pushing")
        outcome = handle_event(env, engine=_recording(engine, reports), planner=None)
        assert outcome.result == "failed", outcome.message  # its run made no commits
        report = dict(line.split("=", 1) for line in reports)
        assert report["push_status"] != "0", "a push from the engine's working copy went through"
        assert "could not read Username" in report["push_said"]  # git had nothing to authenticate with
        assert fake.head_sha(DEMO_REPO, "ensemble/issue-1") is None
        config = report["git_config"]
        assert "extraheader" not in config.lower() and "credential" not in config.lower()
        assert fake.token not in config and report["remote"] == f"{fake.server_url}/{DEMO_REPO}.git"


def _recording(engine: ChildEngine, reports: list[str]):
    """`engine`, with the detail of each progress report it sends kept in `reports`."""
    def run(repo_dir, task, config, env, *, run_id, progress, stop):  # noqa: ANN001, ANN202
        def keep(team: str, phase: str, number: int, detail: str) -> None:
            reports.append(detail)
            progress(team, phase, number, detail)
        return engine(repo_dir, task, config, env, run_id=run_id, progress=keep, stop=stop)
    return run


def _labeled(hub: Hub) -> dict:
    payload = hub._base("issues", "alice")
    payload["repository"] |= {"full_name": REPO, "name": "stats"}
    issue = hub.fake.repos[REPO].issues[1]
    payload["issue"] |= {"number": 1, "title": issue["title"], "body": issue["body"]}
    payload["label"] |= {"name": "ensemble"}
    return payload
