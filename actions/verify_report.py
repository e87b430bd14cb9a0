"""`/ensemble verify`'s words on GitHub: the report comment, the check run's verdict, the critic's review. Pure: a
`VerifyResult` in, markdown out.

Everything in a result came from the pull request's code and its test runs (test names, file paths, lines of code,
the critic's notes), so all of it is untrusted: names and code go into code spans that can hold no marker or
markup (`code_span`; a `|` escaped inside tables), prose the bot did not write never reaches the comment outside
them, and the evidence a job could not post crosses to the job that posts it as data that is rendered here again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from actions.markers import inert, marker
from actions.render import code_span
from bot.ensemble.report import name_list
from bot.redact import clip
from sandbox.model import FAILING

if TYPE_CHECKING:  # the engine's modules load when a verification runs, not when an event is routed
    from bot.ensemble.proof import NewTest, TestEdit
    from bot.ensemble.types import TestOutcome
    from bot.ensemble.verify import VerifyResult

CHECK_NAME = "ensemble/verify"
MARKER = "verify"
SHOWN = 20  # names listed per group before "and N more"
NO_MENTION = "@\u200b"  # an `@` a model wrote mentions no one
EDIT_WORDS = {"deleted_test_file": "test file deleted", "deleted_test": "test deleted", "skipped_test": "test skipped",
              "weakened_test": "test weakened", "edited_test": "test changed", "moved_test": "test moved",
              "edited_harness": "test settings changed", "new_harness": "new test settings",
              "conftest_reach": "fixtures that reach the existing tests", "ci_config": "CI configuration changed",
              "edited_test_data": "test data changed", "edited_test_support": "test helper changed",
              "edited_doctest": "doctest changed", "shadows_module": "module shadowed"}
Conclusion = Literal["neutral", "failure"]


def headline(result: VerifyResult) -> str:
    """The verdict in one sentence (the engine's words: bot/ensemble/verify.py `verdict`)."""
    from bot.ensemble.verify import verdict

    return verdict(result)


def conclusion(result: VerifyResult) -> Conclusion:
    """The check run's conclusion: `failure` when the evidence speaks against the pull request, else `neutral`
    (never `success`: the check reports evidence, the maintainer decides; it blocks only where they make it
    required)."""
    return "failure" if result.alarming else "neutral"


def verify_comment(result: VerifyResult, pr: int, by: str = "") -> str:
    """The report comment (edited on re-runs: its marker names the pull request and the head it verified)."""
    return "\n".join([report_text(result, by), "", marker(MARKER, {"pr": pr, "head": result.head})])


def started_comment(head: str, base: str, by: str = "") -> str:
    """The report comment while the verification runs."""
    who = f" (asked by @{inert(by)})" if by else ""
    return (f"### ensemble verify\n\nVerifying {code_span(head[:7])} against its merge base {code_span(base[:7])}"
            f"{who}: the tests run in the sandbox, the base's first. This comment shows what they prove when they "
            f"are done.")


def report_text(result: VerifyResult, by: str = "") -> str:
    """The report as markdown (the comment without its marker; the check run's summary)."""
    who = f", asked by @{inert(by)}" if by else ""
    lines = [f"### ensemble verify: {headline(result)}", "",
             f"Head {code_span(result.head[:7])} judged against its merge base {code_span(result.base[:7])}{who}. "
             "The base's tests ran as the base has them over the head's code; the pull request's own tests ran as it "
             "wrote them, at the base and at the head.", "", *_counts(result)]
    for part in (_tests_part(result), _new_part(result.new, result.flaky), _edits_part(result.edits),
                 _screen_part(result), _doubts_part(result), _review_part(result)):
        if part:
            lines += ["", *part]
    return "\n".join([*lines, "", *_how(result)])


def _counts(result: VerifyResult) -> list[str]:
    new = result.new
    proving = sum(t.proves for t in new)
    return ["| | tests |", "| --- | --- |",
            f"| fixed: red at the base, green at the head | {len(result.fixed)} |",
            f"| broken: green at the base, not at the head | {len(result.broken)} |",
            f"| still failing: red at the base and at the head | {len(result.still_failing)} |",
            f"| new: added by this pull request | {len(new)}; failing without the change and passing with it: "
            f"{proving} |",
            f"| flaky: a second run disagreed with the first | {len(result.flaky)} |",
            f"| edits to the tests or what they use | {len(result.edits)} |"]


def _tests_part(result: VerifyResult) -> list[str]:
    groups = [("Fixed", result.fixed), ("Broken", result.broken), ("Still failing", result.still_failing),
              ("Flaky (not counted above)", result.flaky)]
    items = [f"- **{label}**: {name_list(names, code_span, SHOWN)}" for label, names in groups if names]
    return ["#### The tests that were there before", "", *items] if items else []


def _new_part(new: Sequence[NewTest], flaky: Sequence[str]) -> list[str]:
    if not new:
        return []
    rows = [f"| {_cell(code_span(t.name))} | {t.at_base or 'did not run'} | {t.at_head or 'did not run'} | "
            f"{_proof(t, flaky)} |" for t in new[:SHOWN]]
    more = ["", f"And {len(new) - SHOWN} more."] if len(new) > SHOWN else []
    return ["#### New tests", "", "| test | without the change (base) | with it (head) | what it proves |",
            "| --- | --- | --- | --- |", *rows, *more]


def _proof(test: NewTest, flaky: Sequence[str]) -> str:
    if test.name in flaky:
        return "nothing: flaky, a second run disagreed"
    if test.proves:
        return "the change: it fails without it"
    if test.idle:
        return "nothing about the change: it passes without it"
    if test.at_head in FAILING:
        return "it fails with the change"
    return "unknown"


def _edits_part(edits: Sequence[TestEdit]) -> list[str]:
    if not edits:
        return []
    items = []
    for edit in edits[:SHOWN]:
        where = code_span(f"{edit.path}:{edit.line}") + (" (at the base)" if edit.at_base else "")
        change = f" {code_span(clip(edit.was, 120))} → {code_span(clip(edit.now, 120))}" if edit.was and edit.now else \
            f" removed {code_span(clip(edit.was, 120))}" if edit.was else ""
        items.append(f"- **{EDIT_WORDS.get(edit.kind, 'edited')}** {where}: {inert(edit.detail.split('; ')[0])}."
                     f"{change}")
    return ["#### Edits to the tests and what they use", "",
            "The judge ran the base's versions of these files; the edits are named so a reviewer can weigh them.",
            "", *items]


def _screen_part(result: VerifyResult) -> list[str]:
    if not (result.screen or result.tampering):
        return []
    items = [f"- {code_span(f'{h.path}:{h.line}')} {inert(h.what)}: {code_span(clip(h.code, 160))}"
             for h in result.screen[:SHOWN]]
    items += [f"- in the test run: {code_span(clip(t, 500))}" for t in result.tampering[:SHOWN]]
    return ["#### Static screen and the run's checks", "", *items]


def _doubts_part(result: VerifyResult) -> list[str]:
    if not result.doubts:
        return []
    items = [f"- {code_span(f'{d.path}:{d.line}') + ': ' if d.path else ''}{inert(d.detail)}"
             for d in result.doubts[:SHOWN]]
    return ["#### Not ruled out", "", *items]


def _review_part(result: VerifyResult) -> list[str]:
    if not result.findings:
        return []
    return ["#### The critic's review", "",
            f"{_plural(len(result.findings), 'finding')} on the lines they concern, in a review that only comments."]


def _how(result: VerifyResult) -> list[str]:
    usage = result.usage
    calls = usage["calls"]
    models = f"{calls} model call{'' if calls == 1 else 's'}, ${usage['cost_usd']:.4f}" if calls else "no model call"
    before, after = result.tests_before, result.tests_after
    return ["<details><summary>How this was checked, and what it cost</summary>", "",
            f"- where: {inert(result.environment) or 'the sandbox'}; no network, no secrets, no token",
            *([f"- its changes to {name_list(result.pinned, code_span, 5)} were not used: the tests ran with the "
               "base's CI recipe and the bot's config as the base has them"] if result.pinned else []),
            f"- tests at the base: {_count(before)}; at the head: {_count(after)}",
            f"- {result.test_runs} test run{'' if result.test_runs == 1 else 's'} in {result.test_s:.0f} s; "
            f"{result.duration_s:.0f} s in all; {models}",
            "- re-run with `/ensemble verify`; this comment is edited, not repeated", "", "</details>"]


def review_body(result: VerifyResult) -> str:
    """The body of the critic's review (its findings are the review's line comments)."""
    return (f"The critic read this pull request's diff with what its tests prove ({inert(headline(result))}) and left "
            f"{_plural(len(result.findings), 'note')} on the lines below. This review only comments: it neither approves nor "
            "requests changes.")


def review_comments(result: VerifyResult) -> list[tuple[str, int, str]]:
    """The critic's findings as (path, line, text) review comments, their text fenced as the model's."""
    return [(f.path, f.line, "**critic**: " + inert(f.body).replace("@", NO_MENTION)) for f in result.findings]


def _count(tests: TestOutcome | None) -> int:
    return (tests.total or len(tests.results)) if tests is not None else 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"





def _cell(text: str) -> str:
    """Text for a table cell: a `|` would end the cell, even inside a code span."""
    return text.replace("|", "\\|")
