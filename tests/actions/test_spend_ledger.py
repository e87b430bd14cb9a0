"""End to end against the fake GitHub: spend caps across runs, kept in the ledger on the branch `ensemble/ledger`.

Jobs run the real handlers, each with its own clone, as separate Actions jobs would; the ledger is pushed to the
fake's real git remote (`git http-backend`), where a push with a stale lease is really refused.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from actions.app import handle_event
from actions.github import GitHubRepo
from actions.ledger import LedgerBranch
from bot.config import Config
from bot.ensemble.types import Plan, RunResult, Task
from bot.spend import LEDGER_BRANCH, LEDGER_FILE, RESERVE, SETTLE, Entry, charges
from fakes.github_hub import REPO, Hub
from fakes.scripted_engine import ScriptedEngine
from tests.actions.test_loop_breakers import set_config
from tests.actions.test_review_and_heal import fail_twice

BOT = "github-actions[bot]"


@dataclass
class ChargingEngine(ScriptedEngine):
    """The scripted engine, charging `charge(issue)` dollars a run (never more than the cap it was given), after
    `work_s` seconds of work so that concurrent runs overlap."""

    charge: Callable[[int], float] = lambda issue: 1.0
    work_s: float = 0.0
    caps: list[float] = field(default_factory=list)
    charged: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], *, run_id: str,
                 progress: Callable[[str, str, int, str], None], stop: threading.Event) -> RunResult:
        time.sleep(self.work_s)
        result = super().__call__(repo_dir, task, config, env, run_id=run_id, progress=progress, stop=stop)
        cost = min(self.charge(int(task.slug.removeprefix("issue-"))), config.budget_usd)
        result.usage = {**result.usage, "cost_usd": cost}
        with self.lock:
            self.caps.append(config.budget_usd)
            self.charged.append(cost)
        return result


def ledger_lines(hub: Hub) -> list[dict]:
    return [json.loads(line) for line in hub.fake.file_at(REPO, LEDGER_BRANCH, LEDGER_FILE).splitlines()]


def progress_notes(hub: Hub, number: int) -> list[str]:
    return [c["body"] for c in hub.fake.comments_on(REPO, number) if c["user"]["login"] == BOT]


def test_ten_issues_labelled_at_once_stop_at_the_day_cap_and_the_ledger_holds_every_charge(hub: Hub) -> None:
    engine = ChargingEngine(charge=lambda issue: 1.0, work_s=0.3)
    hub.engine = engine
    set_config(hub, "ensembles: 1\nbudget:\n  run_usd: 1.0\n  day_usd: 6.5\n")
    numbers = [1] + [hub.fake.add_issue(REPO, f"bug {n}", f"bug {n} body")["number"] for n in range(2, 11)]
    envs = [hub.env("issues", hub.labeled(number)) for number in numbers]  # ten jobs, ten run ids
    start = threading.Barrier(len(envs))

    def job(env: dict[str, str]) -> str:
        start.wait()
        return handle_event(env, engine=engine).result

    with ThreadPoolExecutor(len(envs)) as pool:
        results = dict(zip(numbers, pool.map(job, envs), strict=True))

    opened = sorted(n for n, result in results.items() if result == "pr-opened")
    refused = sorted(n for n, result in results.items() if result == "over-budget")
    assert len(opened) == 6 and len(refused) == 4, results  # $1 reserved a run: six fit under $6.50, a seventh not
    assert len(engine.calls) == 6 and engine.caps == [1.0] * 6
    assert {p["head_ref"] for p in hub.fake.repos[REPO].pulls.values()} == {f"ensemble/issue-{n}" for n in opened}
    for number in refused:  # started nothing, and said why with the figures and what to change
        assert hub.fake.head_sha(REPO, f"ensemble/issue-{number}") is None
        [note] = [body for body in progress_notes(hub, number) if "Not started" in body]
        assert "`budget.day_usd`" in note and "so far: $6.00" in note and "the cap is $6.50" in note
        assert "this run would reserve $1.00" in note
        assert "wait until tomorrow (UTC)" in note and "lower `budget.run_usd`" in note
    lines = ledger_lines(hub)
    assert len(lines) == 12  # every admitted run: one reservation and one settlement; no entry was lost
    runs = charges(Entry(d["id"], d["kind"], d["usd"], d.get("issue"), d.get("day", "")) for d in lines)
    assert sorted(c.issue for c in runs.values()) == opened and all(c.settled for c in runs.values())
    assert sum(c.usd for c in runs.values()) == sum(engine.charged) == 6.0


def test_an_issue_cap_counts_every_run_on_the_issue_and_runs_settle_to_what_they_charged(hub: Hub) -> None:
    engine = ChargingEngine(charge=lambda issue: 0.4)
    hub.engine = engine
    set_config(hub, "ensembles: 1\nbudget_usd: 1.0\nbudget: {issue_usd: 2.5}\n")
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    for n in range(3):  # three revisions: $0.40 each, $1.00 reserved each
        assert hub.send("issue_comment", hub.comment(number, f"/ensemble revise round {n}")).result == "revised"
    outcome = hub.send("issue_comment", hub.comment(number, "/ensemble revise once more"))
    assert outcome.result == "over-budget" and outcome.pr_number == number
    assert len(engine.calls) == 4  # $1.60 counted: one more $1.00 reservation would pass $2.50
    [note] = [body for body in progress_notes(hub, number) if "Not started" in body]
    assert "on issue #1 (all its runs) so far: $1.60" in note and "the cap is $2.50" in note
    assert "raise `budget.issue_usd` in `.github/ensemble.yml`" in note and "tomorrow" not in note
    lines = ledger_lines(hub)
    assert [d["kind"] for d in lines] == [RESERVE, SETTLE] * 4 and {d["usd"] for d in lines[1::2]} == {0.4}
    summary = hub.summary.read_text()
    assert "**Spend**: this run $0.4000; issue #1 $1.6000 of $2.50 (`budget.issue_usd`)" in summary


def test_without_caps_across_runs_no_ledger_is_kept(hub: Hub) -> None:
    assert hub.send("issues", hub.labeled(1)).result == "pr-opened"
    assert hub.fake.head_sha(REPO, LEDGER_BRANCH) is None
    assert "**Spend**" not in hub.summary.read_text()


def test_a_run_whose_engine_raises_is_settled_at_its_reservation(hub: Hub) -> None:
    def crash(stop: threading.Event) -> None:
        raise RuntimeError("the sandbox's daemon went away")

    hub.engine.before_return = crash
    set_config(hub, "ensembles: 1\nbudget: {run_usd: 0.75, day_usd: 10}\n")
    with pytest.raises(RuntimeError, match="daemon went away"):
        hub.send("issues", hub.labeled(1))
    assert [(d["kind"], d["usd"]) for d in ledger_lines(hub)] == [(RESERVE, 0.75), (SETTLE, 0.75)]


def github(hub: Hub) -> GitHubRepo:
    return GitHubRepo(REPO, hub.fake.token, hub.fake.api_url, hub.fake.server_url)


def test_a_concurrent_writer_wins_the_race_and_our_entry_is_applied_on_top_never_lost(hub: Hub) -> None:
    ours, theirs = LedgerBranch(github(hub), hub.tmp / "ours"), LedgerBranch(github(hub), hub.tmp / "theirs")
    theirs.change(lambda entries: ([Entry("first", RESERVE, 1.0, 1, "2026-11-25")], None), "first")
    seen: list[list[str]] = []

    def make(entries: list[Entry]) -> tuple[list[Entry], int]:
        seen.append([e.id for e in entries])
        if len(seen) == 1:  # another job writes after we read and before we push
            theirs.change(lambda now: ([Entry("theirs", RESERVE, 2.0, 2, "2026-11-25")], None), "theirs")
        return [Entry("ours", RESERVE, 3.0, 3, "2026-11-25")], len(seen)

    assert ours.change(make, "ours") == 2  # our first push was refused (the lease named a head that had moved)
    assert seen == [["first"], ["first", "theirs"]]  # decided again on the ledger it then landed on
    assert [e.id for e in LedgerBranch(github(hub), hub.tmp / "reader").read()] == ["first", "theirs", "ours"]


def test_a_plan_made_for_approval_is_reserved_and_settled_to_what_the_planner_charged(hub: Hub) -> None:
    set_config(hub, "ensembles: 1\nrequire_plan_approval: true\nbudget: {run_usd: 1, issue_usd: 1.5}\n")
    engine = ChargingEngine(charge=lambda issue: 0.3)
    caps: list[float] = []

    def planner(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str]) -> Plan:
        caps.append(config.budget_usd)
        return Plan("Swap the operator", ("calc.py",), ("Change - to +",), cost_usd=0.05)

    assert handle_event(hub.env("issues", hub.labeled(1)), engine=engine, planner=planner).result == "plan-posted"
    approve = hub.env("issue_comment", hub.comment(1, "/ensemble approve-plan"))
    assert handle_event(approve, engine=engine, planner=planner).result == "pr-opened"
    assert caps == [1.0] and engine.caps == [1.0]  # the plan's $0.05 left room for a whole run under $1.50
    assert [(d["kind"], d["usd"]) for d in ledger_lines(hub)] == [(RESERVE, 1.0), (SETTLE, 0.05), (RESERVE, 1.0),
                                                                 (SETTLE, 0.3)]


def test_the_real_planner_reports_what_its_models_charged(tmp_path: Path) -> None:
    from actions.engine import ensemble_planner
    from bot.config import parse_config
    from bot.ensemble.demo import create_sample_repo
    from fakes.median_replies import ENOUGH, PLAN
    from fakes.openai_server import FakeOpenAI

    repo = create_sample_repo(tmp_path / "sample")
    config = parse_config("models:\n  planner: {provider: openai, model: priced-planner}\nexplore: {max_rounds: 1}\n"
                          "llm:\n  cache: false\n  prices: [{model: priced-planner, input: 10, output: 20}]\n")
    with FakeOpenAI(api_key="sk-planner-key-0123456789abcdef") as openai:
        openai.reply(data=PLAN, schema="plan", usage=(2000, 250, 0))
        openai.reply(ENOUGH, marker="You are the planner", usage=(1000, 500, 0), times=0)
        env = {"OPENAI_API_KEY": "sk-planner-key-0123456789abcdef", "OPENAI_BASE_URL": openai.url,
               "ENSEMBLE_INDEX_DIR": str(tmp_path / "index")}
        plan = ensemble_planner(repo, Task("median is wrong", "fix it", slug="issue-1"), config, env)
    calls = len(openai.requests)
    assert plan.steps and calls >= 1
    # $10 and $20 per million tokens in and out: $0.02 an exploring call, $0.025 for the plan
    assert plan.cost_usd == pytest.approx(0.025 + 0.02 * (calls - 1))


def test_a_ledger_that_cannot_be_written_starts_nothing(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> None:
    import actions.ledger

    monkeypatch.setattr(actions.ledger, "TRIES", 2)  # the same refusal every time: no need to wait through 16
    hook = hub.fake.repos[REPO].bare / "hooks" / "pre-receive"  # a protected branch, as GitHub would refuse it
    hook.write_text("#!/bin/sh\nif grep -q refs/heads/ensemble/ledger; then echo 'protected branch' >&2; exit 1; fi\n")
    hook.chmod(0o755)
    set_config(hub, "ensembles: 1\nbudget: {day_usd: 10}\n")
    outcome = hub.send("issues", hub.labeled(1))
    assert outcome.result == "ledger-unavailable" and outcome.exit_code == 1 and not hub.engine.calls
    [note] = [body for body in progress_notes(hub, 1) if "spend ledger" in body]
    assert "could not read or write the spend ledger (branch `ensemble/ledger`)" in note and "started nothing" in note
    assert "protected branch" in note


def test_a_fix_of_a_failed_check_past_the_issue_cap_is_refused_and_uses_no_attempt(hub: Hub) -> None:
    hub.engine = engine = ChargingEngine(charge=lambda issue: 1.0)
    set_config(hub, "ensembles: 1\nmax_heal_attempts: 2\nbudget: {run_usd: 1, issue_usd: 1.5}\n")
    number = hub.send("issues", hub.labeled(1)).pr_number or 0
    assert fail_twice(hub, "add") == ["rerun", "over-budget"]
    assert len(engine.calls) == 1  # the fix would reserve $1.00 on top of the $1.00 the issue's first run charged
    [note] = [body for body in progress_notes(hub, number) if "Not started" in body]
    assert "`budget.issue_usd`" in note and "so far: $1.00" in note
    assert "ensemble:needs-human" not in hub.fake.labels_on(REPO, number)  # no attempt was made, none was used up
