"""End-to-end harness: the fake GitHub, a deterministic engine that commits for real, event builders.

`Hub.send(name, payload)` writes the payload file and runs `actions.app.handle_event` with the
standard GITHUB_* variables pointing at the fake, exactly as the composite action would.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from actions.app import handle_event
from actions.context import Outcome
from bot.config import Config
from bot.ensemble.types import (
    ACCEPTED,
    MAX_ITERATIONS,
    STOPPED,
    Plan,
    Reproduction,
    Retrieved,
    RunResult,
    StopReason,
    Task,
    TestOutcome,
)
from bot.ensemble.verdict import Judgement
from tests.fakes.github_server import FakeGitHub

REPO = "octo/demo"
FIXTURES = Path(__file__).parent / "fixtures"
BUGGY = "def add(a, b):\n    return a - b\n"
CONFIG = "ensembles: 1\nmax_heal_attempts: 2\nheal:\n  workflows: [ci.yml]\n"


@dataclass
class ScriptedEngine:
    """Writes `files` on the branch as one commit per call (with the bot's trailer) and reports success.

    `before_return` runs inside the engine (e.g. to post a stop comment mid-run); `fail` makes
    the run end without a passing change (stopped for `fail_reason`); `improved` makes such a run, or a
    stopped one, keep partial work: a commit that fixes one of two tests and breaks none.
    """

    files: Callable[[int], dict[str, str]] = lambda n: {"calc.py": f"def add(a, b):\n    return a + b  # v{n}\n"}
    fail: bool = False
    before_return: Callable[[threading.Event], None] | None = None
    calls: list[Task] = field(default_factory=list)
    git_configs: list[str] = field(default_factory=list)
    improved: bool = False
    fail_reason: StopReason = MAX_ITERATIONS
    configs: list[Config] = field(default_factory=list)

    def __call__(self, repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
                 progress: Callable[[str, str, int, str], None], stop: threading.Event) -> RunResult:
        self.calls.append(task)
        self.configs.append(config)
        assert "GITHUB_TOKEN" not in env, "the engine must never see the GitHub token"
        self.git_configs.append((repo_dir / ".git" / "config").read_text())
        for phase in ("indexing", "planning", "coding", "testing", "reviewing"):
            progress("a", phase, 1, "")
        result = RunResult(run_id, task, branch=f"ensemble/{task.slug}",
                           plan=Plan("Make add() add", ("calc.py",), ("Reproduction test: tests/test_calc.py",
                                                                        "Change - to + in add()")),
                           tests_before=TestOutcome(False, ("tests/test_calc.py::test_add",), total=1),
                           reproduction=Reproduction("tests/test_calc.py", failed_before=True, passed_after=True),
                           retrieved=[Retrieved("calc.py", "search", 0.9, 1, 2, "add")],
                           usage={"calls": 3, "input_tokens": 1200, "output_tokens": 300, "cost_usd": 0.0123,
                                  "by_role": {"planner": {"calls": 1, "input_tokens": 500, "output_tokens": 100,
                                                          "cost_usd": 0.01}}})
        if self.before_return:
            self.before_return(stop)
        if stop.is_set():
            result.stop_reason = STOPPED
            return self._partial(result, repo_dir, run_id) if self.improved else result
        if self.fail:
            result.stop_reason, result.tests_after = self.fail_reason, TestOutcome(False, ("t",))
            return self._partial(result, repo_dir, run_id) if self.improved else result
        result.stop_reason, result.tests_after = ACCEPTED, TestOutcome(True, total=1)
        result.commits = [{"sha": _commit(repo_dir, result.branch, self.files(len(self.calls)), run_id),
                           "summary": "Make add() add"}]
        return result

    def _partial(self, result: RunResult, repo_dir: Path, run_id: str) -> RunResult:
        """Partial work, as the engine lands it: one of two failing tests fixed, nothing broken."""
        fixed, left = "tests/test_calc.py::test_add", "tests/test_calc.py::test_add_negative"
        result.tests_after = TestOutcome(False, (left,), total=2, results=((fixed, "pass"), (left, "fail")))
        result.judgement = Judgement(False, f"required test(s) fail: {left}", fixed=(fixed,),
                                     required_failing=(left,), per_test=True)
        result.diff = "diff --git a/calc.py b/calc.py\n"
        result.commits = [{"sha": _commit(repo_dir, result.branch, self.files(len(self.calls)), run_id),
                           "summary": "Make add() add (partial)"}]
        return result


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def _commit(repo_dir: Path, branch: str, files: dict[str, str], run_id: str) -> str:
    """Commit `files` on `branch` (continuing it when it exists) without moving the clone's HEAD."""
    base = subprocess.run(["git", "rev-parse", "--verify", "-q", f"refs/heads/{branch}"], cwd=repo_dir,
                          capture_output=True, text=True).stdout.strip() or _git(repo_dir, "rev-parse", "HEAD")
    work = repo_dir.parent / f"{repo_dir.name}-engine-wt"
    _git(repo_dir, "worktree", "add", "-q", "--detach", str(work), base)
    for name, text in files.items():
        (work / name).write_text(text)
    _git(work, "add", "-A")
    _git(work, "commit", "-q", "-m", f"Make add() add\n\nEnsemble-Run: {run_id}\nEnsemble-Model: fake/fake/fake")
    sha = _git(work, "rev-parse", "HEAD")
    _git(repo_dir, "worktree", "remove", "--force", str(work))
    _git(repo_dir, "update-ref", f"refs/heads/{branch}", sha)
    return sha


def fixture_payload(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


class Hub:
    """The fake GitHub plus helpers that play GitHub's part: deliver events, run CI."""

    def __init__(self, fake: FakeGitHub, tmp: Path, engine: ScriptedEngine):
        self.fake = fake
        self.tmp = tmp
        self.engine = engine
        self.run_ids = iter(range(5000, 6000))
        self.event_files = itertools.count()
        self.extra_env: dict[str, str] = {}
        self.outputs = tmp / "github_output"
        self.summary = tmp / "step_summary"

    def env(self, name: str, payload: dict[str, Any], run_id: int | None = None) -> dict[str, str]:
        path = self.tmp / f"event-{name}-{next(self.event_files)}.json"  # unique when jobs run in threads
        path.write_text(json.dumps(payload))
        return {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path), "GITHUB_REPOSITORY": REPO,
                "GITHUB_TOKEN": self.fake.token, "GITHUB_API_URL": self.fake.api_url,
                "GITHUB_SERVER_URL": self.fake.server_url, "GITHUB_RUN_ID": str(run_id or next(self.run_ids)),
                "GITHUB_OUTPUT": str(self.outputs), "GITHUB_STEP_SUMMARY": str(self.summary),
                "ENSEMBLE_WORKDIR": str(self.tmp / "work"), "ENSEMBLE_RUNS_DIR": str(self.tmp / "runs"),
                "ENSEMBLE_STOP_POLL_S": "0.05", **self.extra_env}

    def send(self, name: str, payload: dict[str, Any], run_id: int | None = None) -> Outcome:
        return handle_event(self.env(name, payload, run_id), engine=self.engine)

    # -- payloads shaped like GitHub's (from @octokit/webhooks-examples) ---------------------
    def _base(self, name: str, sender: str) -> dict[str, Any]:
        payload = copy.deepcopy(fixture_payload(name))
        payload["repository"] |= {"full_name": REPO, "name": REPO.split("/")[1]}
        if REPO in self.fake.repos:  # GitHub names the default branch in every payload
            payload["repository"]["default_branch"] = self.fake.repos[REPO].default_branch
        else:  # the caller names a repository of its own: without the fixture's branch, the bot asks GitHub
            payload["repository"].pop("default_branch", None)
        payload["sender"] |= {"login": sender, "type": "Bot" if sender.endswith("[bot]") else "User"}
        return payload

    def labeled(self, number: int, sender: str = "alice", label: str = "ensemble") -> dict[str, Any]:
        payload = self._base("issues", sender)
        issue = self.fake.repos[REPO].issues[number]
        payload["issue"] |= {"number": number, "title": issue["title"], "body": issue["body"]}
        payload["label"] |= {"name": label}
        return payload

    def opened(self, title: str, body: str, sender: str = "alice", labels: tuple[str, ...] = ()) -> dict[str, Any]:
        """A new issue and its `issues.opened` payload."""
        issue = self.fake.add_issue(REPO, title, body, user=sender, labels=labels)
        payload = self._base("issues", sender) | {"action": "opened"}
        payload.pop("label")
        payload["issue"] |= {k: issue[k] for k in ("number", "title", "body", "user", "labels", "state", "updated_at")}
        return payload

    def comment(self, number: int, body: str, sender: str = "alice") -> dict[str, Any]:
        created = self.fake.add_comment(REPO, number, body, user=sender)
        payload = self._base("issue_comment", sender)
        issue = self.fake.issue_json(self.fake.repos[REPO], self.fake.repos[REPO].issues[number])
        payload["issue"] = {k: issue[k] for k in ("number", "title", "body", "user", "labels", "state")}
        if "pull_request" in issue:
            payload["issue"]["pull_request"] = issue["pull_request"]
        payload["comment"] |= {"id": created["id"], "body": body, "user": created["user"]}
        return payload

    def review(self, pr: int, state: str, body: str, sender: str = "alice",
               inline: tuple[tuple[str, int, str], ...] = ()) -> dict[str, Any]:
        review = self.fake.add_review(REPO, pr, state.upper(), body, user=sender, inline=inline)
        payload = self._base("pull_request_review", sender)
        pull = self.fake.pull_json(self.fake.repos[REPO], self.fake.repos[REPO].pulls[pr])
        payload["pull_request"] |= {k: pull[k] for k in ("number", "title", "head", "base", "draft", "state")}
        payload["review"] |= {"id": review["id"], "state": state.lower(), "body": body, "commit_id": review["commit_id"]}
        return payload

    def workflow_run(self, run: dict[str, Any]) -> dict[str, Any]:
        payload = self._base("workflow_run", "bob")
        current = self.fake.run_json(self.fake.repos[REPO], self.fake.repos[REPO].runs[run["id"]])
        payload["workflow_run"] |= {k: current[k] for k in ("id", "head_branch", "head_sha", "conclusion", "status",
                                                             "run_attempt", "check_suite_id", "event")}
        return payload

    def check_suite(self, run: dict[str, Any]) -> dict[str, Any]:
        payload = self._base("check_suite", "bob")
        payload["check_suite"] |= {"id": run["check_suite_id"], "head_branch": run["head_branch"],
                                   "head_sha": run["head_sha"], "conclusion": run["conclusion"]}
        return payload

    # -- playing CI ------------------------------------------------------------------------
    def ci(self, conclusion: str, log: str = "", branch: str = "ensemble/issue-1") -> dict[str, Any]:
        """A completed CI run on the branch's current head."""
        sha = self.fake.head_sha(REPO, branch)
        return self.fake.add_run(REPO, branch, sha, conclusion, (("test", conclusion, log),))

    def outputs_text(self) -> str:
        return self.outputs.read_text() if self.outputs.exists() else ""


@pytest.fixture
def engine() -> ScriptedEngine:
    return ScriptedEngine()


@pytest.fixture
def hub(tmp_path: Path, engine: ScriptedEngine) -> Iterator[Hub]:
    with github_hub(tmp_path, engine) as made:
        yield made


@contextlib.contextmanager
def github_hub(tmp_path: Path, engine: ScriptedEngine) -> Iterator[Hub]:
    """The fake GitHub with repository octo/demo (a bug in calc.py), its CI workflow, issue #1 and
    people: alice (write), mona (admin), trina (triage)."""
    with FakeGitHub(tmp_path / "github") as fake:
        fake.add_repo(REPO, {"calc.py": BUGGY, "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n"
                             "    assert add(2, 3) == 5\n", ".github/ensemble.yml": CONFIG})
        fake.add_workflow(REPO, "ci.yml")
        fake.add_issue(REPO, "add() subtracts", "add(2, 3) returns -1; it should return 5.", user="alice")
        for login, role in (("alice", "write"), ("mona", "admin"), ("trina", "triage")):
            fake.set_permission(REPO, login, role)
        yield Hub(fake, tmp_path, engine)
