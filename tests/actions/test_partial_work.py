"""Partial work on GitHub: a run stopped by a limit with some tests fixed opens a draft PR labelled
`ensemble:partial` that says what is done and what is left; otherwise nothing is published and the thread
says why. The deadline defaults to the job's `timeout-minutes` less a margin."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from actions.deadline import run_deadline
from actions.engine import ensemble_engine
from bot.config import Config
from bot.ensemble.demo import SAMPLE_FILES
from bot.ensemble.runner import Components
from bot.ensemble.types import BUDGET, Progress, RunResult, Task
from bot.errors import BudgetExceeded, ConfigError
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.github_hub import REPO, Hub, github_hub
from fakes.github_server import FakeGitHub
from fakes.median_replies import BAD_FIX, ENOUGH, FIX
from fakes.scripted_engine import ScriptedEngine
from tests.ensemble.conftest import ScriptedModels

PARTIAL = "ensemble:partial"
TWO_TESTS = SAMPLE_FILES["tests/test_core.py"] + "\n\ndef test_mean_empty():\n    assert mean([]) == 0\n"
ISSUE = ("median() and mean() are wrong", "test_median_even fails: median([1, 2, 3, 4]) returns 3, expected 2.5.\n"
         "test_mean_empty fails: mean([]) raises, expected 0.")
PLAN = {"summary": "Fix median() for even counts and mean() of an empty list.", "files": ["stats/core.py"],
        "steps": ["Average the two middle values in median()", "Return 0 for an empty list in mean()"],
        "questions": []}


class RealEngine:
    """The real engine (`ensemble_engine`: run_task, the local forge, the judge) with scripted models and pytest
    on the host; the coder's replies are `coder`."""

    def __init__(self, coder: list[object]):
        self.coder = coder

    def __call__(self, repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
                 progress: Progress, stop: threading.Event) -> RunResult:
        script = {("planner", "explore"): [ENOUGH], ("planner", "plan"): [PLAN], ("coder", None): self.coder}
        parts = Components(models=ScriptedModels(script), retriever=FileRetriever(repo_dir), runner=HostPytest())
        return ensemble_engine(repo_dir, task, config, env, run_id=run_id, progress=progress, stop=stop,
                               components=parts)


@contextlib.contextmanager
def stats_hub(tmp_path: Path, engine: object, files: Mapping[str, str] | None = None) -> Iterator[Hub]:
    """The fake GitHub with the stats sample (two failing tests) as octo/demo and issue #1 naming both."""
    with FakeGitHub(tmp_path / "github") as fake:
        fake.add_repo(REPO, {**SAMPLE_FILES, "tests/test_core.py": TWO_TESTS, ".github/ensemble.yml": "ensembles: 1\n",
                             **(files or {})})
        fake.add_issue(REPO, *ISSUE, user="alice")
        fake.set_permission(REPO, "alice", "write")
        yield Hub(fake, tmp_path, engine)  # type: ignore[arg-type]


def test_a_run_stopped_by_its_budget_with_one_of_two_tests_fixed_opens_a_draft_partial_pr(tmp_path: Path) -> None:
    with stats_hub(tmp_path, RealEngine([FIX, BudgetExceeded("the next call would pass $2.00")])) as hub:
        outcome = hub.send("issues", hub.labeled(1))
        assert outcome.result == "partial-pr-opened", outcome.message
        pull = hub.fake.repos[REPO].pulls[outcome.pr_number or 0]
        assert pull["draft"] and PARTIAL in hub.fake.labels_on(REPO, outcome.pr_number or 0)
        body = hub.fake.repos[REPO].issues[outcome.pr_number or 0]["body"]
        assert body.startswith("Part of #1") and "Closes #1" not in body
        done, left = body.split("**Done**", 1)[1].split("**Left**", 1)
        assert "test_median_even" in done and "test_mean_empty" not in done
        assert "test_mean_empty" in left.split("##", 1)[0] and "the model budget ran out" in body
        assert "(ordered[middle - 1] + ordered[middle]) / 2" in hub.fake.file_at(REPO, "ensemble/issue-1",
                                                                                  "stats/core.py")
        progress = hub.fake.comments_on(REPO, 1)[-1]["body"]
        assert "partial work" in progress and PARTIAL in progress
        assert "ensemble:needs-human" not in hub.fake.labels_on(REPO, 1)


def test_nothing_is_published_when_no_change_fixed_a_test_without_breaking_one(tmp_path: Path) -> None:
    with stats_hub(tmp_path, RealEngine([BAD_FIX, BudgetExceeded("the next call would pass $2.00")])) as hub:
        outcome = hub.send("issues", hub.labeled(1))
        assert outcome.result == "failed" and not hub.fake.repos[REPO].pulls
        assert hub.fake.head_sha(REPO, "ensemble/issue-1") is None
        progress = hub.fake.comments_on(REPO, 1)[-1]["body"]
        assert "Nothing was published: the best change broke tests" in progress and "test_median_odd" in progress


def test_a_stop_after_an_improvement_opens_a_partial_pr(hub: Hub, engine: ScriptedEngine) -> None:
    def human_says_stop(stop: threading.Event) -> None:
        hub.fake.add_comment(REPO, 1, "/ensemble stop", user="mona")
        assert stop.wait(5), "the stop watcher never noticed the comment"

    engine.before_return, engine.improved = human_says_stop, True
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "partial-pr-opened", outcome.message
    body = hub.fake.repos[REPO].issues[outcome.pr_number or 0]["body"]
    assert "a stop was requested" in body and "test_add_negative" in body.split("**Left**", 1)[1]
    assert PARTIAL in hub.fake.labels_on(REPO, outcome.pr_number or 0)


def test_a_stop_without_an_improvement_pushes_nothing_and_says_why(hub: Hub, engine: ScriptedEngine) -> None:
    def human_says_stop(stop: threading.Event) -> None:
        hub.fake.add_comment(REPO, 1, "/ensemble stop", user="mona")
        assert stop.wait(5)

    engine.before_return = human_says_stop
    assert hub.send("issues", hub.labeled(1)).result == "stopped"
    assert any("nothing was pushed: no change was made" in c["body"] for c in hub.fake.comments_on(REPO, 1))


def test_a_retry_continues_the_partial_pr_and_takes_the_label_off_when_it_passes(hub: Hub,
                                                                                    engine: ScriptedEngine) -> None:
    engine.fail, engine.fail_reason, engine.improved = True, BUDGET, True
    first = hub.send("issues", hub.labeled(1))
    assert first.result == "partial-pr-opened"
    partial_head = hub.fake.head_sha(REPO, "ensemble/issue-1")
    engine.fail, engine.improved = False, False
    again = hub.send("issue_comment", hub.comment(1, "/ensemble run"))  # continues a partial PR
    assert again.result == "pr-opened", again.message
    assert again.pr_number == first.pr_number and len(hub.fake.repos[REPO].pulls) == 1
    assert PARTIAL not in hub.fake.labels_on(REPO, first.pr_number or 0)
    assert hub.fake.repos[REPO].issues[first.pr_number or 0]["body"].startswith("Closes #1")
    messages = hub.fake.commit_messages(REPO, "ensemble/issue-1")
    assert len(messages) == 2 and hub.fake.head_sha(REPO, "ensemble/issue-1") != partial_head
    assert hub.send("issue_comment", hub.comment(1, "/ensemble run")).result == "exists"  # a finished one is not


def test_the_deadline_defaults_to_the_jobs_timeout_less_a_margin(tmp_path: Path) -> None:
    workflow = "jobs:\n  ensemble:\n    runs-on: ubuntu-latest\n    timeout-minutes: 40\n    steps: []\n"
    engine = ScriptedEngine()
    with stats_hub(tmp_path, engine, {".github/workflows/ensemble.yml": workflow}) as hub:
        hub.extra_env = {"GITHUB_WORKFLOW_REF": f"{REPO}/.github/workflows/ensemble.yml@refs/heads/main",
                         "GITHUB_JOB": "ensemble"}
        hub.send("issues", hub.labeled(1))
        assert engine.configs[-1].deadline_minutes == 30  # 40 less a quarter
        hub.extra_env["ENSEMBLE_JOB_TIMEOUT_MINUTES"] = "120"  # the action's job-timeout-minutes input wins
        hub.send("issue_comment", hub.comment(1, "/ensemble retry"))
        assert engine.configs[-1].deadline_minutes == 105
    assert run_deadline(360) == 345 and run_deadline(8) == 4


def test_a_configured_deadline_is_kept_and_a_bad_job_timeout_is_a_clear_error(tmp_path: Path) -> None:
    engine = ScriptedEngine()
    with github_hub(tmp_path, engine) as hub:
        hub.send("issues", hub.labeled(1))
        assert engine.configs[-1].deadline_minutes == 345  # no workflow to read: GitHub's 360 minutes
        hub.extra_env["ENSEMBLE_JOB_TIMEOUT_MINUTES"] = "an hour"
        with pytest.raises(ConfigError, match="ENSEMBLE_JOB_TIMEOUT_MINUTES.*'an hour' is not a positive number"):
            hub.send("issue_comment", hub.comment(1, "/ensemble retry"))
        assert "job-timeout-minutes" in hub.fake.comments_on(REPO, 1)[-1]["body"]
    with stats_hub(tmp_path / "own", engine, {".github/ensemble.yml": "deadline_minutes: 12\n"}) as hub:
        hub.extra_env["ENSEMBLE_JOB_TIMEOUT_MINUTES"] = "120"
        hub.send("issues", hub.labeled(1))
        assert engine.configs[-1].deadline_minutes == 12
