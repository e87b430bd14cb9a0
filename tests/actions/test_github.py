"""GitHub (actions/github) against the fake GitHub, through the real PyGithub and real git."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import formatdate
from pathlib import Path

import pytest

from actions.github import GitHubError, GitHubRepo
from fakes.github_server import FakeGitHub

REPO = "octo/demo"


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(tmp_path / "github") as server:
        server.add_repo(REPO, {"app.py": "def add(a, b):\n    return a - b\n"})
        server.add_issue(REPO, "add() subtracts", "It should add.")
        yield server


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def github(fake: FakeGitHub, waits: list[float]) -> GitHubRepo:
    return GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url, max_wait_s=10, sleep=waits.append)


def commit(clone: Path, message: str) -> str:
    (clone / "app.py").write_text("def add(a, b):\n    return a + b\n" + f"# {message}\n")
    subprocess.run(["git", "commit", "-qam", message], cwd=clone, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()


def test_clone_and_push_keep_the_token_out_of_git_config(github: GitHubRepo, fake: FakeGitHub, tmp_path: Path) -> None:
    clone = github.clone(tmp_path / "clone")
    sha = commit(clone, "fix add\n\nEnsemble-Run: r1")
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    assert fake.head_sha(REPO, "ensemble/issue-1") == sha
    git_dir = "\n".join(p.read_text(errors="replace") for p in (clone / ".git").rglob("*") if p.is_file()
                        and p.stat().st_size < 100_000 and "objects" not in p.parts)
    assert fake.token not in git_dir
    assert "x-access-token" not in (clone / ".git" / "config").read_text()


def test_push_with_a_stale_lease_is_refused(github: GitHubRepo, fake: FakeGitHub, tmp_path: Path) -> None:
    clone = github.clone(tmp_path / "clone")
    first = commit(clone, "one")
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    commit(clone, "two")
    with pytest.raises(GitHubError, match="could not push ensemble/issue-1"):
        github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")  # the branch exists now: lease says it must not
    assert fake.head_sha(REPO, "ensemble/issue-1") == first


def test_a_second_draft_pr_for_the_same_branch_updates_the_first(github: GitHubRepo, fake: FakeGitHub,
                                                                 tmp_path: Path) -> None:
    clone = github.clone(tmp_path / "clone")
    commit(clone, "fix")
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    first = github.open_draft_pull("ensemble/issue-1", "main", "Fix add", "Closes #1\n\nv1")
    second = github.open_draft_pull("ensemble/issue-1", "main", "Fix add", "Closes #1\n\nv2")
    assert first.number == second.number and first.draft
    assert len(fake.repos[REPO].pulls) == 1 and github.pull(first.number).body.endswith("v2")


def test_permissions_use_the_legacy_mapping(github: GitHubRepo, fake: FakeGitHub) -> None:
    for login, role in (("ann", "admin"), ("max", "maintain"), ("wes", "write"), ("tri", "triage"), ("rea", "read")):
        fake.set_permission(REPO, login, role)
    assert [github.permission(u) for u in ("ann", "max", "wes", "tri", "rea", "stranger")] == \
        ["admin", "write", "write", "read", "read", "none"]


def test_secondary_rate_limit_is_waited_out(github: GitHubRepo, fake: FakeGitHub, waits: list[float]) -> None:
    fake.fail_next(retry_after=3, times=2, method="POST")
    comment_id = github.comment(1, "hello")
    assert waits == [3.0, 3.0]
    assert [c.id for c in github.comments(1)] == [comment_id]
    assert [r.status for r in fake.calls("POST", r"/issues/1/comments$")] == [403, 403, 201]


def test_rate_limit_beyond_the_budget_is_a_clear_error(github: GitHubRepo, fake: FakeGitHub) -> None:
    fake.fail_next(retry_after=8, times=5)
    with pytest.raises(GitHubError, match="rate-limited.*run again later"):
        github.issue(1)


def test_retry_after_as_an_http_date_is_waited_out_and_5xx_reads_are_tried_again(
        github: GitHubRepo, fake: FakeGitHub, waits: list[float]) -> None:
    fake.fail_next(retry_after=formatdate(time.time() + 4, usegmt=True), path_pattern=r"/issues/1$")
    fake.fail_next(status=502, message="Bad Gateway", retry_after=None, times=2, path_pattern=r"/issues/1$")
    assert github.issue(1)[0] == "add() subtracts"
    assert 2 <= waits[0] <= 4 and waits[1:] == [1.0, 2.0]


def test_a_nonsense_retry_after_is_ignored_for_github_s_default_wait(github: GitHubRepo, fake: FakeGitHub,
                                                                    waits: list[float]) -> None:
    fake.fail_next(retry_after="soon", path_pattern=r"/issues/1$")
    with pytest.raises(GitHubError, match="rate-limited.*run again later"):  # 60 s is past this client's 10 s budget
        github.issue(1)
    assert waits == []


def test_not_found_is_a_clear_error(github: GitHubRepo) -> None:
    with pytest.raises(GitHubError, match="read issue #99: 404"):
        github.issue(99)
    assert github.branch_head("nope") is None


def test_actions_logs_rerun_and_dispatch(github: GitHubRepo, fake: FakeGitHub, tmp_path: Path) -> None:
    clone = github.clone(tmp_path / "clone")
    sha = commit(clone, "fix")
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    run = fake.add_run(REPO, "ensemble/issue-1", sha, "failure",
                       (("lint", "success", "ok"), ("test", "failure", "E   AssertionError: 1 != 2")))
    assert github.run(run["id"]).conclusion == "failure"
    assert github.failed_job_logs(run["id"]) == [("test", "E   AssertionError: 1 != 2")]
    assert github.rerun_failed_jobs(run["id"])
    assert fake.repos[REPO].reruns == [run["id"]]
    github.dispatch("ci.yml", "ensemble/issue-1")
    assert fake.repos[REPO].dispatches[0]["ref"] == "ensemble/issue-1"
    assert github.checks_green(sha)[0] is False


def test_checks_green_reads_every_app_and_ignores_the_bots_own_running_job(fake: FakeGitHub,
                                                                            github: GitHubRepo) -> None:
    sha = fake.head_sha(REPO, "main") or ""
    assert github.checks_green(sha) == (False, f"no checks have run on {sha[:7]}, so nothing has tested it")
    fake.add_run(REPO, "main", sha, "success", (("test", "success", "ok"),))
    own = fake.add_run(REPO, "main", sha, "success", (("ensemble", "success", ""),), workflow="ensemble.yml")
    job = next(j for j in fake.repos[REPO].jobs.values() if j["run_id"] == own["id"])
    job.update(status="in_progress", conclusion=None)  # the job asking is still running
    green, why = github.checks_green(sha)
    assert not green and "1 checks on" in why and "have not finished (ensemble)" in why
    assert github.checks_green(sha, ignore_run=str(own["id"])) == (True, f"all 1 checks on {sha[:7]} are green")


def test_a_poll_for_new_comments_is_conditional_and_a_new_comment_breaks_the_tag(github: GitHubRepo,
                                                                                 fake: FakeGitHub) -> None:
    since = datetime.now(UTC) - timedelta(minutes=5)
    fake.add_comment(REPO, 1, "first", user="alice")
    first, tag = github.comments_since(1, since)
    assert [c.body for c in first or []] == ["first"] and tag
    assert github.comments_since(1, since, tag) == (None, tag)  # nothing new: 304 Not Modified
    fake.add_comment(REPO, 1, "/ensemble stop", user="mona")
    later, new_tag = github.comments_since(1, since, tag)
    assert [c.body for c in later or []] == ["first", "/ensemble stop"] and new_tag != tag
    assert [r.status for r in fake.calls("GET", r"/issues/1/comments$")] == [200, 304, 200]


def test_new_comments_that_fill_more_than_a_page_are_all_read_and_keep_no_tag(github: GitHubRepo,
                                                                              fake: FakeGitHub) -> None:
    since = datetime.now(UTC) - timedelta(minutes=5)
    for n in range(101):  # a new comment lands on the last page while the first one stays the same
        fake.add_comment(REPO, 1, f"comment {n}", user="alice")
    found, tag = github.comments_since(1, since)
    assert len(found or []) == 101 and tag == ""


def test_an_installation_token_is_never_asked_who_it_is(github: GitHubRepo, fake: FakeGitHub) -> None:
    assert github.whoami() is None  # GITHUB_TOKEN and App tokens (ghs_...) get 403 from /user
    assert not fake.calls("GET", r"^/user$")


def test_the_default_branch_named_by_the_event_is_not_read_again(fake: FakeGitHub) -> None:
    github = GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url, default_branch="main")
    assert github.default_branch() == "main" and not fake.calls("GET", r"^/repos/octo/demo$")
    unknown = GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url)
    assert unknown.default_branch() == unknown.default_branch() == "main"
    assert len(fake.calls("GET", r"^/repos/octo/demo$")) == 1  # read once per event when the payload has none


def test_a_pull_request_is_read_once_per_event_and_follows_the_bots_own_push(github: GitHubRepo, fake: FakeGitHub,
                                                                            tmp_path: Path) -> None:
    clone = github.clone(tmp_path / "clone")
    commit(clone, "fix")
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    number = github.open_draft_pull("ensemble/issue-1", "main", "Fix add", "Closes #1").number
    before = github.pull(number)
    assert github.pull(number) == before
    later = commit(clone, "fix again")
    github.push(clone, "ensemble/issue-1", expected=before.head_sha, source="HEAD")
    assert github.pull(number).head_sha == later == fake.head_sha(REPO, "ensemble/issue-1")
    assert len(fake.calls("GET", rf"/pulls/{number}$")) == 1
    github.update_pull_body(number, "Closes #1\n\nv2")  # the bot's edit: read afresh
    assert github.pull(number).body.endswith("v2") and len(fake.calls("GET", rf"/pulls/{number}$")) == 2
