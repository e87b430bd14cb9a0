"""End to end: the PR review as the approval gate, and bounded self-healing of failed checks."""

from __future__ import annotations

from actions.markers import read_marker
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine

FAIL_LOG = ("2026-11-21T10:00:00.0000000Z ##[group]Run pytest\n"
            "2026-11-21T10:00:01.0000000Z ============ FAILURES ============\n"
            "2026-11-21T10:00:01.0000000Z E   AssertionError: assert add(0.1, 0.2) == 0.3\n"
            "2026-11-21T10:00:01.0000000Z FAILED tests/test_calc.py::test_{name}\n"
            "2026-11-21T10:00:02.0000000Z ##[error]Process completed with exit code 1.\n")


def open_pr(hub: Hub) -> int:
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "pr-opened"
    return outcome.pr_number or 0


def fail_twice(hub: Hub, name: str) -> list[str]:
    """CI fails on the head; the bot re-runs; the re-run fails too; return both results."""
    hub.fake.on_rerun = lambda repo, run: hub.fake.set_jobs(REPO, run, (("test", "failure", FAIL_LOG.format(name=name)),))
    run = hub.ci("failure", FAIL_LOG.format(name=name))
    first = hub.send("workflow_run", hub.workflow_run(run))
    second = hub.send("workflow_run", hub.workflow_run(run))
    return [first.result, second.result]


def test_an_approval_marks_the_pr_ready(hub: Hub) -> None:
    number = open_pr(hub)
    outcome = hub.send("pull_request_review", hub.review(number, "approved", "LGTM", sender="mona"))
    assert outcome.result == "ready" and hub.fake.repos[REPO].pulls[number]["draft"] is False


def test_an_approval_from_someone_without_write_access_does_nothing(hub: Hub) -> None:
    number = open_pr(hub)
    assert hub.send("pull_request_review", hub.review(number, "approved", "ok", sender="trina")).result == "nothing-to-do"
    assert hub.fake.repos[REPO].pulls[number]["draft"] is True


def test_a_fork_pr_named_like_a_bot_branch_is_not_the_bots(hub: Hub, engine: ScriptedEngine) -> None:
    number = hub.fake.add_fork_pull(REPO, "mallory", "ensemble/issue-1", "Totally the bot's fix")
    approved = hub.send("pull_request_review", hub.review(number, "approved", "LGTM", sender="mona"))
    assert approved.result == "nothing-to-do" and "mallory/" in approved.message
    assert hub.fake.repos[REPO].pulls[number]["draft"] is False and not hub.fake.repos[REPO].pulls[number]["merged"]
    revise = hub.send("issue_comment", hub.comment(number, "/ensemble revise make it faster", sender="mona"))
    assert revise.result == "replied" and not engine.calls


def test_changes_requested_lead_to_a_revision_commit(hub: Hub, engine: ScriptedEngine) -> None:
    hub.fake.repos[REPO].dismiss_stale_reviews = True
    number = open_pr(hub)
    hub.send("pull_request_review", hub.review(number, "approved", "fine by me", sender="mona"))
    outcome = hub.send("pull_request_review", hub.review(number, "changes_requested", "Please also test floats.",
                                                         inline=(("calc.py", 2, "use math.fsum"),)))
    assert outcome.result == "revised"
    assert len(hub.fake.commit_messages(REPO, "ensemble/issue-1")) == 2
    assert "Please also test floats." in engine.calls[-1].body and "`calc.py` line 2: use math.fsum" in engine.calls[-1].body
    notes = [c["body"] for c in hub.fake.comments_on(REPO, number)]
    assert any("This push dismissed the approval by @mona" in body for body in notes)


def test_a_revision_without_branch_protection_does_not_claim_a_dismissal(hub: Hub) -> None:
    number = open_pr(hub)
    hub.send("pull_request_review", hub.review(number, "approved", "fine", sender="mona"))
    outcome = hub.send("pull_request_review", hub.review(number, "changes_requested", "one more thing"))
    assert outcome.result == "revised" and "dismissed" not in outcome.message


def test_a_flaky_failure_is_fixed_by_rerunning_with_no_model_call(hub: Hub, engine: ScriptedEngine) -> None:
    open_pr(hub)
    hub.fake.on_rerun = lambda repo, run: hub.fake.set_jobs(REPO, run, (("test", "success", "ok"),))
    run = hub.ci("failure", FAIL_LOG.format(name="add"))
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "rerun"
    assert hub.fake.repos[REPO].reruns == [run["id"]]
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "flaky"  # the re-run went green
    assert len(engine.calls) == 1  # only the run that opened the PR


def test_a_failing_check_leads_to_a_fix_commit_then_green(hub: Hub, engine: ScriptedEngine) -> None:
    number = open_pr(hub)
    assert fail_twice(hub, "floats") == ["rerun", "healed"]
    assert len(hub.fake.commit_messages(REPO, "ensemble/issue-1")) == 2
    assert "FAILED tests/test_calc.py::test_floats" in engine.calls[-1].body
    heal = [read_marker(c["body"], "heal") for c in hub.fake.comments_on(REPO, number) if read_marker(c["body"], "heal")]
    assert heal[-1]["attempts"] == 1
    green = hub.ci("success", "all passed")
    assert hub.send("workflow_run", hub.workflow_run(green)).result == "nothing-to-do"
    assert "ensemble:needs-human" not in hub.fake.labels_on(REPO, number)


def test_a_failure_on_an_old_head_is_ignored(hub: Hub, engine: ScriptedEngine) -> None:
    open_pr(hub)
    old = hub.ci("failure", FAIL_LOG.format(name="old"))
    hub.send("issue_comment", hub.comment(hub.fake.repos[REPO].pulls.__iter__().__next__(), "/ensemble revise more"))
    assert hub.send("workflow_run", hub.workflow_run(old)).result == "nothing-to-do"
    assert not hub.fake.repos[REPO].reruns


def test_three_failing_checks_lead_to_needs_human(hub: Hub, engine: ScriptedEngine) -> None:
    number = open_pr(hub)  # max_heal_attempts: 2 in the repository's config
    assert fail_twice(hub, "one") == ["rerun", "healed"]
    assert fail_twice(hub, "two") == ["rerun", "healed"]
    assert fail_twice(hub, "three") == ["rerun", "escalated"]
    assert "ensemble:needs-human" in hub.fake.labels_on(REPO, number)
    summary = hub.summary.read_text()  # each Action run's step summary says how its attempt ended
    assert summary.count("**Self-healing**: attempt 1 of 2: pushed a fix") == 1
    assert "**Self-healing**: attempt 2 of 2: handed to a human" in summary
    [escalation] = [c["body"] for c in hub.fake.comments_on(REPO, number) if "needs a human" in c["body"]]
    assert escalation.startswith("@alice ") and "attempt 2" in escalation and "test_three" in escalation
    assert len(engine.calls) == 3  # the PR, then two fixes; no model call for the escalation
    run = hub.ci("failure", FAIL_LOG.format(name="three"))
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "nothing-to-do"  # no second escalation


def test_a_repeated_failure_signature_escalates_early(hub: Hub, engine: ScriptedEngine) -> None:
    number = open_pr(hub)
    assert fail_twice(hub, "same") == ["rerun", "healed"]
    assert fail_twice(hub, "same") == ["rerun", "escalated"]
    assert "ensemble:needs-human" in hub.fake.labels_on(REPO, number)
    assert any("same failure came back" in c["body"] for c in hub.fake.comments_on(REPO, number))


def test_another_ci_apps_failed_suite_is_rerequested_then_healed_from_its_report(hub: Hub,
                                                                                  engine: ScriptedEngine) -> None:
    number = open_pr(hub)
    sha = hub.fake.head_sha(REPO, "ensemble/issue-1") or ""
    report = "FAILED tests/test_calc.py::test_floats - AssertionError: assert add(0.1, 0.2) == 0.3"
    suite = hub.fake.add_check_suite(REPO, "ensemble/issue-1", sha, (("circleci: test", "failure", report),))
    hub.fake.on_rerequest = lambda repo, s: hub.fake.set_suite_runs(REPO, s, (("circleci: test", "failure", report),))
    payload = hub._base("check_suite", "circleci-checks[bot]")
    payload["check_suite"] |= {"id": suite["id"], "head_branch": "ensemble/issue-1", "head_sha": sha,
                               "conclusion": "failure"}
    assert hub.send("check_suite", payload).result == "rerun"
    assert hub.fake.repos[REPO].rerequests == [suite["id"]]
    assert hub.send("check_suite", payload).result == "healed"
    sent = engine.calls[-1].body
    assert "circleci: test" in sent and "assert add(0.1, 0.2) == 0.3" in sent
    assert "calc.py:2: failure: assertion failed here" in sent  # the app's annotations are part of the log
    assert len(hub.fake.commit_messages(REPO, "ensemble/issue-1")) == 2 and number


def test_each_failing_workflow_on_a_head_gets_its_own_rerun(hub: Hub) -> None:
    open_pr(hub)
    first = hub.ci("failure", FAIL_LOG.format(name="one"))
    assert hub.send("workflow_run", hub.workflow_run(first)).result == "rerun"
    sha = hub.fake.head_sha(REPO, "ensemble/issue-1") or ""
    lint = hub.fake.add_run(REPO, "ensemble/issue-1", sha, "failure", (("lint", "timed_out", "##[error]timed out"),),
                            workflow="lint.yml")
    assert hub.send("workflow_run", hub.workflow_run(lint)).result == "rerun"
    assert hub.fake.repos[REPO].reruns == [first["id"], lint["id"]]


def test_a_timed_out_job_is_healed_from_its_log(hub: Hub, engine: ScriptedEngine) -> None:
    open_pr(hub)
    log = "2026-11-21T10:00:00Z test_slow_path hangs forever\n##[error]The job has exceeded the maximum execution time"
    hub.fake.on_rerun = lambda repo, run: hub.fake.set_jobs(REPO, run, (("test", "timed_out", log),))
    run = hub.ci("timed_out", log)
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "rerun"
    assert hub.send("workflow_run", hub.workflow_run(run)).result == "healed"
    assert "test_slow_path hangs forever" in engine.calls[-1].body


def test_a_suite_the_token_may_not_rerequest_is_healed_at_once(hub: Hub, engine: ScriptedEngine) -> None:
    """Re-requesting another app's suite needs `checks: write`; without it the bot heals rather than fails."""
    open_pr(hub)
    sha = hub.fake.head_sha(REPO, "ensemble/issue-1") or ""
    report = "FAILED tests/test_calc.py::test_floats - AssertionError: assert add(0.1, 0.2) == 0.3"
    suite = hub.fake.add_check_suite(REPO, "ensemble/issue-1", sha, (("circleci: test", "failure", report),))
    hub.fake.fail_next(status=403, message="Resource not accessible by integration", retry_after=None,
                       method="POST", path_pattern=r"/rerequest$")
    payload = hub._base("check_suite", "circleci-checks[bot]")
    payload["check_suite"] |= {"id": suite["id"], "head_branch": "ensemble/issue-1", "head_sha": sha,
                               "conclusion": "failure"}
    assert hub.send("check_suite", payload).result == "healed"
    assert hub.fake.repos[REPO].rerequests == [] and "assert add(0.1, 0.2) == 0.3" in engine.calls[-1].body


def _thread_replies(hub: Hub, number: int) -> dict[int, list[str]]:
    """Replies in each review thread of PR #number, by the id of the comment that starts it."""
    found: dict[int, list[str]] = {}
    for rc in hub.fake.repos[REPO].review_comments.values():
        if rc["pull_number"] == number and rc.get("in_reply_to_id"):
            found.setdefault(rc["in_reply_to_id"], []).append(rc["body"])
    return found


def test_a_revision_resolves_the_threads_it_addressed_and_leaves_the_others_open(hub: Hub) -> None:
    number = open_pr(hub)
    outcome = hub.send("pull_request_review", hub.review(number, "changes_requested", "Two things.", inline=(
        ("calc.py", 2, "use math.fsum"), ("tests/test_calc.py", 5, "add a float case"))))
    assert outcome.result == "revised" and "Resolved 1 of 2 open review threads" in outcome.message
    repo = hub.fake.repos[REPO]
    on_code, on_test = sorted(c["id"] for c in repo.review_comments.values() if not c.get("in_reply_to_id"))
    head = hub.fake.head_sha(REPO, "ensemble/issue-1")
    replies = _thread_replies(hub, number)
    assert replies[on_code] == [f"Addressed in {head}: this revision changed `calc.py` line 2."]
    assert replies[on_test] == [f"Not changed by this revision ({head[:7]}): it did not touch `tests/test_calc.py` "
                                "line 5, so this thread stays open."]
    assert repo.resolved_threads == {on_code}
    mutations = [r.body["variables"] for r in hub.fake.calls("POST", r"graphql$") if "resolveReviewThread" in r.body["query"]]
    assert mutations == [{"threadId": f"PRRT_{on_code}"}]
    again = hub.send("issue_comment", hub.comment(number, "/ensemble revise keep going", sender="mona"))
    assert again.result == "revised" and "Resolved 0 of 1 open review threads" in again.message  # resolved stay so


def test_the_pr_asks_the_person_who_triggered_the_run_for_a_review(hub: Hub) -> None:
    number = open_pr(hub)  # labelled by alice
    assert hub.fake.repos[REPO].pulls[number]["requested_reviewers"] == ["alice"]
    hub.send("issue_comment", hub.comment(number, "/ensemble revise also floats", sender="mona"))
    assert hub.fake.repos[REPO].pulls[number]["requested_reviewers"] == ["alice", "mona"]
    calls = hub.fake.calls("POST", r"/pulls/\d+/requested_reviewers$")
    assert [c.body for c in calls] == [{"reviewers": ["alice"]}, {"reviewers": ["mona"]}]
