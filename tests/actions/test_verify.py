"""End to end: `/ensemble verify` judges people's pull requests and posts what their tests prove.

The fake GitHub holds the repository (real git over HTTP); each pull request is a person's branch pushed to it. The
verification is the engine's (`bot/ensemble/verify.py`: the judge, its base run at the merge base, the Docker
sandbox), in this process so the pull requests share one base run; the report is the comment and the check run the
bot leaves on GitHub, and the comment is rendered by GitHub's markdown endpoint (the fake's) and opened in a
headless browser.
"""

from __future__ import annotations

import html.parser
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes.github_hub import REPO, Hub
from tests.actions.verify_world import BOT, CALC, CASES, TESTS, World, world_at

pytestmark = [pytest.mark.docker, pytest.mark.slow]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    fake, made = world_at(tmp_path_factory.mktemp("verify"))
    try:
        yield made
    finally:
        fake.__exit__(None, None, None)


def fix(hub: Hub) -> int:
    """Fixes `add`, with a new test that fails without the fix."""
    return hub.propose("fix-add", {"calc.py": CALC.replace("return a - b", "return a + b"),
                                   "tests/test_negative.py": "from calc import add\n\n\ndef test_add_negative():\n"
                                                             "    assert add(-1, -1) == -2\n"},
                       "Fix add", author="carol")


def idle(hub: Hub) -> int:
    """Rewrites `scale`, with a new test that passes without the change too."""
    return hub.propose("scale-comprehension", {
        "calc.py": CALC.replace("return [v * factor for v in values]", "return list(map(lambda v: v * factor, values))"),
        "tests/test_scale.py": "from calc import scale\n\n\ndef test_scale_empty():\n    assert scale([], 3) == []\n"},
        "Fix scale", author="carol")


def breaks(hub: Hub) -> int:
    """Breaks `mul`."""
    return hub.propose("faster-mul", {"calc.py": CALC.replace("return a * b", "return a * b if a else b")},
                       "Faster mul", author="carol")


def weakens(hub: Hub) -> int:
    """Breaks `mul` for zero and drops the assertion that shows it."""
    return hub.propose("mul-zero", {"calc.py": CALC.replace("return a * b", "return a * b if a else b"),
                                    "tests/test_calc.py": TESTS.replace("    assert mul(0, 5) == 0\n", "")},
                       "Simplify mul", author="carol")


def edits_data(hub: Hub) -> int:
    """Changes `scale`, and the expected value the tests read from data/cases.json to match it."""
    return hub.propose("scale-offset", {
        "calc.py": CALC.replace("return [v * factor for v in values]",
                                "return [v * factor + i for i, v in enumerate(values)]"),
        "data/cases.json": CASES.replace('"expected": [2, 4]', '"expected": [2, 5]')}, "Offset scale", author="carol")


def forges(hub: Hub) -> int:
    """Makes `add` return a value equal to anything, and imports the test runner into library code."""
    return hub.propose("always-equal", {"calc.py": "import unittest\n\n\nclass Anything(int):\n"
                                                  "    def __eq__(self, other):\n        return True\n\n"
                                                  "    __hash__ = int.__hash__\n\n\n" + CALC.replace(
                                                      "return a - b", "return Anything(a - b)")},
                       "Make add robust", author="carol")


def test_a_fix_whose_new_test_fails_at_the_base_is_reported_as_proven(world: World) -> None:
    pr = world.verified("fix", fix)
    assert world.outcomes["fix"].result == "verified", world.outcomes["fix"].message
    report = world.report(pr)
    assert "### ensemble verify: Proven: fixes 1 test that failed at the base and 1 new test fails without" in report
    assert "`tests/test_calc.py::test_add`" in report
    assert "| `tests/test_negative.py::test_add_negative` | fail | pass | the change: it fails without it |" in report
    check = world.check(pr)
    assert (check["status"], check["conclusion"]) == ("completed", "neutral")
    assert check["output"]["title"].startswith("Proven")
    assert "no model call" in report and "#### Edits" not in report


def test_a_new_test_that_passes_at_the_base_too_proves_nothing(world: World) -> None:
    pr = world.verified("idle", idle)
    report = world.report(pr)
    assert "### ensemble verify: Not proven: its new test passes at the base too" in report
    assert "| `tests/test_scale.py::test_scale_empty` | pass | pass | nothing about the change: it passes without it |" \
        in report
    assert world.check(pr)["conclusion"] == "neutral"


def test_a_pull_request_that_breaks_a_passing_test_is_reported_and_fails_the_check(world: World) -> None:
    pr = world.verified("breaks", breaks)
    report = world.report(pr)
    assert "### ensemble verify: Breaks 1 test that passed at the base" in report
    assert "- **Broken**: `tests/test_calc.py::test_mul`" in report
    assert world.check(pr)["conclusion"] == "failure"


def test_a_weakened_test_is_named_with_its_file_and_line_and_judged_as_the_base_has_it(world: World) -> None:
    pr = world.verified("weakens", weakens)
    report = world.report(pr)
    assert re.search(r"- \*\*test weakened\*\* `tests/test_calc\.py:1[34]`: the test test_mul lost assertions "
                     r"\(2 real ones before, 1 now\)", report), report
    assert "- **Broken**: `tests/test_calc.py::test_mul`" in report  # the judge ran the base's test_mul
    assert world.check(pr)["conclusion"] == "failure"


def test_an_edited_expected_value_in_the_tests_data_is_named_with_its_line(world: World) -> None:
    pr = world.verified("data", edits_data)
    report = world.report(pr)
    assert "- **test data changed** `data/cases.json:2`: the test data in data/cases.json was edited." in report
    assert '`{"values": [1, 2], "factor": 2, "expected": [2, 4]},` → `{"values": [1, 2], "factor": 2, "expected": ' \
           '[2, 5]},`' in report
    assert "- **Broken**: `tests/test_calc.py::test_scale_cases`" in report


def test_an_answer_equal_to_anything_and_a_line_into_the_runner_are_shown_and_fail_the_check(world: World) -> None:
    pr = world.verified("forges", forges)
    report = world.report(pr)
    assert "### ensemble verify: Not evidence: the test runs were tampered with" in report
    assert "#### Static screen and the run's checks" in report and "- `calc.py:1` imports unittest" in report
    assert re.search(r"- in the test run: `[^`]*(?:Anything|equal)[^`]*`", report), report
    assert world.check(pr)["conclusion"] == "failure"


def test_someone_without_write_access_is_refused_and_nothing_runs(world: World) -> None:
    pr = world.verified("fix", fix)
    before = len(world.fake.repos[REPO].check_runs)
    outcome = world.hub.send("issue_comment", world.hub.comment(pr, "/ensemble verify", sender="trina"))
    assert outcome.result == "refused"
    replies = [c["body"] for c in world.fake.comments_on(REPO, pr) if c["user"]["login"] == BOT]
    assert any("@trina" in r and "write" in r for r in replies)
    assert len(world.fake.repos[REPO].check_runs) == before and world.report(pr)


def test_the_report_renders_as_github_shows_it_in_a_browser(world: World, tmp_path: Path) -> None:
    pr = world.verified("fix", fix)
    html_text = world.hub.github_client().render_markdown(world.report(pr))
    page = tmp_path / "report.html"
    page.write_text(f"<!doctype html><meta charset=utf-8><title>report</title><body>{html_text}</body>",
                    encoding="utf-8")
    dom = _browser_dom(page, tmp_path)
    tree = _Outline()
    tree.feed(dom)
    assert tree.headings[0] == ("h3", "ensemble verify: Proven: fixes 1 test that failed at the base and 1 new test "
                                      "fails without the change")
    assert [h for h in tree.headings[1:]] == [("h4", "The tests that were there before"), ("h4", "New tests")]
    counts, new = tree.tables
    assert counts[0] == ["", "tests"] and ["fixed: red at the base, green at the head", "1"] in counts
    assert new[0] == ["test", "without the change (base)", "with it (head)", "what it proves"]
    assert new[1] == ["tests/test_negative.py::test_add_negative", "fail", "pass", "the change: it fails without it"]
    assert tree.summaries == ["How this was checked, and what it cost"]
    assert "ensemble:verify" not in tree.text and "<!--" not in dom  # the marker stays hidden


def _browser_dom(page: Path, tmp_path: Path) -> str:
    """The page's DOM as headless chromium built it."""
    from tests.bot.test_report_html import chromium_or_skip

    browser = chromium_or_skip()
    ran = subprocess.run([browser, "--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={tmp_path / 'p'}",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    return ran.stdout


class _Outline(html.parser.HTMLParser):
    """A page's headings, tables (rows of cell texts), `<summary>` texts and visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[tuple[str, str]] = []
        self.tables: list[list[list[str]]] = []
        self.summaries: list[str] = []
        self.text = ""
        self._open: list[str] = []
        self._buffer = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        if tag in ("h1", "h2", "h3", "h4", "td", "th", "summary"):
            self._buffer = ""
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        text = " ".join(self._buffer.split())
        if tag in ("h1", "h2", "h3", "h4"):
            self.headings.append((tag, text))
        elif tag in ("td", "th"):
            self.tables[-1][-1].append(text)
        elif tag == "summary":
            self.summaries.append(text)
        if self._open and self._open[-1] == tag:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        self._buffer += data
        self.text += data
