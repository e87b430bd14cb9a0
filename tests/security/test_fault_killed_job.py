"""A job killed mid-run (SIGKILL: no cleanup, no finally), then run again: it resumes, with no
second pull request and no second progress comment."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine

ROOT = Path(__file__).resolve().parents[2]
# One job in its own process, as on a runner; it kills itself at `where`.
JOB = """
import json, os, signal, sys
from actions.app import handle_event
from actions.github.remote import RemoteCalls
from fakes.scripted_engine import ScriptedEngine
env, where = json.loads(sys.argv[1]), sys.argv[2]
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
engine = ScriptedEngine(before_return=die if where == "engine" else None)
if where == "after-push":
    push = RemoteCalls.push
    def push_then_die(self, *args, **kwargs):
        push(self, *args, **kwargs)
        die()
    RemoteCalls.push = push_then_die
handle_event(env, engine=engine)
"""


def killed_job(hub: Hub, env: dict[str, str], where: str) -> None:
    job = subprocess.run([sys.executable, "-c", JOB, json.dumps(env), where], cwd=ROOT, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert job.returncode == -signal.SIGKILL, job.stderr[-2000:]


def progress_comments(hub: Hub) -> list[dict]:
    return [c for c in hub.fake.comments_on(REPO, 1) if read_marker(c["body"], "progress") is not None]


@pytest.mark.parametrize("where", ["engine", "after-push"])
def test_a_job_killed_mid_run_and_run_again_resumes_without_duplicates(hub: Hub, engine: ScriptedEngine,
                                                                       where: str) -> None:
    env = hub.env("issues", hub.labeled(1), run_id=4242)
    killed_job(hub, env, where)
    assert not hub.fake.repos[REPO].pulls and len(progress_comments(hub)) == 1
    pushed = hub.fake.head_sha(REPO, "ensemble/issue-1")
    assert bool(pushed) == (where == "after-push")

    from actions.app import handle_event

    again = handle_event(env, engine=engine)  # "Re-run jobs": the same run id, the same event
    assert again.result == "pr-opened"
    assert len(hub.fake.repos[REPO].pulls) == 1 and len(progress_comments(hub)) == 1
    assert len(engine.calls) == (0 if where == "after-push" else 1)  # a pushed branch is not made again
    assert "ensemble:working" not in hub.fake.labels_on(REPO, 1)
    redelivered = hub.send("issues", hub.labeled(1))  # and the event delivered once more: nothing new
    assert redelivered.result == "exists" and len(hub.fake.repos[REPO].pulls) == 1
    assert progress_comments(hub)[0]["body"].count("- [x]") == 6
