"""Event payloads: the real shapes parse; malformed or truncated ones exit 2 naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.events import EventError, load_event, parse_event
from fakes.github_hub import WEBHOOKS, webhook_payload


def test_issue_labeled() -> None:
    event = parse_event("issues", webhook_payload("issues"))
    assert (event.action, event.repo, event.number, event.label) == ("labeled", "Codertocat/Hello-World", 1, "bug")
    assert event.sender == "Codertocat" and not event.sender_is_bot and not event.is_pull


def test_comment_review_and_runs() -> None:
    comment = parse_event("issue_comment", webhook_payload("issue_comment"))
    assert comment.comment_id and comment.comment_body and comment.number == 1
    review = parse_event("pull_request_review", webhook_payload("pull_request_review"))
    assert review.is_pull and review.review_state in ("approved", "commented", "changes_requested")
    assert review.head_branch and review.head_sha
    run = parse_event("workflow_run", webhook_payload("workflow_run"))
    assert run.run_id and run.head_sha and run.run_attempt == 1
    suite = parse_event("check_suite", webhook_payload("check_suite"))
    assert suite.check_suite_id and suite.conclusion
    inline = parse_event("pull_request_review_comment", webhook_payload("pull_request_review_comment"))
    assert inline.review_id and inline.head_branch


def test_a_pull_request_names_its_author_head_and_where_the_head_lives() -> None:
    payload = webhook_payload("pull_request")
    payload["pull_request"]["head"]["repo"] |= {"full_name": "mallory/Hello-World"}
    event = parse_event("pull_request", payload)
    assert (event.action, event.number, event.is_pull, event.author) == ("opened", 2, True, "Codertocat")
    assert event.head_sha == payload["pull_request"]["head"]["sha"] and event.head_repo == "mallory/Hello-World"
    run = parse_event("workflow_run", webhook_payload("workflow_run"))
    assert (run.trigger, run.workflow) == (webhook_payload("workflow_run")["workflow_run"]["event"],
                                           webhook_payload("workflow_run")["workflow_run"]["name"])


def test_workflow_dispatch_takes_the_issue_input() -> None:
    payload = webhook_payload("workflow_dispatch") | {"inputs": {"issue": "7"}}
    event = parse_event("workflow_dispatch", payload)
    assert event.number == 7 and event.action == "dispatch"
    with pytest.raises(EventError, match="input `issue`"):
        parse_event("workflow_dispatch", webhook_payload("workflow_dispatch") | {"inputs": {"issue": "seven"}})


def test_missing_field_is_named() -> None:
    payload = webhook_payload("issues")
    del payload["issue"]["number"]
    with pytest.raises(EventError, match=r"missing field `issue.number`") as info:
        parse_event("issues", payload)
    assert info.value.exit_code == 2


def test_wrong_type_is_named() -> None:
    payload = webhook_payload("issue_comment")
    payload["comment"]["id"] = "12"
    with pytest.raises(EventError, match=r"`comment.id` should be int"):
        parse_event("issue_comment", payload)


def test_truncated_file_and_missing_variables(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text((WEBHOOKS / "issues.json").read_text()[:300])
    with pytest.raises(EventError, match="not valid JSON.*truncated"):
        load_event({"GITHUB_EVENT_NAME": "issues", "GITHUB_EVENT_PATH": str(path)})
    with pytest.raises(EventError, match="GITHUB_EVENT_PATH is not set"):
        load_event({"GITHUB_EVENT_NAME": "issues"})
