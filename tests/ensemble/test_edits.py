"""The edit-block parser and applier over a corpus of messy model replies (edit_corpus/*.yaml).

Each corpus case holds the repository files, the coder's reply, optionally the files the
coder was `shown`, and the expected outcome: the exact new contents of the changed files
(none when nothing applies), the files created, the reasons of the blocks that failed, how
many blocks applied, and phrases the message shown to the coder must (or must not) contain.
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
    applied = apply_edit_blocks(parsed.blocks, case["files"], case.get("deny", DEFAULT_DENY), case.get("shown", ()))
    if not parsed.blocks and parsed.failures:
        return parsed.failures, None
    return (*parsed.failures, *applied.failures), applied


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 40


@pytest.mark.parametrize("case_file", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus_case(case_file: Path) -> None:
    case = yaml.safe_load(case_file.read_text(encoding="utf-8"))
    expect = case["expect"]
    failures, applied = run_case(case)
    assert sorted(f.reason for f in failures) == sorted(expect.get("failures", [])), [f.message for f in failures]
    changes = applied.changes if applied else {}
    assert changes == expect.get("files", {})
    assert sorted(applied.created if applied else ()) == sorted(expect.get("created", []))
    if "applied" in expect:
        assert applied is not None and applied.applied == expect["applied"]
    if "redirected" in expect:
        assert applied is not None and [list(r) for r in applied.redirected] == expect["redirected"]
    message = "\n".join(f.message for f in failures)
    for phrase in expect.get("message_contains", []):
        assert phrase in message
    for phrase in expect.get("message_lacks", []):
        assert phrase not in message


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
