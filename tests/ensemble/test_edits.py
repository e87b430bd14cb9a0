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

from bot.ensemble.coder.apply import (
    EditBlock,
    apply_edit_blocks,
    denial,
    describe_failures,
    parse_edit_blocks,
    syntax_errors,
    write_changes,
)
from bot.ensemble.coder.matching import nearest_lines

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


def test_what_the_coder_wrote_is_syntax_checked_without_being_run(tmp_path: Path) -> None:
    write_changes(tmp_path, {"ok.py": "X = 1\n", "bad.py": "def f(:\n    pass\n", "data.json": '{"a": }',
                             "ends.py": "raise SystemExit('it ran')\n"})
    errors = syntax_errors(tmp_path, ["ok.py", "bad.py", "data.json", "ends.py", "deleted.py"])
    assert errors.startswith("bad.py:1: SyntaxError") and "\ndata.json: " in errors
    assert not any(name in errors for name in ("ok.py", "ends.py", "deleted.py"))


def test_crlf_bytes_survive_writing(tmp_path: Path) -> None:
    write_changes(tmp_path, {"w.txt": "a\r\nb\r\n"})
    assert (tmp_path / "w.txt").read_bytes() == b"a\r\nb\r\n"


@pytest.mark.parametrize(("path", "denied"), [
    (".github/workflows/ci.yml", True), (".github/ensemble.yml", True), ("key.pem", True),
    ("deep/er/key.pem", True), ("src/pem.py", False), ("CODEOWNERS", True), ("docs/CODEOWNERS", True),
    ("deploy/id_rsa", True), ("conf/server.key", True), (".env", True), ("app/.env.production", True),
    ("src/environment.py", False), (".github/dependabot.yml", False),
])
def test_always_denied_whatever_the_configuration(path: str, denied: bool) -> None:
    assert (denial(path, ()) is not None) is denied
    assert (denial(path, ("!*.pem", "!.github/")) is not None) is denied  # a `!` line cannot take them back


@pytest.mark.parametrize(("path", "denied"), [
    ("secrets/token.txt", True), ("app/secrets/token.txt", True), ("deep/dir/key.crt", True),
    ("app/migrations/0001.py", True), ("migrations", True), ("app/migrations_old.py", False),
    ("secrets.py", False), ("certs/public.crt", False),
])
def test_configured_deny_list_follows_gitignore_rules(path: str, denied: bool) -> None:
    deny = ("secrets/", "*.crt", "migrations", "!certs/public.crt")
    why = denial(path, deny)
    assert (why is not None) is denied
    assert why is None or "paths.deny" in why


def _block(path: str, search: str, replace: str) -> EditBlock:
    return EditBlock(path, search, replace)


def test_partial_round_is_ok_but_not_complete() -> None:
    files = {"a.py": "A = 1\n", "b.py": "B = 1\n"}
    result = apply_edit_blocks([_block("a.py", "A = 1\n", "A = 2\n"), _block("b.py", "B = 9\n", "B = 2\n")], files)
    assert result.ok and not result.complete
    assert (result.applied, result.total, result.changes) == (1, 2, {"a.py": "A = 2\n"})


def test_a_round_of_already_applied_blocks_is_complete_but_not_ok() -> None:
    result = apply_edit_blocks([_block("a.py", "A = 1\n", "A = 2\n")], {"a.py": "A = 2\n"})
    assert result.complete and not result.ok and result.applied == 1 and not result.changes


def test_policy_refusal_is_one_failure_among_applied_blocks() -> None:
    files = {"a.py": "A = 1\n", ".github/workflows/ci.yml": "on: push\n"}
    blocks = [_block(".github/workflows/ci.yml", "on: push\n", "on: pull_request\n"), _block("a.py", "A = 1\n", "A = 2\n")]
    result = apply_edit_blocks(blocks, files, DEFAULT_DENY)
    assert [f.reason for f in result.failures] == ["denied"] and result.changes == {"a.py": "A = 2\n"}


def test_redirect_never_reaches_a_denied_file() -> None:
    files = {"key.pem": "SECRET\n", "a.py": "A = 1\n"}
    result = apply_edit_blocks([_block("path/to/file.py", "SECRET\n", "LEAKED\n")], files, DEFAULT_DENY,
                               shown=("key.pem", "a.py"))
    assert [f.reason for f in result.failures] == ["denied"] and not result.changes and not result.redirected


def test_failures_render_without_line_number_prefixes() -> None:
    files = {"m.py": "".join(f"x{i} = {i}\n" for i in range(60))}
    result = apply_edit_blocks([_block("m.py", "x40 = 4O\nx41 = 41\n", "")], files)
    text = describe_failures(result.failures)
    assert text.startswith("- m.py: the SEARCH part does not match m.py. Lines 41-42 of m.py are the closest")
    assert "```\nx40 = 40\nx41 = 41\n```" in text and "41|" not in text


def test_unclosed_final_block_keeps_the_complete_ones() -> None:
    parsed = parse_edit_blocks("a.py\n<<<<<<< SEARCH\nA\n=======\nB\n>>>>>>> REPLACE\nb.py\n<<<<<<< SEARCH\nC\n")
    assert [b.path for b in parsed.blocks] == ["a.py"]
    assert [(f.path, f.reason) for f in parsed.failures] == [("b.py", "parse")]


def test_nearest_hint_does_not_start_or_end_on_a_blank_line() -> None:
    lines = ["import os", "", "", "def f(a):", "    return a", "", ""]
    near = nearest_lines(lines, ["", "", "def f(b):", "    return b", ""])
    assert near is not None and near.lines == ("def f(a):", "    return a") and near.start == 3
    result = apply_edit_blocks([_block("m.py", "def f(b):\n", "")], {"m.py": "\n".join(lines) + "\n"})
    assert "Line 4 of m.py is the closest" in result.failures[0].message


def test_an_absolute_path_is_refused_outside_the_workspace_and_made_relative_inside_it() -> None:
    files = {"src/x.py": "a = 1\n"}
    outside = apply_edit_blocks(parse_edit_blocks("/tmp/x.py\n<<<<<<< SEARCH\n=======\nplanted = 1\n>>>>>>> REPLACE\n")
                                .blocks, files, root="/work/repo")
    assert outside.changes == {} and outside.failures[0].reason == "bad_path"
    assert "'/tmp/x.py' is an absolute path outside the repository" in outside.failures[0].message
    inside = apply_edit_blocks(parse_edit_blocks("/work/repo/src/x.py\n<<<<<<< SEARCH\na = 1\n=======\na = 2\n"
                                                 ">>>>>>> REPLACE\n").blocks, files, root="/work/repo")
    assert inside.changes == {"src/x.py": "a = 2\n"}
    rooted = apply_edit_blocks(parse_edit_blocks("/src/x.py\n<<<<<<< SEARCH\na = 1\n=======\na = 3\n>>>>>>> REPLACE\n")
                               .blocks, files, root="/work/repo")
    assert rooted.changes == {"src/x.py": "a = 3\n"}  # the repository's own file, named from its root
