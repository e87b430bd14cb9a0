"""Who may direct the bot, by the `approvers` setting of the config on the default branch (never a PR head).

    write        people with write, maintain or admin permission run (label, `/ensemble run`, `retry`, a manual
                 dispatch), revise (`/ensemble revise`, a review asking for changes, an approving review) and
                 approve plans; the default, and the rule before this setting existed
    codeowners   writers run and revise; approving a plan (`/ensemble approve-plan`) needs an owner, by the
                 CODEOWNERS file on the default branch, of every file the plan touches that has one
    [a, o/team]  only the listed logins and the members of the listed teams, and only while they also have
                 write permission: a list narrows the writers, it never lets a reader direct the bot

Answering the planner's questions and `/ensemble stop` stay open to every writer: a stop spends nothing.
The bot itself never approves anything: it submits no reviews at all.
"""

from __future__ import annotations

from actions.codeowners import LOCATIONS, owners_of, parse_codeowners
from actions.context import Context
from actions.settings import remote_config
from bot.config import Config
from bot.ensemble.types import Plan


def refusal(ctx: Context, login: str, config: Config | None = None) -> str:
    """Why `login` may not run or revise the bot ('' when they may); the reply names who may."""
    config = config or remote_config(ctx)
    if not ctx.may_trigger(login):
        return f"@{login} needs write, maintain or admin permission on this repository to direct the bot."
    if isinstance(config.approvers, str) or _listed(ctx, config.approvers, login):
        return ""
    return (f"@{login}, in this repository only {_names(config.approvers)} may run, revise or approve the bot's work "
            "(`approvers` in the bot's config), so I have not done anything.")


def plan_refusal(ctx: Context, login: str, plan: Plan, plan_files: tuple[str, ...] = ()) -> str:
    """Why `login` may not approve `plan` ('' when they may). With `approvers: codeowners`, the files in
    `plan.files` and `plan_files` (the plan as the bot first posted it) that have owners need `login` among them."""
    config = remote_config(ctx)
    if why := refusal(ctx, login, config):
        return why
    if config.approvers != "codeowners":
        return ""
    rules = parse_codeowners(_codeowners_text(ctx))
    owned = {path: owners for path in dict.fromkeys((*plan.files, *plan_files))
             if (owners := owners_of(rules, path))}
    missing = {path: owners for path, owners in owned.items() if not _listed(ctx, owners, login)}
    if not missing:
        return ""
    lines = "\n".join(f"- `{path}`: {_names(owners)}" for path, owners in missing.items())
    return (f"@{login}, with `approvers: codeowners` a plan is approved by the owners (CODEOWNERS on the default "
            f"branch) of the files it touches, and you do not own these:\n{lines}\n\nOne of their owners may "
            "comment `/ensemble approve-plan`.")


def _codeowners_text(ctx: Context) -> str:
    """The first CODEOWNERS file GitHub would use, from the default branch ('' when there is none)."""
    branch = ctx.github.default_branch()
    return next((text for path in LOCATIONS if (text := ctx.github.read_file(path, branch)) is not None), "")


def _listed(ctx: Context, entries: tuple[str, ...], login: str) -> bool:
    """True when `login` is one of `entries` (logins, `org/team` slugs, with or without `@`)."""
    for entry in (e.removeprefix("@") for e in entries):
        org, slash, team = entry.partition("/")
        if (ctx.github.team_member(org, team, login) if slash else entry.lower() == login.lower()):
            return True
    return False


def _names(entries: tuple[str, ...]) -> str:
    """Entries as mentions a person reads: `@alice`, `@octo/maintainers` (code spans: nobody gets pinged)."""
    names = [f"`@{e.removeprefix('@')}`" for e in entries]
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
