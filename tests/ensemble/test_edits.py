"""The edit-block parser and applier over a corpus of messy model replies (edit_corpus/*.yaml).

Each corpus case holds the repository files, the coder's reply and the expected outcome:
either the exact new contents of the changed files, or the failure reason and phrases
the message shown to the coder must contain. Other files must be left as they were.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bot.ensemble.edits import apply_edit_blocks, parse_edit_blocks, write_changes
from bot.ensemble.globs import matches_any

CORPUS = sorted((Path(__file__).parent / "edit_corpus").glob("*.yaml"))
DEFAULT_DENY = (".github/workflows/**", "**/*.pem")


def run_case(case: dict) -> tuple:
    parsed = parse_edit_blocks(case["reply"])
    if parsed.failures:
        return parsed, None
    return parsed, apply_edit_blocks(parsed.blocks, case["files"], case.get("deny", DEFAULT_DENY))


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("case_file", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus_case(case_file: Path) -> None:
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    expect = case["expect"]
    parsed, applied = run_case(case)
    failures = parsed.failures or (applied.failures if applied else ())
    if "files" in expect:
        assert not failures, [f.message for f in failures]
        assert applied is not None and applied.ok
        assert applied.changes == expect["files"]
        assert sorted(applied.created) == sorted(expect.get("created", []))
    else:
        assert failures, "expected the round to be rejected"
        assert applied is None or not applied.changes, "a rejected round must change nothing"
        assert expect["reason"] in [f.reason for f in failures]
        message = "\n".join(f.message for f in failures)
        for phrase in expect.get("message_contains", []):
            assert phrase in message


def test_write_changes_writes_only_changed_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "b.py").write_text("B = 1\n")
    write_changes(tmp_path, {"a.py": "A = 2\n", "new/dir/c.py": "C = 1\n"})
    assert (tmp_path / "a.py").read_text() == "A = 2\n"
    assert (tmp_path / "b.py").read_text() == "B = 1\n"
    assert (tmp_path / "new/dir/c.py").read_text() == "C = 1\n"


def test_crlf_bytes_survive_writing(tmp_path: Path) -> None:
    write_changes(tmp_path, {"w.txt": "a\r\nb\r\n"})
    assert (tmp_path / "w.txt").read_bytes() == b"a\r\nb\r\n"


@pytest.mark.parametrize(("path", "denied"), [
    (".github/workflows/ci.yml", True), (".github/ensemble.yml", False), ("key.pem", True),
    ("deep/er/key.pem", True), ("src/pem.py", False),
])
def test_deny_globs(path: str, denied: bool) -> None:
    assert matches_any(path, DEFAULT_DENY) is denied
