"""The event's GraphQL snapshot: one request answers the first questions; whatever it cannot give is read over REST."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from actions.github import GitHubRepo
from actions.github.snapshot import SnapshotPlan, parse_snapshot
from fakes.github_hub import REPO, Hub
from fakes.github_server import FakeGitHub

CONFIG = ".github/ensemble.yml"
PLAN = SnapshotPlan(number=1, login="alice", branch="ensemble/issue-1", config=CONFIG, ref="main")


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(tmp_path / "github") as server:
        server.add_repo(REPO, {"app.py": "x = 1\n", CONFIG: "ensembles: 1\n"})
        server.add_issue(REPO, "add() subtracts", "It should add.", labels=("ensemble",))
        for login, role in (("alice", "write"), ("alice2", "admin"), ("mona", "maintain"), ("trina", "triage")):
            server.set_permission(REPO, login, role)
        server.add_comment(REPO, 1, "/ensemble run", user="alice")
        server.add_comment(REPO, 1, "working on it", user="github-actions[bot]")
        server.add_comment(REPO, 1, "from a deleted account", user="ghost")
        yield server


def repo(fake: FakeGitHub, plan: SnapshotPlan | None = PLAN) -> GitHubRepo:
    github = GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url, max_wait_s=10, sleep=lambda s: None,
                        default_branch="main")
    if plan is not None:
        github.expect(plan)
    return github


def snapshots(fake: FakeGitHub) -> int:
    return sum(1 for r in fake.calls("POST", r"graphql$") if "EventSnapshot" in r.body["query"])


def rest_reads(fake: FakeGitHub) -> list[str]:
    return [r.path for r in fake.requests if r.method == "GET"]


def ask_everything(github: GitHubRepo) -> tuple[object, ...]:
    return (github.permission("alice"), github.read_file(CONFIG, "main"), github.issue(1), github.comments(1),
            github.find_pull("ensemble/issue-1"), github.branch_head("ensemble/issue-1"))


def test_one_snapshot_answers_every_first_question_as_rest_would(fake: FakeGitHub) -> None:
    through_rest = ask_everything(repo(fake, None))
    fake.requests.clear()
    assert ask_everything(repo(fake)) == through_rest
    assert snapshots(fake) == 1 and len(fake.requests) == 1  # the snapshot, and no REST read at all
    logins = [c.login for c in through_rest[3]]  # type: ignore[attr-defined]
    assert logins == ["alice", "github-actions[bot]", "ghost"]  # a Bot's `[bot]`, REST's ghost for a deleted user


def test_nothing_is_asked_before_a_question_the_snapshot_answers(fake: FakeGitHub) -> None:
    github = repo(fake)
    github.default_branch()
    assert github.read_file("README.md", "main") is None  # not in the snapshot: a REST read of its own
    assert snapshots(fake) == 0
    github.issue(1)
    github.comments(1)
    assert snapshots(fake) == 1 and not fake.calls("GET", r"/issues/1")


@pytest.mark.parametrize(("login", "legacy", "from_rest"), [
    ("alice", "write", False), ("alice2", "admin", False), ("mona", "write", False),  # MAINTAIN reads as write
    ("trina", "read", True),  # TRIAGE grants nothing: REST answers it
    ("nobody", "none", True)])  # not listed (as org base-permission members are not): REST answers it
def test_permissions_map_onto_the_legacy_values(fake: FakeGitHub, login: str, legacy: str, from_rest: bool) -> None:
    github = repo(fake, SnapshotPlan(number=1, login=login))
    assert github.permission(login) == legacy
    assert bool(fake.calls("GET", rf"/collaborators/{login}/permission$")) == from_rest
    assert snapshots(fake) == 1


def test_a_login_is_matched_exactly_not_by_the_query_s_substring() -> None:
    edges = [{"permission": "ADMIN", "node": {"login": "alice2"}}, {"permission": "READ", "node": {"login": "Alice"}}]
    answer = {"data": {"repository": {"collaborators": {"pageInfo": {"hasNextPage": False}, "edges": edges}}}}
    assert parse_snapshot(answer, SnapshotPlan(login="alice"), REPO).granted == {}
    assert parse_snapshot(answer, SnapshotPlan(login="alice2"), REPO).granted == {"alice2": "admin"}


def test_collaborators_refused_to_a_token_without_push_access_fall_back_to_rest(fake: FakeGitHub) -> None:
    fake.graphql_errors["collaborators"] = ("FORBIDDEN", "You do not have permission to view repository collaborators.")
    github = repo(fake)
    assert github.permission("alice") == "write"
    assert len(fake.calls("GET", r"/collaborators/alice/permission$")) == 1
    assert github.issue(1)[0] == "add() subtracts" and github.read_file(CONFIG, "main") == "ensembles: 1\n"
    assert snapshots(fake) == 1 and rest_reads(fake) == ["/repos/octo/demo/collaborators/alice/permission"]


def test_a_truncated_config_is_read_over_rest(fake: FakeGitHub) -> None:
    fake.graphql_blob_limit = 5
    github = repo(fake)
    assert github.read_file(CONFIG, "main") == "ensembles: 1\n"
    assert len(fake.calls("GET", r"/contents/\.github/ensemble\.yml$")) == 1
    assert github.comments(1) and not fake.calls("GET", r"/issues/1/comments$")


def test_a_thread_of_more_than_a_hundred_comments_is_read_over_rest(fake: FakeGitHub) -> None:
    for i in range(100):
        fake.add_comment(REPO, 1, f"comment {i}", user="trina")
    github = repo(fake)
    assert len(github.comments(1)) == 103
    assert fake.calls("GET", r"/issues/1/comments$")  # every page, over REST
    assert github.issue(1)[2] == ["ensemble"] and not fake.calls("GET", r"/issues/1$")  # the rest came whole


def test_a_server_without_a_field_refuses_the_document_and_everything_is_read_over_rest(fake: FakeGitHub) -> None:
    through_rest = ask_everything(repo(fake, None))
    fake.requests.clear()
    fake.graphql_missing.add("issueOrPullRequest")  # an older Enterprise Server
    assert ask_everything(repo(fake)) == through_rest
    assert snapshots(fake) == 1 and len(rest_reads(fake)) == 6


def test_a_failed_snapshot_request_leaves_every_question_to_rest(fake: FakeGitHub) -> None:
    through_rest = ask_everything(repo(fake, None))
    fake.requests.clear()
    fake.fail_next(502, "Bad Gateway", retry_after=None, times=4, path_pattern=r"graphql$")  # the first try and 3 more
    assert ask_everything(repo(fake)) == through_rest
    assert snapshots(fake) == 4 and len(rest_reads(fake)) == 6


def test_the_branch_head_and_open_pull_request_are_answered_once(fake: FakeGitHub, tmp_path: Path) -> None:
    github = repo(fake)
    assert github.find_pull("ensemble/issue-1") is None and github.branch_head("ensemble/issue-1") is None
    clone = github.clone(tmp_path / "clone")
    (clone / "app.py").write_text("x = 2\n")
    from common.git import git

    git(clone, "commit", "-qam", "change")
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    assert github.branch_head("ensemble/issue-1") == fake.head_sha(REPO, "ensemble/issue-1")  # read again
    assert github.find_pull("ensemble/issue-1") is None
    assert len(fake.calls("GET", r"/git/ref/heads/ensemble/issue-1$")) == 1 and len(fake.calls("GET", r"/pulls$")) == 1


def test_a_pull_request_event_reads_the_pull_request_its_thread_and_its_branch_head(fake: FakeGitHub,
                                                                                  tmp_path: Path) -> None:
    rest = repo(fake, None)
    clone = rest.clone(tmp_path / "clone")
    (clone / "app.py").write_text("x = 2\n")
    from common.git import git

    git(clone, "commit", "-qam", "change")
    rest.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    number = rest.open_draft_pull("ensemble/issue-1", "main", "Fix (#1)", "Closes #1").number
    fake.add_comment(REPO, number, "/ensemble revise please", user="alice")
    fresh = repo(fake, None)
    expected = (fresh.pull(number), fresh.comments(number), fresh.issue(number), fresh.branch_head("ensemble/issue-1"))
    fake.requests.clear()
    github = repo(fake, SnapshotPlan(number=number, login="alice", config=CONFIG, ref="main"))
    pull = github.pull(number)
    assert (pull, github.comments(number), github.issue(number), github.branch_head(pull.branch)) == expected
    assert snapshots(fake) == 1 and rest_reads(fake) == []


def test_one_labelled_issue_makes_one_snapshot_and_no_rest_read_of_what_it_answered(hub: Hub) -> None:
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened"
    fake = hub.fake
    assert snapshots(fake) == 1
    for answered in (r"/contents/", r"/collaborators/", r"/pulls$", r"/git/ref/", r"/issues/1$"):
        assert not fake.calls("GET", answered), answered
    # the thread once more, after the run: commands people wrote while it ran (actions/handlers/queued.py)
    assert len([r for r in fake.calls("GET", r"/issues/1/comments$") if "since" not in r.query]) == 1


# -- the 👀 on the issue and the progress comment: one mutation --------------------------------------------
def progress_comments(hub: Hub) -> list[dict]:
    return [c for c in hub.fake.comments_on(REPO, 1) if "ensemble:progress" in c["body"]]


def issue_reactions(hub: Hub) -> list[tuple[str, int, str, str]]:
    return [(r["subject"], r["subject_id"], r["content"], r["user"]["login"]) for r in hub.fake.repos[REPO].reactions]


def mutations(fake: FakeGitHub) -> list[dict]:
    return [r.body for r in fake.calls("POST", r"graphql$") if r.body["query"].lstrip().startswith("mutation")]


def test_the_eyes_and_the_progress_comment_go_in_one_mutation(hub: Hub) -> None:
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert issue_reactions(hub) == [("issue", 1, "eyes", "github-actions[bot]")]
    assert len(progress_comments(hub)) == 1
    sent = mutations(hub.fake)
    assert len(sent) == 1 and sent[0]["variables"]["content"] == "EYES"
    assert sent[0]["query"].index("addReaction") < sent[0]["query"].index("addComment")  # the eyes first
    assert not hub.fake.calls("POST", r"/issues/1/reactions$") and not hub.fake.calls("POST", r"/issues/1/comments$")


@pytest.mark.parametrize("refused", ["addComment", "addReaction"])
def test_a_part_of_the_mutation_github_refuses_is_written_over_rest(hub: Hub, refused: str) -> None:
    hub.fake.graphql_errors[refused] = ("FORBIDDEN", "Resource not accessible by integration")
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert issue_reactions(hub) == [("issue", 1, "eyes", "github-actions[bot]")] and len(progress_comments(hub)) == 1
    rest = r"/issues/1/comments$" if refused == "addComment" else r"/issues/1/reactions$"
    assert len(hub.fake.calls("POST", rest)) == 1


def test_a_server_without_the_mutations_gets_both_over_rest(hub: Hub) -> None:
    hub.fake.graphql_missing.add("addReaction")
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert issue_reactions(hub) == [("issue", 1, "eyes", "github-actions[bot]")] and len(progress_comments(hub)) == 1
    assert len(hub.fake.calls("POST", r"/issues/1/reactions$")) == len(hub.fake.calls("POST", r"/issues/1/comments$")) == 1


def test_the_eyes_go_on_alone_when_no_comment_follows(hub: Hub) -> None:
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    hub.fake.repos[REPO].reactions.clear()
    again = hub.send("issues", hub.labeled(1))  # a PR is open: nothing runs, nothing is written but the eyes
    assert again.result == "exists"
    assert issue_reactions(hub) == [("issue", 1, "eyes", "github-actions[bot]")]
    assert len(hub.fake.calls("POST", r"/issues/1/reactions$")) == 1 and len(progress_comments(hub)) == 1


@pytest.mark.parametrize(("fields", "branch"), [
    ({"name": "issues", "number": 7}, "ensemble/issue-7"),  # a run's PR comes from the issue's branch
    ({"name": "issue_comment", "number": 7}, "ensemble/issue-7"),
    ({"name": "issue_comment", "number": 9, "is_pull": True}, ""),  # a PR's own branch comes with the PR itself
    ({"name": "pull_request_review", "number": 9, "is_pull": True, "head_branch": "ensemble/issue-7"},
     "ensemble/issue-7"),
    ({"name": "workflow_run", "head_branch": "ensemble/issue-7"}, "ensemble/issue-7"),
    ({"name": "workflow_run", "head_branch": "feature"}, "")])  # not a bot branch: nothing to ask about it
def test_the_snapshot_asks_about_the_event_s_subject_and_the_bot_s_branch(fields: dict, branch: str) -> None:
    from actions.app import snapshot_plan
    from actions.events import Event

    event = Event(action="created", repo=REPO, sender="alice", default_branch="main", **fields)
    plan = snapshot_plan(event, CONFIG)
    assert (plan.number, plan.login, plan.branch, plan.config, plan.ref) == \
        (fields.get("number"), "alice", branch, CONFIG, "main")
    assert ("pullRequests(" in plan.query()) == bool(branch) and ("issueOrPullRequest" in plan.query()) == \
        bool(fields.get("number"))


def _graphql(fake: FakeGitHub, query: str) -> dict[str, object]:
    import json
    import urllib.request

    request = urllib.request.Request(f"{fake.api_url}/graphql", data=json.dumps({"query": query}).encode(),
                                     headers={"Authorization": f"bearer {fake.token}"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return dict(json.loads(answer.read()))


def test_the_fake_refuses_what_github_would_refuse(fake: FakeGitHub) -> None:
    """A document GitHub's parser or schema rejects gets errors and no data from the fake too, so a typo in the
    bot's query fails the tests instead of passing against a lenient fake."""
    unclosed = _graphql(fake, 'query { repository(owner: "octo", name: "demo") { id ')
    assert "data" not in unclosed and "Syntax Error" in str(unclosed["errors"])
    unknown = _graphql(fake, 'query { repository(owner: "octo", name: "demo") { issueNumber } }')
    assert "data" not in unknown and "issueNumber" in str(unknown["errors"])
    fine = _graphql(fake, 'query Q { repository(owner: "octo", name: "demo") { ... on Repository { ref(qualifiedName: '
                          '"refs/heads/main") { target { oid } } } } }')
    assert fine["data"]["repository"]["ref"]["target"]["oid"]  # type: ignore[index]
