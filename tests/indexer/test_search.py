"""Hybrid search, query analysis, symbol lookup and the repo map on a small project."""

from __future__ import annotations

from pathlib import Path

from indexer import open_index
from indexer.query import analyze_query, match_paths
from tests.indexer.conftest import HashingEmbedder

ISSUE = """Redirect loop is not stopped

Calling `Session.resolve_redirects` with a server that always redirects never ends:

Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/pkg/session.py", line 12, in resolve_redirects
TooManyRedirects: Exceeded the redirect limit
"""


def test_query_analysis_finds_the_handles_an_issue_gives():
    analysis = analyze_query(ISSUE + "\nSee requests.sessions.Session and src/app/main.py for details.")
    assert "src/app/main.py" in analysis.paths
    assert analysis.frames == [("/usr/lib/python3/site-packages/pkg/session.py", 12, "resolve_redirects")]
    assert "requests.sessions.Session" in analysis.dotted
    assert {"Session", "resolve_redirects"} <= set(analysis.identifiers)
    assert "Exceeded the redirect limit" in analysis.messages
    assert "Redirect" not in analysis.identifiers  # plain words are not identifiers


def test_paths_in_traces_match_indexed_files_by_their_tail():
    indexed = ["pkg/session.py", "other/session.py", "pkg/parser.py"]
    assert match_paths(["/usr/lib/python3/site-packages/pkg/session.py"], indexed) == {"pkg/session.py"}
    assert match_paths(["parser.py"], indexed) == {"pkg/parser.py"}


def test_hybrid_search_ranks_the_defining_file_first(code_repo: Path, embedder: HashingEmbedder):
    index = open_index(code_repo, embedder=embedder)
    files = index.search(ISSUE, k=3)
    assert files[0].path == "pkg/session.py"
    assert files[0].kind == "file"
    assert [h.score for h in files] == sorted((h.score for h in files), reverse=True)
    chunks = index.search(ISSUE, k=2, level="chunk")
    assert chunks[0].symbol == "Session.resolve_redirects"
    assert (chunks[0].start_line, chunks[0].end_line) == (9, 13)
    assert index.read_chunk(chunks[0]).lstrip().startswith("def resolve_redirects")


def test_tests_rank_below_the_code_they_test(code_repo: Path, embedder: HashingEmbedder):
    index = open_index(code_repo, embedder=embedder)
    ranked = [h.path for h in index.search("Session send", k=5)]
    assert ranked.index("pkg/session.py") < ranked.index("tests/test_session.py")


def test_symbol_lookup_by_plain_qualified_and_module_names(code_repo: Path, embedder: HashingEmbedder):
    index = open_index(code_repo, embedder=embedder)
    assert [(h.path, h.kind) for h in index.lookup_symbol("parse_header_line")] == [("pkg/parser.py", "function")]
    assert [h.symbol for h in index.lookup_symbol("Session.send")] == ["Session.send"]
    assert [h.path for h in index.lookup_symbol("pkg.parser.parse_chunked_body")] == ["pkg/parser.py"]
    assert index.lookup_symbol("no_such_function") == []


def test_repo_map_outlines_relevant_files_within_budget(code_repo: Path, embedder: HashingEmbedder):
    index = open_index(code_repo, embedder=embedder)
    full = index.repo_map("parse a header line", max_tokens=2000)
    assert full.splitlines()[0] == "pkg/parser.py:"
    assert "def parse_header_line(line):" in full
    assert "    def resolve_redirects(self, response, max_redirects=30):" in full  # methods under their class
    small = index.repo_map("parse a header line", max_tokens=30)
    assert len(small) <= 30 * 4 and small.startswith("pkg/parser.py:")
