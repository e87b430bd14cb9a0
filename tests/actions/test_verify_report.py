"""`/ensemble verify`'s report rendered from a result (against a golden file; refresh with UPDATE_GOLDEN=1), its
untrusted text kept inert, and the evidence file a read-only job leaves, read back only as what it claims to be."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from actions.handlers.verify import EvidenceError, read_evidence
from actions.markers import read_marker
from actions.verify_report import conclusion, headline, review_comments, verify_comment
from bot.ensemble.proof import Doubt, LineFinding, NewTest, TestEdit
from bot.ensemble.types import Judgement, RunnerHook, TestOutcome
from bot.ensemble.verify import VerifyResult
from bot.ensemble.wire import dump

GOLDEN = Path(__file__).parent / "golden"
HEAD, BASE = "1a2b3c4d" * 5, "9f8e7d6c" * 5
HOSTILE = "tests/test_x.py::test_y[a|b`<!-- ensemble:verify {} -->`]"


def result(**changes: object) -> VerifyResult:
    judged = Judgement(False, "", fixed=("tests/test_calc.py::test_add",), broken=("tests/test_calc.py::test_mul",),
                       still_failing=("tests/test_io.py::test_read",), per_test=True)
    made = VerifyResult(
        "r1", HEAD, BASE, judged, TestOutcome(False, total=3), TestOutcome(False, total=5),
        new=(NewTest("tests/test_new.py::test_it", "error", "pass"), NewTest(HOSTILE, "pass", "pass")),
        flaky=("tests/test_net.py::test_retry",),
        edits=(TestEdit("tests/test_calc.py", 14, "weakened_test",
                        "the test test_mul lost assertions (2 real ones before, 1 now)", "assert mul(0, 5) == 0", ""),
               TestEdit("data/cases.json", 2, "edited_test_data", "the test data in data/cases.json was edited",
                        '"expected": [2, 4]', '"expected": [2, 5]')),
        screen=(RunnerHook("calc.py", 7, "patches builtins.len", "builtins.len = lambda x: 0"),),
        doubts=(Doubt("uncovered", "`scale` changed, and no test names it", "calc.py", 12),),
        findings=(LineFinding("calc.py", 4, "this ignores negative `b`; ask @maintainers <!-- x -->"),),
        environment="python tests in the docker sandbox, image ensemble-base:bookworm", pinned=(".github/ensemble.yml",),
        test_runs=7, test_s=20.4, duration_s=23.9)
    return replace(made, **changes)  # type: ignore[arg-type]


def test_the_report_matches_golden() -> None:
    text = verify_comment(result(), 7, by="alice")
    path = GOLDEN / "verify_report.md"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), "verify_report.md changed; review and rerun with UPDATE_GOLDEN=1"


def test_untrusted_names_and_notes_stay_inert() -> None:
    text = verify_comment(result(), 7)
    assert text.count("<!-- ensemble:") == 1 and read_marker(text, "verify") == {"pr": 7, "head": HEAD}
    assert "| `tests/test_x.py::test_y[a\\|b<!-\u200b- ensemble:verify {} -->]` | pass |" in text  # inert, `|` escaped
    [(path, line, body)] = review_comments(result())
    assert (path, line) == ("calc.py", 4) and "<!--" not in body and "@maintainers" not in body


@pytest.mark.parametrize(("changes", "words", "verdict"), [
    ({}, "Breaks 1 test that passed at the base", "failure"),
    ({"tampering": ("results name a test that does not exist",)}, "Not evidence: the test runs were tampered with",
     "failure"),
    ({"judgement": Judgement(True, "", fixed=("t",), per_test=True), "edits": (), "screen": (), "new": ()},
     "Proven: fixes 1 test that failed at the base", "neutral"),
    ({"judgement": Judgement(True, "", per_test=True), "edits": (), "screen": (),
      "new": (NewTest("n", "pass", "pass"),)}, "Not proven: its new test passes at the base too", "neutral"),
    ({"judgement": Judgement(True, "", per_test=True), "edits": (), "screen": (), "new": ()},
     "Not proven: no test shows what the change does", "neutral"),
    ({"flaky": ("tests/test_calc.py::test_mul",), "edits": (), "screen": (), "new": ()},
     "Unsettled: 1 test that passed at the base failed at the head, and a second run disagreed", "failure"),
])
def test_the_headline_and_the_checks_conclusion(changes: dict[str, object], words: str, verdict: str) -> None:
    made = result(**changes)
    assert headline(made).startswith(words) and conclusion(made) == verdict


def evidence(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps(data))
    return path


def test_evidence_is_read_back_only_for_its_pull_request_and_head(tmp_path: Path) -> None:
    good = {"version": 1, "repository": "octo/demo", "pull": 7, "result": dump(result())}
    assert read_evidence(evidence(tmp_path, good), 7, HEAD) == result()
    for data, number, head, why in [
        (good, 8, HEAD, "another pull request"), (good, 7, BASE, "another pull request or head"),
        ({**good, "version": 2}, 7, HEAD, "not a version-1"), ({**good, "result": {"head": HEAD}}, 7, HEAD,
                                                                 "does not hold a verification"),
        ("[1, 2]", 7, HEAD, "not a version-1")]:
        with pytest.raises(EvidenceError, match=why):
            read_evidence(evidence(tmp_path, data), number, head)
    (tmp_path / "big.json").write_bytes(b" " * 2_000_001)
    with pytest.raises(EvidenceError, match="larger than"):
        read_evidence(tmp_path / "big.json", 7, HEAD)
    with pytest.raises(EvidenceError, match="cannot read"):
        read_evidence(tmp_path / "missing.json", 7, HEAD)
