"""Checks of GitHub: running inside Actions, and what GITHUB_TOKEN may do on the repository."""

from __future__ import annotations

from bot.doctor.check import Check, DoctorContext
from common.github import call_github, github_client

# The doctor answers in seconds: a rate limit longer than this is reported, not waited out.
DOCTOR_MAX_WAIT_S = 30.0


def check_github_actions(ctx: DoctorContext) -> Check:
    if ctx.env.get("GITHUB_ACTIONS") != "true":
        return Check("GitHub Actions", True, "not running inside GitHub Actions (local mode)")
    token = "GITHUB_TOKEN set" if ctx.env.get("GITHUB_TOKEN") else "no GITHUB_TOKEN"
    detail = f"{ctx.env.get('GITHUB_REPOSITORY', '?')}, event {ctx.env.get('GITHUB_EVENT_NAME', '?')}, {token}"
    ok = bool(ctx.env.get("GITHUB_TOKEN"))
    return Check("GitHub Actions", ok, detail, "" if ok else "pass `github-token` to the action")


def check_github_token(ctx: DoctorContext) -> list[Check]:
    """With GITHUB_TOKEN and GITHUB_REPOSITORY set: can the token read the repository, and push to it?

    GitHub says what a user's token (a PAT) may do on the repository; an installation token (the
    default GITHUB_TOKEN, an App's) gets no such answer, and its write access shows on first use.
    The client and its waits are the bot's own (common/github.py), so what the doctor sees is what a run sees.
    """
    token, name = ctx.env.get("GITHUB_TOKEN", ""), ctx.env.get("GITHUB_REPOSITORY", "")
    if not token or not name:
        return []
    from github import GithubException

    essential = ctx.env.get("GITHUB_ACTIONS") == "true"
    api = ctx.env.get("GITHUB_API_URL", "https://api.github.com")
    client = github_client(api, token, timeout=15)
    try:
        permissions = call_github(lambda: client.get_repo(name).raw_data.get("permissions"), what=f"read {name}",
                                  max_wait_s=DOCTOR_MAX_WAIT_S)
    except GithubException as exc:
        what = {401: "GITHUB_TOKEN was rejected (401 Bad credentials)",
                403: f"GITHUB_TOKEN may not read {name} (403)",
                404: f"{name} is not visible to GITHUB_TOKEN (404): it does not exist or the token has no access"}
        return [Check("GitHub token", False, what.get(exc.status, f"GitHub answered {exc.status} for {name}"),
                      "give the bot a token that can read and write the repository: an App installation token or a "
                      "fine-grained PAT with Contents, Issues and Pull requests read/write (see the README)", essential)]
    except Exception as exc:  # noqa: BLE001 - DNS, TLS, timeouts: all mean GitHub did not answer
        return [Check("GitHub token", False, f"{api} did not answer: {type(exc).__name__}: {exc}",
                      "check GITHUB_API_URL and the network", essential)]
    checks = []
    if permissions is None:
        checks.append(Check("GitHub token", True, f"reads {name} (an installation token: write access shows on first push)"))
    elif permissions.get("push"):
        checks.append(Check("GitHub token", True, f"reads and pushes to {name}"))
    else:
        checks.append(Check("GitHub token", False, f"reads {name} but may not push to it",
                            "use a token with Contents: write (and Issues, Pull requests: write)", essential))
    heal = ctx.config.heal.workflows if ctx.config else ()
    if ctx.env.get("ENSEMBLE_DEFAULT_TOKEN", "").lower() == "true" and not heal:
        checks.append(Check("CI on the bot's pushes", False, "pushes made with the default GITHUB_TOKEN start no "
                            "workflow runs, and heal.workflows is empty, so the bot's pull requests go untested",
                            "pass an App installation token or PAT as github-token, or list your CI workflows "
                            "under heal.workflows so the bot dispatches them"))
    return checks
