"""The check of spend across runs: what the spend ledger counts for today (UTC) against `budget.day_usd`.

The ledger lives on the bot's branch `ensemble/ledger` (bot/spend.py). The doctor reads it from the checkout when
that branch was fetched (`origin/ensemble/ledger`), else through the GitHub API when GITHUB_TOKEN and
GITHUB_REPOSITORY are set, as `check_github_token` does.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot.doctor.check import Check, DoctorContext
from bot.spend import LEDGER_BRANCH, LEDGER_FILE, read_entries, totals
from common.git import git, git_succeeds

NAME = "Spend today"


def check_spend(ctx: DoctorContext) -> list[Check]:
    """Today's spend from the ledger; a hint where to find it when caps are set but the ledger is out of reach."""
    budget = ctx.config.budget if ctx.config else None
    found = _from_checkout(ctx) or _from_github(ctx)
    if found is None:
        if budget is None or not budget.across_runs:
            return []
        return [Check(NAME, False, f"the spend ledger (branch {LEDGER_BRANCH}) is not in this checkout",
                      f"`git fetch origin {LEDGER_BRANCH}`, or set GITHUB_TOKEN and GITHUB_REPOSITORY")]
    text, where = found
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    counted = totals(read_entries(text), day)
    cap = f" of ${budget.day_usd:.2f} (budget.day_usd)" if budget and budget.day_usd is not None else ""
    running = f", ${counted.open_usd:.2f} of it reserved by runs going on" if counted.open_usd else ""
    return [Check(NAME, True, f"{day} (UTC): ${counted.day_usd:.4f}{cap}{running} (from {where})")]


def _from_checkout(ctx: DoctorContext) -> tuple[str, str] | None:
    ref = f"refs/remotes/origin/{LEDGER_BRANCH}"
    if not git_succeeds(ctx.repo, "cat-file", "-e", f"{ref}:{LEDGER_FILE}"):
        return None
    return git(ctx.repo, "show", f"{ref}:{LEDGER_FILE}"), f"origin/{LEDGER_BRANCH}"


def _from_github(ctx: DoctorContext) -> tuple[str, str] | None:
    token, name = ctx.env.get("GITHUB_TOKEN", ""), ctx.env.get("GITHUB_REPOSITORY", "")
    if not token or not name:
        return None
    from github import Auth, Github, GithubException

    api = ctx.env.get("GITHUB_API_URL", "https://api.github.com")
    try:
        repo = Github(base_url=api.rstrip("/"), auth=Auth.Token(token), retry=None, timeout=15).get_repo(name)
        content = repo.get_contents(LEDGER_FILE, ref=LEDGER_BRANCH)
    except GithubException:  # no ledger branch yet (404), or a token that cannot read it: check_github_token says
        return None
    except Exception:  # noqa: BLE001 - DNS, TLS, timeouts: GitHub did not answer, which check_github_token reports
        return None
    if isinstance(content, list):
        return None
    return content.decoded_content.decode("utf-8", errors="replace"), f"{name}@{LEDGER_BRANCH} on GitHub"
