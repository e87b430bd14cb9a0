"""The doctor's check of the history channel: is there history to rank with, or a shallow clone that hides it."""

from __future__ import annotations

from bot.doctor.check import Check, DoctorContext
from common.git import git

NAME = "Retrieval history"
UNSHALLOW = "git fetch --filter=blob:none --unshallow"


def check_history(ctx: DoctorContext) -> Check:
    """Advice only: without history retrieval still ranks today's code, just with less evidence."""
    if ctx.config is not None and not ctx.config.index.history:
        return Check(NAME, True, "off (index.history: false); retrieval ranks today's code only")
    shallow = git(ctx.repo, "rev-parse", "--is-shallow-repository", check=False).strip()
    commits = git(ctx.repo, "rev-list", "--count", "HEAD", check=False).strip()
    if shallow == "true":
        return Check(NAME, False, f"shallow clone ({commits or '?'} commits): retrieval ranks without the "
                     "repository's history of fixes",
                     f"`{UNSHALLOW}` fetches commits and trees only (no file contents); the Action does this "
                     "itself when index.history is on")
    if not commits.isdigit():
        return Check(NAME, True, "no commits yet: nothing to learn from")
    return Check(NAME, True, f"{commits} commits reachable from HEAD{_cached(ctx)}; past fixes vote for the "
                 "files they changed")


def _cached(ctx: DoctorContext) -> str:
    """What the index has read of the history so far (nothing to say in a core install or before indexing)."""
    try:
        from indexer.history import cached_history
        from indexer.store import index_dir
    except ImportError:
        return ""
    cached = cached_history(index_dir(ctx.repo))
    return f" ({cached.count} read into the index)" if cached else ""
