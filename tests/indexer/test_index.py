"""Building, incremental updates, odd files, interrupted writes and corrupt indexes."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import numpy as np

from indexer import open_index
from indexer.store import index_dir, load_store, read_manifest
from tests.conftest import git
from tests.indexer.conftest import HashingEmbedder, commit_all


def paths_of(index) -> set[str]:
    """Indexed code paths (the fixture's README and .gitignore aside)."""
    return {c.path for c in index.chunks} - {"README.md", ".gitignore"}


def test_build_records_commit_model_and_files(code_repo: Path, embedder: HashingEmbedder):
    index = open_index(code_repo, embedder=embedder)
    manifest = read_manifest(index_dir(code_repo))
    assert manifest["commit"] == git(code_repo, "rev-parse", "HEAD").strip()
    assert manifest["model"] == "test-hashing"
    assert set(manifest["files"]) == {"README.md", ".gitignore", "pkg/__init__.py", "pkg/session.py", "pkg/parser.py",
                                      "tests/test_session.py"}
    assert index.stored.vectors.shape == (len(index.chunks), embedder.dim)


def test_the_index_stays_out_of_git_status(repo: Path, embedder: HashingEmbedder):
    open_index(repo, embedder=embedder)
    assert git(repo, "status", "--porcelain") == ""


def test_unchanged_repository_is_not_re_embedded(code_repo: Path, embedder: HashingEmbedder):
    open_index(code_repo, embedder=embedder)
    again = HashingEmbedder()
    open_index(code_repo, embedder=again)
    assert again.embedded == []


def test_incremental_add_modify_delete_rename(code_repo: Path, embedder: HashingEmbedder):
    first = open_index(code_repo, embedder=embedder)
    (code_repo / "pkg" / "cookies.py").write_text("def merge_cookies(jar, cookies):\n    return jar\n")
    (code_repo / "pkg" / "parser.py").write_text("def parse_status_line(line):\n    return line.split()\n")
    os.remove(code_repo / "tests" / "test_session.py")
    git(code_repo, "mv", "pkg/session.py", "pkg/sessions.py")
    commit_all(code_repo)
    counting = HashingEmbedder()
    index = open_index(code_repo, embedder=counting)
    assert paths_of(index) == {"pkg/__init__.py", "pkg/sessions.py", "pkg/parser.py", "pkg/cookies.py"}
    assert [h.path for h in index.lookup_symbol("merge_cookies")] == ["pkg/cookies.py"]
    assert index.lookup_symbol("parse_header_line") == []
    assert [h.path for h in index.lookup_symbol("Session.resolve_redirects")] == ["pkg/sessions.py"]
    # only the added, modified and renamed files were embedded again; __init__.py was kept as it was
    assert not any(text.startswith("pkg/__init__.py") for text in counting.embedded)
    assert len(counting.embedded) < len(first.chunks) + 4
    assert index.stored.vectors.shape[0] == len(index.chunks)


def test_an_update_reads_back_as_a_fresh_build_of_the_same_tree(code_repo: Path, embedder: HashingEmbedder,
                                                                 tmp_path: Path):
    """An update writes the kept chunks' stored lines again as they were: what it leaves on disk must read
    back exactly as a build from scratch (chunks, their BM25 tokens and vectors), not a stale or torn copy."""
    open_index(code_repo, embedder=embedder)
    (code_repo / "pkg" / "parser.py").write_text("def parse_status_line(line):\n    return line.split()\n")
    commit_all(code_repo)
    open_index(code_repo, embedder=embedder)
    updated = load_store(index_dir(code_repo))
    fresh_dir = tmp_path / "fresh-index"
    open_index(code_repo, embedder=HashingEmbedder(), index_path=fresh_dir)
    fresh = load_store(fresh_dir)
    assert updated is not None and fresh is not None

    def rows(stored):
        return sorted((repr(c), tuple(t), v.tobytes()) for c, t, v in zip(stored.chunks, stored.tokens, stored.vectors, strict=True))
    assert rows(updated) == rows(fresh)
    assert any(c.symbol == "parse_status_line" for c in updated.chunks)


def test_uncommitted_edits_are_indexed_too(code_repo: Path, embedder: HashingEmbedder):
    open_index(code_repo, embedder=embedder)
    (code_repo / "pkg" / "draft.py").write_text("def unfinished_feature():\n    pass\n")
    index = open_index(code_repo, embedder=embedder)
    assert [h.path for h in index.lookup_symbol("unfinished_feature")] == ["pkg/draft.py"]


def test_empty_repository(tmp_path: Path, embedder: HashingEmbedder):
    git(tmp_path, "init", "-q")
    index = open_index(tmp_path, embedder=embedder)
    assert index.chunks == [] and index.search("anything") == [] and index.repo_map("anything", 100) == ""


def test_binary_huge_non_utf8_lock_and_vendored_files(code_repo: Path, embedder: HashingEmbedder):
    (code_repo / "logo.dat").write_bytes(b"\x89PNG\0\0\0binary")
    (code_repo / "huge.py").write_text("x = 1\n" * 200_000)
    (code_repo / "latin1.py").write_bytes("def caf\xe9():\n    return 'na\xefve'\n".encode("latin-1"))
    (code_repo / "poetry.lock").write_text("[[package]]\n")
    (code_repo / "node_modules").mkdir()
    (code_repo / "node_modules" / "dep.js").write_text("function dep() {}\n")
    commit_all(code_repo)
    index = open_index(code_repo, embedder=embedder, max_file_kb=64)
    indexed = paths_of(index)
    assert "latin1.py" in indexed
    assert not indexed & {"logo.dat", "huge.py", "poetry.lock", "node_modules/dep.js"}
    latin = next(c for c in index.chunks if c.path == "latin1.py")
    assert "\ufffd" in latin.text  # undecodable bytes are replaced, never a crash


def test_include_and_exclude_globs(code_repo: Path, embedder: HashingEmbedder):
    index = open_index(code_repo, embedder=embedder, include=("pkg/**",), exclude=("**/parser.py",))
    assert paths_of(index) == {"pkg/__init__.py", "pkg/session.py"}


def test_corrupt_index_is_rebuilt_with_a_warning(code_repo: Path, embedder: HashingEmbedder, caplog):
    open_index(code_repo, embedder=embedder)
    root = index_dir(code_repo)
    chunks_file = next(root.glob("chunks-*.jsonl"))
    chunks_file.write_text('{"truncated": ')
    with caplog.at_level(logging.WARNING):
        index = open_index(code_repo, embedder=embedder)
    assert "rebuilding" in caplog.text
    assert [h.path for h in index.lookup_symbol("parse_chunked_body")] == ["pkg/parser.py"]


def test_interrupted_write_leaves_the_old_generation_readable(code_repo: Path, embedder: HashingEmbedder):
    open_index(code_repo, embedder=embedder)
    root = index_dir(code_repo)
    # a writer died after writing half of its new generation, before switching the manifest
    (root / "chunks-deadbeef.jsonl").write_text('{"path": "pkg/x.py"')
    (root / ".manifest.json.tmp999").write_text("{")
    counting = HashingEmbedder()
    index = open_index(code_repo, embedder=counting)
    assert counting.embedded == []
    assert "pkg/session.py" in paths_of(index)


def test_format_mismatch_and_unreadable_manifest_rebuild(code_repo: Path, embedder: HashingEmbedder, caplog):
    open_index(code_repo, embedder=embedder)
    manifest_path = index_dir(code_repo) / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "format": 999}))
    with caplog.at_level(logging.WARNING):
        open_index(code_repo, embedder=embedder)
    assert "another version" in caplog.text
    manifest_path.write_bytes(b"\0\0garbage")
    index = open_index(code_repo, embedder=embedder)
    assert read_manifest(index_dir(code_repo))["format"] == 1
    norms = {c.path: float(np.linalg.norm(v)) for c, v in zip(index.chunks, index.stored.vectors, strict=True)}
    assert abs(norms["pkg/session.py"] - 1.0) < 1e-5
    assert norms["tests/test_session.py"] == 0.0  # tests are left to BM25: no embedding spent on them


def test_an_index_chunked_by_an_older_chunker_is_rebuilt(code_repo: Path, embedder: HashingEmbedder, caplog):
    from indexer.chunking import CHUNKER_VERSION

    open_index(code_repo, embedder=embedder)
    manifest_path = index_dir(code_repo) / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert manifest["chunker"] == CHUNKER_VERSION
    manifest_path.write_text(json.dumps({**manifest, "chunker": CHUNKER_VERSION - 1}))
    with caplog.at_level(logging.WARNING):
        open_index(code_repo, embedder=embedder)
    assert "chunker version" in caplog.text and "rebuilding" in caplog.text
    assert read_manifest(index_dir(code_repo))["chunker"] == CHUNKER_VERSION


def test_above_the_threshold_an_hnsw_index_is_persisted_and_used(code_repo: Path, embedder: HashingEmbedder,
                                                                  monkeypatch):
    import indexer.store

    monkeypatch.setattr(indexer.store, "HNSW_THRESHOLD", 3)
    open_index(code_repo, embedder=embedder)
    assert list(index_dir(code_repo).glob("hnsw-*.faiss"))
    index = open_index(code_repo, embedder=embedder)
    assert type(index.dense_scores("resolve redirects") and index._faiss.index).__name__ == "IndexHNSWFlat"
    assert index.search("resolve redirects", k=1)[0].path == "pkg/session.py"


def test_above_the_threshold_updates_add_to_the_hnsw_index_instead_of_rebuilding_it(
        code_repo: Path, embedder: HashingEmbedder, monkeypatch):
    import faiss

    import indexer.store

    monkeypatch.setattr(indexer.store, "HNSW_THRESHOLD", 3)
    first = open_index(code_repo, embedder=embedder)
    before = faiss.read_index(str(next(index_dir(code_repo).glob("hnsw-*.faiss")))).ntotal
    assert before == len(first.chunks)
    (code_repo / "pkg" / "parser.py").write_text("def parse_status_line(line):\n    return line.split()[1]\n")
    commit_all(code_repo)
    index = open_index(code_repo, embedder=embedder)
    faiss_files = list(index_dir(code_repo).glob("hnsw-*.faiss"))
    assert len(faiss_files) == 1
    grown = faiss.read_index(str(faiss_files[0])).ntotal
    changed = [c for c in index.chunks if c.path == "pkg/parser.py"]
    assert grown == before + len(changed)  # only the changed file's vectors were added
    rows = np.load(faiss_files[0].with_suffix(".rows.npy"))
    assert np.count_nonzero(rows < 0) == before - (len(index.chunks) - len(changed))  # the old parser chunks
    hits = [index.chunks[i].symbol for i in index.dense_scores("parse status line", depth=len(index.chunks))]
    assert "parse_status_line" in hits and "parse_chunked_body" not in hits  # removed chunks are never found


def test_hnsw_is_built_afresh_when_removed_vectors_pile_up(code_repo: Path, embedder: HashingEmbedder, monkeypatch):
    import faiss

    import indexer.store

    monkeypatch.setattr(indexer.store, "HNSW_THRESHOLD", 3)
    monkeypatch.setattr(indexer.store, "REBUILD_SHARE", 0.0)  # any removed vector forces a rebuild
    open_index(code_repo, embedder=embedder)
    (code_repo / "pkg" / "parser.py").write_text("def parse_status_line(line):\n    return line.split()[1]\n")
    commit_all(code_repo)
    index = open_index(code_repo, embedder=embedder)
    path = next(index_dir(code_repo).glob("hnsw-*.faiss"))
    assert faiss.read_index(str(path)).ntotal == len(index.chunks)
    assert (np.load(path.with_suffix(".rows.npy")) >= 0).all()
