"""Checks of the repository's commit rules: does it look like it requires a DCO sign-off?"""

from __future__ import annotations

from pathlib import Path

from bot.doctor.check import Check, DoctorContext
from common.git import git, git_succeeds

RECENT = 20  # the newest non-merge commits read for sign-offs


def dco_evidence(repo: Path) -> str:
    """Why the repository at HEAD looks like it requires a DCO sign-off ('' when it does not): the DCO app's
    `.github/dco.yml`, a workflow that names DCO, or `Signed-off-by:` on most recent commits."""
    if not git_succeeds(repo, "rev-parse", "--verify", "-q", "HEAD"):
        return ""
    if git_succeeds(repo, "cat-file", "-e", "HEAD:.github/dco.yml"):
        return "it has .github/dco.yml (the DCO app's settings)"
    workflows = git(repo, "grep", "-l", "-i", "-w", "-I", "dco", "HEAD", "--", ".github/workflows", check=False).split()
    if workflows:
        return f"a workflow names DCO ({workflows[0].removeprefix('HEAD:')})"
    messages = [m for m in git(repo, "log", f"-{RECENT}", "--no-merges", "--format=%B%x00", "HEAD").split("\0")
                if m.strip()]
    signed = sum("\nSigned-off-by:" in "\n" + m for m in messages)
    if len(messages) >= 3 and signed * 2 > len(messages):
        return f"{signed} of its last {len(messages)} commits carry Signed-off-by"
    return ""


def check_signoff(ctx: DoctorContext) -> Check:
    signoff = bool(ctx.config and ctx.config.commit.signoff)
    evidence = dco_evidence(ctx.repo)
    if signoff:
        return Check("Commit sign-off", True, "the bot signs off its commits (commit.signoff: true)")
    if not evidence:
        return Check("Commit sign-off", True, "no DCO sign-off requirement seen")
    return Check("Commit sign-off", False, f"the repository looks like it requires a DCO sign-off: {evidence}, but "
                 "the bot's commits carry none", "set `commit: {signoff: true}` in .github/ensemble.yml")
