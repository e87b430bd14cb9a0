"""`ensemble verify`: what a branch's tests prove against its merge base with another, on a local checkout.

The same verification `/ensemble verify` posts on a pull request (bot/ensemble/verify.py), for a maintainer who has
fetched someone's branch: the base's tests at the merge base, the judged run at the head, the branch's own tests at
both, its edits to the tests, the static screen; no model call unless `verify.review` is on. The checkout is never
touched (worktrees under `.ensemble/worktrees/`), and the config is read from the merge base's commit.

    ensemble verify --repo PATH --base origin/main [--head their-branch] [--json]

Exit codes: 0 when nothing speaks against the change, 1 when something does (a broken test, a failing new test,
an edit to the tests, a line that reaches into the runner), 2 for bad usage or config.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UsageError
from bot.redact import scrub
from common.git import GitError, git

if TYPE_CHECKING:  # the engine's modules load when a verification starts: `ensemble --help` stays fast
    from bot.ensemble.verify import VerifyResult


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("verify", help="what a branch's tests prove against its merge base with another")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="the git checkout (default: .)")
    parser.add_argument("--base", required=True, help="the branch or commit the change would merge into")
    parser.add_argument("--head", default="HEAD", help="the change's branch or commit (default: HEAD)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from bot.commands.index import checked_repo
    from bot.config import CONFIG_PATH, Config, apply_env_overrides, parse_config
    from bot.ensemble.verify import VerifyJob, verify_pull
    from bot.ensemble.wire import dump

    repo = checked_repo(args.repo)
    head, base = _commit(repo, args.head, "--head"), _commit(repo, args.base, "--base")
    merge_base = git(repo, "merge-base", base, head).strip()
    text = git(repo, "show", f"{merge_base}:{CONFIG_PATH}", check=False) if _exists(repo, merge_base, CONFIG_PATH) \
        else None
    config = apply_env_overrides(parse_config(text, f"{CONFIG_PATH} at {merge_base[:12]}") if text is not None
                                 else Config(), os.environ)
    result = verify_pull(repo, VerifyJob(head, merge_base), config, os.environ)
    if args.json:
        print(scrub(json.dumps(dump(result), indent=2)))
    else:
        print(scrub(render(result)))
    return 1 if result.alarming else 0


def render(result: VerifyResult) -> str:
    """The verification as plain text for a terminal."""
    from bot.ensemble.report import name_list
    from bot.ensemble.verify import verdict

    lines = [verdict(result), f"head {result.head[:7]} against its merge base {result.base[:7]}"]
    for label, names in (("fixed", result.fixed), ("broken", result.broken), ("still failing", result.still_failing),
                         ("flaky", result.flaky)):
        if names:
            lines.append(f"  {label}: {name_list(names)}")
    lines += [f"  new test {t.name}: {t.at_base or 'did not run'} without the change, {t.at_head or 'did not run'} "
              "with it" for t in result.new]
    lines += [f"  edit {e.path}:{e.line}: {e.detail}" for e in result.edits]
    lines += [f"  screen {h.path}:{h.line}: {h.what}" for h in result.screen]
    lines += [f"  tampering: {t}" for t in result.tampering]
    lines += [f"  not ruled out: {d.path + ':' + str(d.line) + ': ' if d.path else ''}{d.detail}" for d in result.doubts]
    lines.append(f"{result.test_runs} test runs in {result.test_s:.0f} s; {result.duration_s:.0f} s in all; "
                 f"{result.usage['calls']} model calls (${result.usage['cost_usd']:.4f})")
    return "\n".join(lines)


def _commit(repo: Path, ref: str, option: str) -> str:
    try:
        return git(repo, "rev-parse", "--verify", f"{ref}^{{commit}}").strip()
    except GitError:
        raise UsageError(f"{option} {ref}: no such branch or commit in {repo}; fetch it first "
                         "(git fetch origin pull/<N>/head:their-branch)") from None


def _exists(repo: Path, commit: str, path: str) -> bool:
    return bool(git(repo, "ls-tree", "--name-only", commit, "--", path).strip())
