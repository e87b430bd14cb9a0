"""`ensemble index` and `ensemble search` through the real CLI and the real bundled model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.indexer.conftest import commit_all


@pytest.fixture
def configured_repo(code_repo: Path) -> Path:
    (code_repo / ".github").mkdir()
    (code_repo / ".github" / "ensemble.yml").write_text("index:\n  embedding_model: all-MiniLM-L6-v2\n")
    commit_all(code_repo)
    return code_repo


@pytest.mark.slow
def test_index_then_search_json_shapes(configured_repo: Path, capsys):
    assert main(["index", "--repo", str(configured_repo)]) == 0
    out, err = capsys.readouterr()
    assert "chunks" in out and "all-MiniLM-L6-v2" in out
    assert "embedding" in err  # progress goes to stderr

    query = "resolve_redirects raises TooManyRedirects: Exceeded the redirect limit"
    assert main(["search", "--repo", str(configured_repo), "--query", query, "--json", "--k", "3"]) == 0
    files = json.loads(capsys.readouterr().out)
    assert files[0]["path"] == "pkg/session.py"
    assert all(set(row) == {"path", "score"} for row in files) and len(files) <= 3
    assert [r["score"] for r in files] == sorted((r["score"] for r in files), reverse=True)

    query_file = configured_repo.parent / "issue.md"
    query_file.write_text(query)
    assert main(["search", "--repo", str(configured_repo), "--query-file", str(query_file), "--level", "chunk",
                 "--json"]) == 0
    chunks = json.loads(capsys.readouterr().out)
    assert set(chunks[0]) == {"path", "start_line", "end_line", "score"}
    assert (chunks[0]["path"], chunks[0]["start_line"], chunks[0]["end_line"]) == ("pkg/session.py", 9, 13)


def test_search_refuses_bad_usage_with_the_fix(code_repo: Path, capsys):
    assert main(["search", "--repo", str(code_repo), "--query-file", str(code_repo / "nope.md")]) == 2
    assert "--query-file" in capsys.readouterr().err
    assert main(["search", "--repo", str(code_repo), "--query", "  "]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["search", "--repo", str(code_repo)]) == 2  # neither --query nor --query-file


def test_a_repo_that_is_not_a_git_checkout_is_a_usage_error(tmp_path: Path, capsys):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("def f():\n    return 1\n")
    for argv in (["index", "--repo", str(tmp_path / "missing")], ["index", "--repo", str(plain)],
                 ["search", "--repo", str(plain), "--query", "f"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "--repo" in err and ("not a folder" in err or "not a git checkout" in err)


@pytest.mark.slow
def test_index_and_search_keep_the_index_in_ensemble_index_dir(configured_repo: Path, tmp_path: Path,
                                                               monkeypatch, capsys):
    cache = tmp_path / "ci-cache"
    monkeypatch.setenv("ENSEMBLE_INDEX_DIR", str(cache))
    assert main(["index", "--repo", str(configured_repo)]) == 0
    assert (cache / "index" / "manifest.json").is_file() and (cache / "embeddings.sqlite").is_file()
    assert not (configured_repo / ".ensemble" / "index").exists()
    capsys.readouterr()
    assert main(["search", "--repo", str(configured_repo), "--query", "redirects", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["path"] == "pkg/session.py"


@pytest.mark.slow
def test_search_on_a_repository_never_indexed_builds_the_index_first(configured_repo: Path, capsys):
    assert not (configured_repo / ".ensemble" / "index").exists()
    assert main(["search", "--repo", str(configured_repo), "--query", "follow Location headers", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["path"] == "pkg/session.py"
    assert (configured_repo / ".ensemble" / "index" / "manifest.json").is_file()


@pytest.mark.slow
def test_search_prints_no_library_debug_chatter(configured_repo: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "search", "--repo", str(configured_repo), "--query",
                           "redirects"], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "pkg/session.py" in proc.stdout and "DEBUG" not in proc.stderr  # bm25s sets DEBUG on import
