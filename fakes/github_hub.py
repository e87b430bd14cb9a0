"""The fake GitHub with a buggy repository, and GitHub's part played: events delivered, CI runs reported.

`Hub.send(name, payload)` writes the payload file and runs `actions.app.handle_event` with the
standard GITHUB_* variables pointing at the fake, exactly as the composite action would. Payloads
start from GitHub's own examples (`webhooks/`, from @octokit/webhooks-examples).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import itertools
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from actions.app import handle_event
from actions.context import Outcome
from actions.engine import Updater, Verifier
from fakes.github_server import FakeGitHub
from fakes.scripted_engine import ScriptedEngine

if TYPE_CHECKING:
    from github import Github

REPO = "octo/demo"
WEBHOOKS = Path(__file__).parent / "webhooks"
BUGGY = "def add(a, b):\n    return a - b\n"
CONFIG = "ensembles: 1\nmax_heal_attempts: 2\nheal:\n  workflows: [ci.yml]\n"


def webhook_payload(name: str) -> dict[str, Any]:
    """GitHub's example payload of the event `name`."""
    return json.loads((WEBHOOKS / f"{name}.json").read_text())


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
        self.updater: Updater | None = None  # None: the Action's own, in a child process
        self.verifier: Verifier | None = None  # None: the Action's own, in a child process
        self.pushes = itertools.count()

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
        return handle_event(self.env(name, payload, run_id), engine=self.engine, updater=self.updater,
                            verifier=self.verifier)

    # -- payloads shaped like GitHub's (from @octokit/webhooks-examples) ---------------------
    def _base(self, name: str, sender: str) -> dict[str, Any]:
        payload = copy.deepcopy(webhook_payload(name))
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

    def pull_request(self, number: int, action: str = "opened") -> dict[str, Any]:
        """The `pull_request` payload of PR #number (its author is the sender)."""
        pull = self.fake.pull_json(self.fake.repos[REPO], self.fake.repos[REPO].pulls[number])
        payload = self._base("pull_request", pull["user"]["login"]) | {"action": action, "number": number}
        payload["pull_request"] |= {k: pull[k] for k in ("number", "title", "body", "user", "head", "base", "draft",
                                                         "state")}
        return payload

    def workflow_run(self, run: dict[str, Any]) -> dict[str, Any]:
        payload = self._base("workflow_run", "bob")
        current = self.fake.run_json(self.fake.repos[REPO], self.fake.repos[REPO].runs[run["id"]])
        payload["workflow_run"] |= {k: current[k] for k in ("id", "head_branch", "head_sha", "conclusion", "status",
                                                             "run_attempt", "check_suite_id", "event", "name")}
        return payload

    def push(self, before: str, after: str, sender: str = "alice", branch: str = "main") -> dict[str, Any]:
        """The `push` payload of `before`..`after` on `branch`."""
        payload = self._base("push", sender)
        payload |= {"ref": f"refs/heads/{branch}", "before": before, "after": after}
        payload["head_commit"] = payload["commits"][0] | {"id": after}
        payload["commits"] = [payload["head_commit"]]
        return payload

    def check_suite(self, run: dict[str, Any]) -> dict[str, Any]:
        payload = self._base("check_suite", "bob")
        payload["check_suite"] |= {"id": run["check_suite_id"], "head_branch": run["head_branch"],
                                   "head_sha": run["head_sha"], "conclusion": run["conclusion"]}
        return payload

    # -- playing people ----------------------------------------------------------------------
    def commit(self, branch: str, files: dict[str, str], message: str = "a person's change",
               author: tuple[str, str] = ("Alice", "alice@example.com")) -> tuple[str, str]:
        """A person's commit of `files` on `branch`, pushed over git's smart HTTP as anyone would; (before, after)."""
        work = self.tmp / f"person-{next(self.pushes)}"
        auth = "http.extraheader=AUTHORIZATION: basic " + base64.b64encode(f"x:{self.fake.token}".encode()).decode()
        _git(self.tmp, "-c", auth, "clone", "-q", "-b", branch, f"{self.fake.server_url}/{REPO}.git", str(work))
        before = _git(work, "rev-parse", "HEAD")
        for name, text in files.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(text)
        _git(work, "add", "-A")
        who = {f"GIT_{role}_{part}": value for role in ("AUTHOR", "COMMITTER")
               for part, value in (("NAME", author[0]), ("EMAIL", author[1]))}
        _git(work, "commit", "-qm", message, env=who)
        _git(work, "-c", auth, "push", "-q", "origin", branch)
        return before, _git(work, "rev-parse", "HEAD")

    def propose(self, branch: str, files: dict[str, str | None], title: str, body: str = "",
                author: str = "alice") -> int:
        """A person's pull request: `files` (None deletes one) committed on a new `branch` of the repository, pushed
        over git's smart HTTP, and opened into the default branch; its number."""
        work = self.tmp / f"person-{next(self.pushes)}"
        auth = "http.extraheader=AUTHORIZATION: basic " + base64.b64encode(f"x:{self.fake.token}".encode()).decode()
        _git(self.tmp, "-c", auth, "clone", "-q", f"{self.fake.server_url}/{REPO}.git", str(work))
        _git(work, "checkout", "-q", "-b", branch)
        for name, text in files.items():
            if text is None:
                (work / name).unlink()
                continue
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(text)
        _git(work, "add", "-A")
        who = {f"GIT_{role}_{part}": value for role in ("AUTHOR", "COMMITTER")
               for part, value in (("NAME", author), ("EMAIL", f"{author}@example.com"))}
        _git(work, "commit", "-qm", title, env=who)
        _git(work, "-c", auth, "push", "-q", "origin", branch)
        return self.fake.add_pull(REPO, branch, title, body, user=author)

    # -- playing CI ------------------------------------------------------------------------
    def ci(self, conclusion: str, log: str = "", branch: str = "ensemble/issue-1") -> dict[str, Any]:
        """A completed CI run on the branch's current head."""
        sha = self.fake.head_sha(REPO, branch)
        return self.fake.add_run(REPO, branch, sha, conclusion, (("test", conclusion, log),))

    def github_client(self) -> Github:
        """PyGithub on the fake, as the bot makes it (for what GitHub itself would do: render markdown, say)."""
        from common.github import github_client

        return github_client(self.fake.api_url, self.fake.token)

    def outputs_text(self) -> str:
        return self.outputs.read_text() if self.outputs.exists() else ""


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


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    full = {**os.environ, **env} if env else None
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=full).stdout.strip()
