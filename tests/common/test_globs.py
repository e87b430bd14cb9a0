"""The glob engine: .gitignore rules for paths.deny and the index's include/exclude."""

from __future__ import annotations

import pytest

from common.globs import PathPatterns, matches_any


@pytest.mark.parametrize(("pattern", "path", "matched"), [
    ("*.pem", "deep/key.pem", True),  # a name without a slash matches at any depth
    ("*.pem", "deep/dir/key.pem", True),
    ("*.pem", "src/pem.py", False),
    ("secrets/", "secrets/key.txt", True),  # a folder and everything under it
    ("secrets/", "app/secrets/token.txt", True),
    ("secrets/", "secrets", False),  # a trailing slash means a folder: a file so named is not one
    ("migrations", "app/migrations/x.py", True),  # a bare name: file or folder, anywhere
    ("migrations", "migrations", True),
    ("migrations", "app/migrations_old.py", False),
    ("/build", "build/out.js", True),  # a leading slash anchors at the root
    ("/build", "src/build/out.js", False),
    ("docs/*.md", "docs/a.md", True),  # an inner slash anchors too; `*` stays in one folder
    ("docs/*.md", "docs/sub/a.md", False),
    ("docs/**/*.md", "docs/sub/deeper/a.md", True),
    (".github/workflows/**", ".github/workflows/ci.yml", True),
    ("CODEOWNERS", ".github/CODEOWNERS", True),
])
def test_gitignore_semantics(pattern: str, path: str, matched: bool) -> None:
    assert matches_any(path, [pattern]) is matched


def test_negation_takes_a_path_back_and_order_matters() -> None:
    patterns = ["*.pem", "!public/*.pem"]
    assert matches_any("deep/key.pem", patterns)
    assert not matches_any("public/ca.pem", patterns)
    assert matches_any("public/ca.pem", [*patterns, "public/*"])  # a later rule wins


def test_windows_separators_comments_and_blank_lines() -> None:
    patterns = PathPatterns(["# keys", "", "*.key"])
    assert patterns.patterns == ("*.key",)
    assert patterns.matches("conf\\server.key") and not patterns.matches("")
    assert not PathPatterns([]) and not matches_any("a.py", [])


@pytest.mark.parametrize(("path", "pattern"), [
    ("deep/key.pem", "*.pem"), ("secrets/key.txt", "secrets/"), ("app/migrations/x.py", "migrations")])
def test_the_deny_list_and_the_index_read_patterns_alike(path: str, pattern: str) -> None:
    from bot.ensemble.coder.apply import denial
    from indexer.files import wanted

    assert denial(path, (pattern,)) is not None
    assert not wanted(path, (), (pattern,))  # excluded from the index
    assert wanted(path, (pattern,), ())  # or the only thing included
    assert not wanted("other/file.py", (pattern,), ())
