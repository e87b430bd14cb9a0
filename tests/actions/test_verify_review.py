"""End to end: `verify: {review: on}` adds the critic's line-tied findings to a verification, as one review that only
comments; the merge base's config decides; a token that may not write check runs still gets the report comment.

The critic is the config's model behind the fake OpenAI server (real client, real wire protocol); the tests run with
pytest on the host (fakes/engine_parts.py), since this is about what the critic's answer becomes on GitHub.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from bot.config import Config
from bot.ensemble.runner import Components
from bot.ensemble.types import Progress
from bot.ensemble.verify import VerifyJob, VerifyResult, verify_pull
from fakes.engine_parts import HostPytest
from fakes.github_hub import REPO, Hub
from fakes.github_server import FakeGitHub
from fakes.openai_server import FakeOpenAI
from fakes.scripted_engine import ScriptedEngine
from tests.actions.verify_world import BOT, CALC, CASES, TESTS

KEY = "sk-verify-review-key-0123456789abcdef"
CONFIG = "verify: {review: on}\nmodels:\n  critic: {provider: openai, model: gpt-4o-mini}\n"
FIXED = CALC.replace("def add(a, b):\n    return a - b", "def add(a, b):\n    if b < 0:\n        return a\n    return a + b")


def host_verifier(repo_dir: Path, job: VerifyJob, config: Config, env: Mapping[str, str], *, run_id: str,
                  progress: Progress, stop: threading.Event) -> VerifyResult:
    """The engine's verification with pytest on the host; its models are the config's (the fake OpenAI server)."""
    return verify_pull(repo_dir, job, config, env, Components(runner=HostPytest(), progress=progress, stop=stop),
                       run_id=run_id)


@pytest.fixture
def reviewed(tmp_path: Path) -> Iterator[tuple[Hub, FakeOpenAI, int]]:
    with FakeGitHub(tmp_path / "github") as fake, FakeOpenAI(api_key=KEY) as openai:
        fake.add_repo(REPO, {"calc.py": CALC, "tests/test_calc.py": TESTS, "data/cases.json": CASES,
                             ".github/ensemble.yml": CONFIG})
        fake.set_permission(REPO, "alice", "write")
        hub = Hub(fake, tmp_path, ScriptedEngine())
        hub.verifier = host_verifier
        hub.extra_env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": openai.url}
        yield hub, openai, hub.propose("fix-add", {"calc.py": FIXED}, "Fix add", author="carol")


def test_the_critics_findings_on_added_lines_become_one_review_that_only_comments(
        reviewed: tuple[Hub, FakeOpenAI, int]) -> None:
    hub, openai, pr = reviewed
    openai.reply(data={"findings": [
        {"path": "calc.py", "line": 5, "comment": "a negative `b` is dropped: add(2, -1) returns 2, cc @octo"},
        {"path": "calc.py", "line": 1, "comment": "the docstring is fine"},  # a line the pull request did not add
        {"path": "elsewhere.py", "line": 3, "comment": "not in this pull request"}]}, schema="findings")
    outcome = hub.send("issue_comment", hub.comment(pr, "/ensemble verify"))
    assert outcome.result == "verified", outcome.message
    assert openai.count(schema="findings") == 1 and len(openai.requests) == 1
    assert "calc.py" in openai.requests[0].last_user and "what the tests prove" in openai.requests[0].last_user
    reviews = [r for r in hub.fake.repos[REPO].reviews.values() if r["user"]["login"] == BOT]
    assert [r["state"] for r in reviews] == ["COMMENTED"]  # never APPROVED or CHANGES_REQUESTED
    inline = [c for c in hub.fake.repos[REPO].review_comments.values() if c["pull_request_review_id"] == reviews[0]["id"]]
    assert [(c["path"], c["line"]) for c in inline] == [("calc.py", 5)]
    assert "add(2, -1) returns 2" in inline[0]["body"] and "@octo" not in inline[0]["body"]
    report = next(c["body"] for c in hub.fake.comments_on(REPO, pr) if "<!-- ensemble:verify" in c["body"])
    assert "#### The critic's review" in report and "1 model call" in report
    assert [c.body["event"] for c in hub.fake.calls("POST", r"/pulls/\d+/reviews$")] == ["COMMENT"]


def test_the_merge_bases_config_decides_not_the_pull_requests(reviewed: tuple[Hub, FakeOpenAI, int]) -> None:
    hub, openai, _ = reviewed
    openai.reply(data={"findings": []}, schema="findings", times=0)
    quiet = hub.propose("quiet", {"calc.py": FIXED, ".github/ensemble.yml": "verify: {review: off}\n"}, "Quiet",
                        author="carol")
    assert hub.send("issue_comment", hub.comment(quiet, "/ensemble verify")).result == "verified"
    assert openai.count(schema="findings") == 1  # its own edit to the config changed nothing
    hub.commit("main", {".github/ensemble.yml": "verify: {review: off}\n"})  # the maintainers turn it off
    later = hub.propose("later", {"calc.py": FIXED}, "Later", author="carol")
    assert hub.send("issue_comment", hub.comment(later, "/ensemble verify")).result == "verified"
    assert openai.count(schema="findings") == 1  # no model call for a pull request on the new base
    assert not [r for r in hub.fake.repos[REPO].reviews.values() if r["user"]["login"] == BOT]  # no findings: no review


def test_a_token_that_may_not_write_checks_still_posts_the_report(reviewed: tuple[Hub, FakeOpenAI, int]) -> None:
    hub, openai, pr = reviewed
    openai.reply(data={"findings": []}, schema="findings")
    hub.fake.fail_next(403, "Resource not accessible by integration", retry_after=None, method="POST",
                       path_pattern=r"/check-runs$", times=2)
    outcome = hub.send("issue_comment", hub.comment(pr, "/ensemble verify"))
    assert outcome.result == "verified", outcome.message
    assert [c for c in hub.fake.comments_on(REPO, pr) if "### ensemble verify: Proven" in c["body"]]
    assert not hub.fake.repos[REPO].check_runs
