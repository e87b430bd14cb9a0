"""Tree-sitter chunks and repo-map symbols on small real Go, Rust and TypeScript files (tests/indexer/samples:
an LRU cache with generics, a token bucket with a generic impl and a test module, a retry helper with arrow
functions, a type alias and an abstract class). The Go and Rust files compile."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexer import open_index
from indexer.chunking import chunk_file
from tests.indexer.conftest import HashingEmbedder, commit_all

SAMPLES = Path(__file__).with_name("samples")
EXPECTED = {
    "cache.go": [("Clock", "class", 12, 14), ("entry", "class", 16, 20), ("Cache", "class", 23, 30),
                 ("New", "function", 33, 35), ("Cache.Get", "function", 38, 53), ("Cache.Put", "function", 56, 66),
                 ("Cache.remove", "function", 68, 71),
                 ("Stats", "class", 75, 75), ("Option", "class", 77, 77), ("options", "class", 78, 78)],  # type ( )
    "lib.rs": [("Refusal", "class", 7, 10), ("Clock", "class", 13, 15), ("SystemClock", "class", 17, 17),
               ("SystemClock", "class", 19, 23), ("SystemClock.now", "function", 20, 22),
               ("Bucket", "class", 26, 32), ("Bucket", "class", 34, 60),  # `impl<C: Clock> Bucket<C>` is Bucket
               ("Bucket.new", "function", 35, 38), ("Bucket.take", "function", 41, 52),
               ("Bucket.refill", "function", 54, 59),
               ("tests", "class", 71, 79), ("tests.refuses_more_than_capacity", "function", 75, 78)],  # mod tests
    "retry.ts": [("RetryPolicy", "class", 4, 8), ("Outcome", "class", 10, 10), ("Jitter", "class", 12, 15),
                 ("backoff", "function", 20, 23),  # export const backoff = (...) => ...
                 ("retry", "function", 25, 37), ("Transport", "class", 39, 41),  # abstract class
                 ("RetryingTransport", "class", 43, 62), ("RetryingTransport.constructor", "function", 46, 48),
                 ("RetryingTransport.send", "function", 50, 55), ("RetryingTransport.count", "function", 57, 59),
                 ("RetryingTransport.wrap", "function", 61, 61)],  # static wrap = (...) => ...
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_definition_of_real_code_is_a_named_chunk(name: str) -> None:
    text = (SAMPLES / name).read_text()
    chunks = chunk_file(name, text)
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks if c.kind != "module"] == EXPECTED[name]
    lines = text.splitlines()
    for chunk in chunks:
        if chunk.kind != "module":
            assert chunk.signature == lines[chunk.start_line - 1].strip()


def test_the_repo_map_and_symbol_lookup_cover_go_rust_and_typescript(repo: Path, embedder: HashingEmbedder) -> None:
    for name, folder in (("cache.go", "cache"), ("lib.rs", "src"), ("retry.ts", "web")):
        (repo / folder).mkdir()
        shutil.copy(SAMPLES / name, repo / folder / name)
    (repo / ".gitignore").write_text(".ensemble/\n")
    commit_all(repo, "samples")
    index = open_index(repo, embedder=embedder)

    outline = index.repo_map("retry with backoff", max_tokens=4000)
    for line in ("web/retry.ts:", "  export const backoff = (policy: RetryPolicy, n: number, jitter: Jitter = "
                 "Jitter.None): number => {  # L20", "    async send(body: string): Promise<number> {  # L50",
                 "src/lib.rs:", "    pub fn take(&mut self, n: u32) -> Result<(), Refusal> {  # L41",
                 "cache/cache.go:", "    func (c *Cache[K, V]) Get(key K) (V, bool) {  # L38",
                 "  Option func(*options)  # L77"):
        assert line in outline.splitlines(), line
    assert outline.splitlines()[0] == "web/retry.ts:"
    assert [(h.path, h.start_line) for h in index.lookup_symbol("Bucket.take")] == [("src/lib.rs", 41)]
    assert [(h.path, h.start_line) for h in index.lookup_symbol("backoff")] == [("web/retry.ts", 20)]
    assert [(h.path, h.start_line) for h in index.lookup_symbol("Cache.Put")] == [("cache/cache.go", 56)]
