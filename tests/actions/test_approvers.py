"""`approvers`: who may run, revise and approve a plan (write, codeowners, or a list); the bot never approves.

People of the fake repository: alice (write), mona (admin), trina (triage), bob (write, in team octo/calc),
carol (write, invited to octo/calc but not yet a member).
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest

from actions.app import handle_event
from actions.codeowners import owners_of, parse_codeowners
from bot.ensemble.types import Plan
from bot.errors import ConfigError
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine

ROOT = Path(__file__).resolve().parents[2]
CODEOWNERS = "# who owns what\n*        @mona\ncalc.py  @octo/calc\n"


def planner(repo_dir, task, config, env) -> Plan:  # type: ignore[no-untyped-def]  # noqa: ANN001 - the Planner port
    return Plan("Swap the operator", ("calc.py",), ("Change - to + in add()",))


def push_files(hub: Hub, files: dict[str, str], branch: str = "main") -> None:
    """Commit `files` on `branch` of the fake repository, as someone with write access would."""
    work = hub.tmp / f"push-{len(list(hub.tmp.glob('push-*')))}"
    subprocess.run(["git", "clone", "-q", "-b", branch, str(hub.fake.repos[REPO].bare), str(work)], check=True)
    for name, text in files.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run(["git", "-c", "user.name=Octo", "-c", "user.email=octo@example.com", "commit", "-qm", "settings"],
                   cwd=work, check=True)
    subprocess.run(["git", "push", "-q", "origin", f"HEAD:{branch}"], cwd=work, check=True)


@pytest.fixture
def team(hub: Hub) -> Hub:
    for login in ("bob", "carol"):
        hub.fake.set_permission(REPO, login, "write")
    hub.fake.add_team("octo", "calc", members=("bob",), pending=("carol",))
    return hub


def send(hub: Hub, engine: ScriptedEngine, name: str, payload: dict) -> object:
    return handle_event(hub.env(name, payload), engine=engine, planner=planner)


def plan_posted(hub: Hub, engine: ScriptedEngine) -> None:
    push_files(hub, {".github/ensemble.yml": "ensembles: 1\nrequire_plan_approval: true\napprovers: codeowners\n",
                     ".github/CODEOWNERS": CODEOWNERS})
    assert send(hub, engine, "issues", hub.labeled(1)).result == "plan-posted"  # type: ignore[attr-defined]


def test_a_non_owners_approve_plan_is_refused_with_approvers_codeowners(team: Hub, engine: ScriptedEngine) -> None:
    plan_posted(team, engine)
    for login in ("alice", "mona", "carol"):  # a writer, the owner of other files, an invited team member
        outcome = send(team, engine, "issue_comment", team.comment(1, "/ensemble approve-plan", sender=login))
        assert outcome.result == "refused", outcome  # type: ignore[attr-defined]
        reply = team.fake.comments_on(REPO, 1)[-1]["body"]
        assert f"@{login}, with `approvers: codeowners`" in reply and "- `calc.py`: `@octo/calc`" in reply
    assert not engine.calls and not team.fake.repos[REPO].pulls


def test_an_owner_through_a_team_approves_the_plan_and_the_run_proceeds(team: Hub, engine: ScriptedEngine) -> None:
    plan_posted(team, engine)
    outcome = send(team, engine, "issue_comment", team.comment(1, "/ensemble approve-plan", sender="bob"))
    assert outcome.result == "pr-opened", outcome  # type: ignore[attr-defined]
    assert engine.calls[0].plan is not None and engine.calls[0].plan.files == ("calc.py",)
    assert team.fake.calls("GET", r"^/orgs/octo/teams/calc/memberships/bob$")


def test_editing_the_plans_files_does_not_drop_their_owners(team: Hub, engine: ScriptedEngine) -> None:
    plan_posted(team, engine)
    [posted] = [c for c in team.fake.comments_on(REPO, 1) if "Here is my plan" in c["body"]]
    # the visible Files line, not the hidden copy the bot keeps: mona owns notes.txt (*), not calc.py
    posted["body"] = posted["body"].replace("Files: `calc.py`", "Files: `notes.txt`", 1)
    outcome = send(team, engine, "issue_comment", team.comment(1, "/ensemble approve-plan", sender="mona"))
    assert outcome.result == "refused" and not engine.calls  # type: ignore[attr-defined]


def test_with_codeowners_any_writer_may_run(team: Hub, engine: ScriptedEngine) -> None:
    push_files(team, {".github/ensemble.yml": "ensembles: 1\napprovers: codeowners\n", "CODEOWNERS": CODEOWNERS})
    assert send(team, engine, "issues", team.labeled(1, sender="alice")).result == "pr-opened"  # type: ignore[attr-defined]


def test_with_a_list_only_listed_writers_may_run_revise_or_approve(team: Hub, engine: ScriptedEngine) -> None:
    push_files(team, {".github/ensemble.yml": 'ensembles: 1\napprovers: [mona, "@octo/calc", trina]\n'})
    outcome = send(team, engine, "issue_comment", team.comment(1, "/ensemble run", sender="alice"))
    assert outcome.result == "refused" and not engine.calls  # type: ignore[attr-defined]
    reply = team.fake.comments_on(REPO, 1)[-1]["body"]
    assert "only `@mona`, `@octo/calc` or `@trina` may run, revise or approve" in reply
    assert send(team, engine, "issues", team.labeled(1, sender="alice")).result == "refused"  # type: ignore[attr-defined]
    # listed, but only triage permission: a list narrows the writers, it never adds readers
    outcome = send(team, engine, "issue_comment", team.comment(1, "/ensemble run", sender="trina"))
    assert outcome.result == "refused" and not engine.calls  # type: ignore[attr-defined]
    outcome = send(team, engine, "issue_comment", team.comment(1, "/ensemble run", sender="bob"))  # a team member
    assert outcome.result == "pr-opened" and len(engine.calls) == 1  # type: ignore[attr-defined]
    pr = outcome.pr_number  # type: ignore[attr-defined]
    review = send(team, engine, "pull_request_review", team.review(pr, "changes_requested", "Use +=", sender="alice"))
    assert review.result == "nothing-to-do" and len(engine.calls) == 1  # type: ignore[attr-defined]
    revise = send(team, engine, "issue_comment", team.comment(pr, "/ensemble revise add a docstring", sender="alice"))
    assert revise.result == "refused" and len(engine.calls) == 1  # type: ignore[attr-defined]


def test_the_list_is_read_from_the_default_branch_not_the_pull_request(team: Hub, engine: ScriptedEngine) -> None:
    push_files(team, {".github/ensemble.yml": "ensembles: 1\napprovers: [mona]\n"})
    pr = send(team, engine, "issue_comment", team.comment(1, "/ensemble run", sender="mona")).pr_number  # type: ignore[attr-defined]
    # a writer's own commit on the PR's branch cannot widen the list: only the default branch counts
    push_files(team, {".github/ensemble.yml": "ensembles: 1\napprovers: [mona, alice]\n"}, branch="ensemble/issue-1")
    assert "alice" in team.fake.file_at(REPO, "ensemble/issue-1", ".github/ensemble.yml")
    outcome = send(team, engine, "issue_comment", team.comment(pr, "/ensemble revise add a docstring", sender="alice"))
    assert outcome.result == "refused"  # type: ignore[attr-defined]


@pytest.mark.parametrize(("value", "message"), [
    ("writers", "approvers: unknown value 'writers'; expected one of write, codeowners, or a list of logins"),
    ("[]", "approvers: the list is empty"),
    ('["al ice"]', "approvers[0]: 'al ice' is not valid; expected a value naming a GitHub login like alice"),
])
def test_a_bad_approvers_value_is_a_clear_error(hub: Hub, engine: ScriptedEngine, value: str, message: str) -> None:
    push_files(hub, {".github/ensemble.yml": f"ensembles: 1\napprovers: {value}\n"})
    with pytest.raises(ConfigError, match=r".github/ensemble.yml:2: " + message.replace("[", r"\[").replace("]", r"\]")):
        send(hub, engine, "issue_comment", hub.comment(1, "/ensemble run", sender="alice"))
    assert not engine.calls


def test_codeowners_patterns_follow_githubs_rules() -> None:
    rules = parse_codeowners("*  @all\n/docs/ @docs\napps/ @apps\n*.js @js\n!*.js @nobody\n[ab].py @range\n"
                             "src/vendor.js\n")
    assert owners_of(rules, "README.md") == ("all",)
    assert owners_of(rules, "docs/a/b.md") == ("docs",) and owners_of(rules, "x/docs/b.md") == ("all",)
    assert owners_of(rules, "deep/apps/main.py") == ("apps",)  # a folder pattern without a leading slash: anywhere
    assert owners_of(rules, "web/app.js") == ("js",)  # `!` lines are not supported by GitHub: skipped
    assert owners_of(rules, "a.py") == ("all",)  # character ranges neither
    assert owners_of(rules, "src/vendor.js") == ()  # the last match names no owner: unowned


def test_the_bot_never_submits_a_review(team: Hub, engine: ScriptedEngine) -> None:
    push_files(team, {".github/ensemble.yml": "ensembles: 1\non_approval: merge\n"})
    pr = send(team, engine, "issues", team.labeled(1)).pr_number  # type: ignore[attr-defined]
    send(team, engine, "pull_request_review", team.review(pr, "changes_requested", "Use +=", sender="mona"))
    send(team, engine, "issue_comment", team.comment(pr, "/ensemble revise add a docstring", sender="mona"))
    team.ci("success")
    send(team, engine, "pull_request_review", team.review(pr, "approved", "Good", sender="mona"))
    assert not team.fake.calls("POST", r"/pulls/\d+/reviews$")
    reviewers = {r["user"]["login"] for r in team.fake.repos[REPO].reviews.values()}
    assert reviewers == {"mona"}


def test_no_code_of_the_bot_approves_or_requests_changes() -> None:
    """Every way PyGithub or the REST API submits a review, searched for in the bot's code: the one review it makes
    (`/ensemble verify`'s critic, actions/github/pulls.py `comment_review`) has the event COMMENT, written there;
    nothing names APPROVE or REQUEST_CHANGES."""
    calls = ("create_review", "create_pull_review", "submit_review")
    found, commenting = [], []
    for path in sorted((*ROOT.glob("actions/**/*.py"), *ROOT.glob("bot/**/*.py"), *ROOT.glob("common/**/*.py"))):
        for node in ast.walk(ast.parse(path.read_text())):
            name = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else ""
            text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            event = next((k.value for k in getattr(node, "keywords", ()) if k.arg == "event"), None)
            if name in calls and isinstance(event, ast.Constant) and event.value == "COMMENT":
                commenting.append(where)
            elif name in calls or text in ("APPROVE", "REQUEST_CHANGES") or "/reviews" in text and "POST" in text:
                found.append(where)
    assert not found, f"the bot must never approve or request changes (never approve its own work): {found}"
    assert [w.split(":")[0] for w in commenting] == ["actions/github/pulls.py"]
