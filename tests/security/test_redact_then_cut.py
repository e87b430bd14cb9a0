"""Redact, then cut: text cut short on its way to a sink is masked before the cut, at any offset.

A secret cut in two is whole in neither part, so a redactor that runs after the cut finds nothing
and its first characters are written down. Each place that cuts text bound for a trace, a lesson,
a commit message, an insight note, the run summary or an error is given a secret placed so that
the cut falls at every offset inside it; no six characters of it may come out. The end-to-end
case (a coder reply cut to 1,500 characters in the trace) is in test_secrets_by_name.py.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from types import SimpleNamespace

import pytest

from bot.ensemble.insights import Lesson, insight
from bot.ensemble.report import render_summary
from bot.ensemble.select import describe
from bot.ensemble.types import CRASHED, Round, RunResult, Task, TeamResult
from bot.forge.policy import commit_message
from bot.llm.openai import _error_text
from bot.redact import MASK, RedactingFilter, clip
from common.git import GitError

SECRET = "quietharbor7lantern29meadow"  # in DEPLOY_SECRET: a secret by its name, no token shape

# (where the text goes: what cuts it, how many characters of the text it keeps)
HEAD_CUTS: dict[str, tuple[Callable[[str], str], int]] = {
    "clip": (lambda text: clip(text, 100), 100),
    "a lesson in a prompt": (lambda text: Lesson(task=text, outcome="passed").text(), 160),
    "a commit subject": (lambda text: commit_message(text, "", {}), 72),
    "an insight note": (lambda text: insight(Round(1, edit_errors=text)), 160),
    "a round's failure signature": (lambda text: Round(1, edit_errors=text).signature, 120),
    "a crashed team in the summary": (lambda text: describe(TeamResult("a", stop_reason=CRASHED, error=text)), 200),
    "the run summary's detail": (lambda text: render_summary(RunResult("r", Task("t", ""), stop_reason="stuck",
                                                                       stop_detail=text)), 300),
    "a provider's error message": (lambda text: _error_text(SimpleNamespace(body={"error": {"message": text}})), 500),
}


@pytest.fixture(autouse=True)
def deploy_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_SECRET", SECRET)


@pytest.mark.parametrize("sink", list(HEAD_CUTS))
def test_a_secret_cut_at_any_offset_leaves_no_prefix_behind(sink: str) -> None:
    cut, keeps = HEAD_CUTS[sink]
    leaked = []
    for before_cut in range(1, len(SECRET)):
        text = "." * (keeps - before_cut) + SECRET + " and the rest"
        if SECRET[:6] in cut(text):
            leaked.append(before_cut)
    assert leaked == [], f"{sink}: the first six characters survive a cut after {leaked} characters of the secret"


def test_a_secret_cut_from_the_end_of_git_output_leaves_no_suffix_behind() -> None:
    from actions.github.remote import git_words

    for after_cut in range(1, len(SECRET)):
        stderr = "fatal: " + SECRET + "." * (400 - after_cut)
        words = git_words(GitError("git push failed", ["push"], returncode=128, stderr=stderr))
        assert SECRET[-6:] not in words and len(words) <= 400


def test_log_tracebacks_and_exception_messages_are_masked() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RedactingFilter())
    log = logging.getLogger("tests.security.redact_then_cut")
    log.addHandler(handler)
    try:
        try:
            raise ValueError(f"could not connect with {SECRET}")
        except ValueError:
            log.exception("deploy failed")
    finally:
        log.removeHandler(handler)
    written = out.getvalue()
    assert "Traceback" in written and f"ValueError: could not connect with {MASK}" in written
    assert SECRET[:6] not in written
