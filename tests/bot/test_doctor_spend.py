"""`ensemble doctor` shows the day's spend from the ledger: from a checkout that fetched it, or through the API."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

from actions.github import GitHubRepo
from actions.ledger import LedgerBranch
from bot.config import parse_config
from bot.doctor import DoctorContext
from bot.doctor.spend import check_spend
from bot.spend import RESERVE, SETTLE, Entry
from fakes.github_server import FakeGitHub

REPO = "octo/demo"
CAPS = parse_config("budget: {day_usd: 5}\n")


def with_ledger(fake: FakeGitHub, tmp: Path) -> str:
    """Three runs: one settled today at $0.25, one still reserved today ($1), one settled on another day. Today's
    date, read as the ledger is written (not when the module loaded: a suite running past midnight UTC)."""
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    entries = [Entry("a", RESERVE, 1.0, 1, today), Entry("a", SETTLE, 0.25), Entry("b", RESERVE, 1.0, 2, today),
               Entry("c", RESERVE, 1.0, 3, "2020-01-01"), Entry("c", SETTLE, 0.5)]
    ledger = LedgerBranch(GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url), tmp / "writer")
    ledger.change(lambda now: (entries, None), "test entries")
    return today


def test_doctor_reads_todays_spend_through_the_api_and_from_a_checkout(tmp_path: Path) -> None:
    with FakeGitHub(tmp_path / "github") as fake:
        fake.add_repo(REPO, {"app.py": "print(1)\n"})
        today = with_ledger(fake, tmp_path)
        env = {"GITHUB_TOKEN": fake.token, "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": fake.api_url}
        [api] = check_spend(DoctorContext(tmp_path, env, CAPS))
        checkout = tmp_path / "checkout"
        subprocess.run(["git", "clone", "-q", str(fake.repos[REPO].bare), str(checkout)], check=True)
        [local] = check_spend(DoctorContext(checkout, {}, CAPS))
    expected = f"{today} (UTC): $1.2500 of $5.00 (budget.day_usd), $1.00 of it reserved by runs going on"
    assert api.ok and api.detail.startswith(expected) and "on GitHub" in api.detail
    assert local.ok and local.detail == expected + " (from origin/ensemble/ledger)"


def test_with_caps_but_no_ledger_in_reach_doctor_says_how_to_get_it(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    [check] = check_spend(DoctorContext(tmp_path, {}, CAPS))
    assert not check.ok and not check.essential and "git fetch origin ensemble/ledger" in check.fix
    assert check_spend(DoctorContext(tmp_path, {}, parse_config("budget_usd: 1\n"))) == []  # no caps: nothing to say
