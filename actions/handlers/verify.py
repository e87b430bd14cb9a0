"""`/ensemble verify` and `verify: auto`: the judge's evidence on anyone's pull request, posted as one comment and a
check run `ensemble/verify`; and the job that posts what a read-only job could not.

The head GitHub keeps for the pull request (`refs/pull/<N>/head`, a fork's too) is fetched into a clone of the
repository and judged against its merge base with the base branch by the engine (`Verifier`,
bot/ensemble/verify.py), in a child process that holds no GitHub token, with the config as the merge base holds it
(read from the commit, never the checkout): a pull request that edits the workflow or `.github/ensemble.yml`
changes neither how it is tested nor who may trigger what. Its code runs only in the sandbox.

The report is one comment, found again by its marker and edited on every re-run, and a check run on the head,
`neutral` or `failure` (verify_report.py); with `verify.review: on` the critic's findings come as one review that
only comments. A `pull_request` job of a fork's pull request gets a read-only token: when GitHub refuses the first
write, the verification still runs and its evidence goes to a file (the Action uploads it as an artifact), and a
`workflow_run` job of the example workflow posts it (`post_evidence`). That job reads the file as data only: the
pull request is the one GitHub says the run was for (its head), the result is read back into typed values and
rendered anew, and evidence from a run whose pull request edits the workflows that produced it is not posted.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from actions.commands import Command
from actions.context import Context, Outcome, issue_of_pull
from actions.engine_env import engine_environment
from actions.github import GitHubError, PullInfo
from actions.handlers.replies import reply
from actions.markers import inert, marker
from actions.settings import config_at
from actions.verify_report import (
    CHECK_NAME,
    MARKER,
    conclusion,
    headline,
    report_text,
    review_body,
    review_comments,
    started_comment,
    verify_comment,
)
from bot.config import Config
from bot.trace import new_run_id, span
from common.git import git, git_succeeds
from common.testfiles import is_ci_path

if TYPE_CHECKING:
    from bot.ensemble.verify import VerifyJob, VerifyResult

log = logging.getLogger(__name__)
EVIDENCE_VERSION = 1
EVIDENCE_FILE = "evidence.json"
EVIDENCE_VARIABLE = "ENSEMBLE_VERIFY_EVIDENCE"  # the file a posting job reads (the action's `verify-evidence`)
MAX_EVIDENCE_BYTES = 2_000_000
AUTO_ACTIONS = ("opened", "synchronize", "reopened")


def command(ctx: Context, command: Command, number: int) -> Outcome:
    """`/ensemble verify` on an open pull request, by someone who may direct the bot (comment.run_command)."""
    pull = ctx.github.pull(number) if ctx.event.is_pull else None
    if pull is None or pull.state != "open":
        return reply(ctx, number, "`/ensemble verify` works on open pull requests: comment it on one.", "replied",
                     number)
    return verify(ctx, pull, by=ctx.event.sender)


def on_pull_request(ctx: Context) -> Outcome:
    """A pull request opened, pushed to or reopened: with `verify: auto` (in its base's config), verified when its
    author is not one of the repository's writers (theirs are verified on request)."""
    if ctx.event.action not in AUTO_ACTIONS:
        return Outcome("nothing-to-do", f"pull_request.{ctx.event.action}: nothing to verify")
    pull = ctx.github.pull(ctx.event.number or 0)
    config = config_at(ctx, pull.base_ref or ctx.github.default_branch())
    if config.verify.when != "auto":
        return Outcome("nothing-to-do", "`verify` is not `auto`: pull requests are verified on request "
                                        "(`/ensemble verify`)", pull.number)
    author = pull.author or ctx.event.author
    if author in ctx.bot_logins or issue_of_pull(ctx, pull) is not None:
        return Outcome("nothing-to-do", f"PR #{pull.number} is the bot's own", pull.number)
    if _writer(ctx, author):
        return Outcome("nothing-to-do", f"PR #{pull.number} is by @{author}, a writer: verified on request",
                       pull.number)
    return verify(ctx, pull, by="")


def _writer(ctx: Context, login: str) -> bool:
    """Whether `login` may direct the bot; False where the job's token may not ask (a fork's read-only one): verifying
    a writer's pull request by mistake grants nothing, its code runs only in the sandbox all the same."""
    try:
        return ctx.may_trigger(login)
    except GitHubError as exc:
        log.info("could not read @%s's permission (%s): verifying their pull request as an outsider's", login, exc)
        return False


def verify(ctx: Context, pull: PullInfo, by: str) -> Outcome:
    """Verify `pull` at its current head and post the report (or leave its evidence for a job that can)."""
    clone = ctx.github.clone(ctx.workdir / f"verify-{pull.number}")
    head = ctx.github.fetch_pull(clone, pull.number)
    base_name = pull.base_ref or ctx.github.default_branch()
    tip = ctx.github.fetch(clone, base_name) or git(clone, "rev-parse", "origin/HEAD").strip()
    base = git(clone, "merge-base", tip, head).strip()
    config = config_at(ctx, base, lambda path: _committed(clone, base, path))
    report = _Report(ctx, pull.number, head, by)
    report.start(base)
    from bot.ensemble.verify import VerifyJob

    job = VerifyJob(head, base, pull.title, pull.body)
    try:
        result = _run_verifier(ctx, clone, job, config)
    except Exception as exc:
        report.failed(f"{type(exc).__name__}: {exc}")
        raise
    if report.read_only:
        path = write_evidence(ctx, pull.number, result)
        return Outcome("verify-evidence", f"verified PR #{pull.number} at {head[:7]} ({headline(result)}); this job "
                       f"may not write, so the evidence is in {path} for the posting job", pull.number,
                       evidence=str(path))
    report.finish(result)
    return Outcome("verified", f"verified PR #{pull.number} at {head[:7]}: {headline(result)}", pull.number)


def post_evidence(ctx: Context, path: Path) -> Outcome:
    """The `workflow_run` job after a fork's read-only `pull_request` job: post the evidence it left in `path`, for
    the open pull request whose head the run was for, and only as data (the module's docstring)."""
    event = ctx.event
    pulls = [p for p in ctx.github.open_pulls() if p.head_sha == event.head_sha]
    if event.trigger != "pull_request" or not pulls:
        return Outcome("nothing-to-do", f"no open pull request has the head {event.head_sha[:7]} this run was for")
    pull = pulls[0]
    try:
        result = read_evidence(path, pull.number, event.head_sha)
    except EvidenceError as exc:
        log.warning("not posting the evidence of run %s: %s", event.run_id, exc)
        return Outcome("nothing-to-do", f"no evidence to post for PR #{pull.number}: {exc}", pull.number)
    if edited := [f for f in ctx.github.pull_files(pull.number) if is_ci_path(f) or f == "action.yml"]:
        text = (f"This pull request edits {', '.join(f'`{inert(f)}`' for f in edited[:3])}, which decide how the "
                "verification that ran for it worked, so its evidence is not posted. A maintainer can comment "
                "`/ensemble verify` to verify it with the base's workflow.")
        _Report(ctx, pull.number, result.head, "").note(text)
        return Outcome("evidence-refused", f"PR #{pull.number} edits the workflows; its evidence was not posted",
                       pull.number)
    report = _Report(ctx, pull.number, result.head, "")
    report.finish(result)
    return Outcome("verified", f"posted the verification of PR #{pull.number} at {result.head[:7]}: "
                               f"{headline(result)}", pull.number)


def evidence_path(ctx: Context) -> Path | None:
    """The evidence file this job was given to post (the action's `verify-evidence`), if any."""
    named = ctx.env.get(EVIDENCE_VARIABLE, "").strip()
    return Path(named) if named else None


class EvidenceError(ValueError):
    """An evidence file that is not what a verification writes, or not for the pull request it is posted to."""


def write_evidence(ctx: Context, number: int, result: VerifyResult) -> Path:
    """`result` as the evidence file of PR #`number`, where the Action uploads it from."""
    from bot.ensemble.wire import dump

    folder = Path(ctx.env.get("RUNNER_TEMP") or ctx.workdir.parent) / "ensemble-verify"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / EVIDENCE_FILE
    data = {"version": EVIDENCE_VERSION, "repository": ctx.github.full_name, "pull": number, "result": dump(result)}
    path.write_text(ctx.github.redactor.text(json.dumps(data)), encoding="utf-8")
    return path


def read_evidence(path: Path, number: int, head: str) -> VerifyResult:
    """The VerifyResult an evidence file holds, checked: its shape, and that it is for PR #`number` at `head`."""
    from bot.ensemble.verify import VerifyResult
    from bot.ensemble.wire import load

    try:
        raw = path.read_bytes()[:MAX_EVIDENCE_BYTES + 1]
    except OSError as exc:
        raise EvidenceError(f"cannot read {path.name}: {exc.strerror}") from None
    if len(raw) > MAX_EVIDENCE_BYTES:
        raise EvidenceError(f"{path.name} is larger than {MAX_EVIDENCE_BYTES} bytes")
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("version") != EVIDENCE_VERSION:
            raise EvidenceError(f"{path.name} is not a version-{EVIDENCE_VERSION} evidence file")
        result = load(VerifyResult, data.get("result"))
    except ValueError as exc:  # bad JSON, or a result that does not fit the type
        raise EvidenceError(f"{path.name} does not hold a verification: {str(exc)[:300]}") from None
    if data.get("pull") != number or result.head != head:
        raise EvidenceError(f"{path.name} is for another pull request or head than PR #{number} at {head[:7]}")
    return result


def _run_verifier(ctx: Context, clone: Path, job: VerifyJob, config: Config) -> VerifyResult:
    """The engine's verification, in its own process under the Action (no GitHub credential reaches it)."""
    from actions.engine_process import ChildVerifier

    verifier = ctx.verifier or ChildVerifier()
    env = engine_environment(ctx.env, config)
    run_id = new_run_id()
    with span("ensemble.engine", engine_run=run_id, verify=True):
        return verifier(clone, job, config, env, run_id=run_id, progress=lambda *_: None, stop=threading.Event())


@dataclass
class _Report:
    """The report comment and the check run of one verification, as they go; `read_only` once GitHub refused the
    first write (a fork's `pull_request` job), `checks` False once it refused the check run."""

    ctx: Context
    number: int
    head: str
    by: str
    comment_id: int | None = None
    check_id: int | None = None
    read_only: bool = False
    checks: bool = True  # False once GitHub refused the check run

    def start(self, base: str) -> None:
        """The comment saying the verification runs (the first write: refused, the job is read-only), and the check
        run, in progress (refused, the report goes without one: the token lacks `checks: write`)."""
        try:
            self._write(started_comment(self.head, base, self.by))
        except GitHubError as exc:
            if exc.status != 403:
                raise
            log.info("GitHub refused the first write (%s): verifying, and leaving the evidence for a job that can "
                     "post it", exc)
            self.read_only = True
            return
        try:
            self.check_id = self.ctx.github.start_check(self.head, CHECK_NAME, "Verifying",
                                                        f"Verifying {self.head[:7]} against {base[:7]}.")
        except GitHubError as exc:
            if exc.status != 403:
                raise
            log.warning("no check run %s: GitHub refused it (%s); give the job `checks: write`", CHECK_NAME, exc)
            self.checks = False

    def finish(self, result: VerifyResult) -> None:
        """The report, the check run's conclusion, and the critic's review when it has findings."""
        self._write(verify_comment(result, self.number, self.by))
        summary = report_text(result, self.by)
        if self.checks and self.check_id is None:
            self.check_id = self.ctx.github.start_check(self.head, CHECK_NAME, "Verified", summary)
        if self.check_id is not None:
            self.ctx.github.finish_check(self.check_id, conclusion(result), headline(result), summary)
        if result.findings:
            self.ctx.github.comment_review(self.number, self.head, review_body(result), review_comments(result))

    def failed(self, why: str) -> None:
        """The verification failed: said on the comment and the check run (neutral: nothing was shown either way)."""
        if self.read_only:
            return
        text = f"### ensemble verify\n\nThe verification of {self.head[:7]} failed, so nothing is proven either way:" \
               f"\n\n```text\n{inert(why)[:1500].replace('```', '` ` `')}\n```"
        self._write(text + "\n\n" + marker(MARKER, {"pr": self.number, "head": self.head}))
        if self.check_id is not None:
            self.ctx.github.finish_check(self.check_id, "neutral", "The verification failed", text)

    def note(self, text: str) -> None:
        """A report comment that says `text` instead of evidence."""
        self._write(f"### ensemble verify\n\n{text}\n\n" + marker(MARKER, {"pr": self.number, "head": self.head}))

    def _write(self, body: str) -> None:
        """The report comment: the one the bot already wrote on this pull request (edited), or a new one."""
        if not body.rstrip().endswith("-->"):
            body += "\n\n" + marker(MARKER, {"pr": self.number, "head": self.head})
        if self.comment_id is None:
            found = self.ctx.own_markers(self.number, MARKER)
            self.comment_id = found[-1][0].id if found else None
        if self.comment_id is None:
            self.comment_id = self.ctx.github.comment(self.number, body)
        else:
            self.ctx.github.edit_comment(self.number, self.comment_id, body)


def _committed(clone: Path, commit: str, path: str) -> str | None:
    """`path`'s text in `commit` of `clone` (its objects, not its checkout); None where it has none."""
    if not git_succeeds(clone, "cat-file", "-e", f"{commit}:{path}"):
        return None
    return git(clone, "show", f"{commit}:{path}")

