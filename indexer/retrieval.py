"""Hybrid retrieval: BM25 and dense rankings fused by reciprocal rank, plus exact-match boosts.

The retrievers each rank chunks; chunk rankings are aggregated to files (a file scores as its best
chunk); the rankings are fused with reciprocal rank fusion (weights in `FusionParams`, set from the
dev cases in bench/retrieval.py). Query analysis adds a third ranking: files the issue names by path,
stack frame, module or defined symbol, or whose text contains an error message from the issue.
Test files are down-weighted: a fix usually lives in the code under test.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from indexer.chunking import Chunk, module_name
from indexer.files import is_test_path
from indexer.query import QueryAnalysis, match_paths, module_candidates

DEFINITION_KINDS = ("function", "method", "class")


@dataclass(frozen=True)
class FusionParams:
    """Weights of the fused rankings; defaults chosen on the dev cases (bench/retrieval.py)."""

    rrf_k: float = 60.0
    lexical: float = 1.0
    dense: float = 1.0
    boosts: float = 1.0
    test_factor: float = 0.5
    dense_depth: int = 2000


@dataclass(frozen=True)
class SearchHit:
    """One result: a file (level "file") or a chunk, with its score; `text` is set for chunks."""

    path: str
    score: float
    start_line: int
    end_line: int
    symbol: str
    kind: str
    text: str = ""


class SymbolTable:
    """Where names are defined: symbol leaf names and module names to chunk positions."""

    def __init__(self, chunks: list[Chunk]):
        self.by_name: dict[str, list[int]] = defaultdict(list)
        self.modules: dict[str, list[str]] = defaultdict(list)
        for i, chunk in enumerate(chunks):
            if chunk.kind in DEFINITION_KINDS and chunk.symbol:
                self.by_name[chunk.symbol.rsplit(".", 1)[-1]].append(i)
                if "." in chunk.symbol:
                    self.by_name[chunk.symbol].append(i)
        for path in dict.fromkeys(c.path for c in chunks):
            self.modules[module_name(path)].append(path)


def rank_files(chunk_scores: dict[int, float], chunks: list[Chunk]) -> dict[str, float]:
    """A file's score is its best chunk's score."""
    best: dict[str, float] = {}
    for i, score in chunk_scores.items():
        path = chunks[i].path
        if score > best.get(path, -np.inf):
            best[path] = score
    return best


def _ranks(scores: dict[str, float] | dict[int, float]) -> dict:
    ordered = sorted(scores, key=lambda key: -scores[key])
    return {key: rank for rank, key in enumerate(ordered, 1)}


def analysis_scores(analysis: QueryAnalysis, chunks: list[Chunk], symbols: SymbolTable,
                    files: list[str]) -> dict[str, float]:
    """Exact-match evidence per file: named paths and frames, modules, defined symbols, quoted messages."""
    scores: dict[str, float] = defaultdict(float)
    for path in match_paths(analysis.paths, files):
        scores[path] += 2.0
    for dotted in analysis.dotted:
        for module in module_candidates(dotted)[:2]:
            for path in symbols.modules.get(module, []):
                scores[path] += 1.0
    for name in analysis.identifiers:
        defining = {chunks[i].path for i in symbols.by_name.get(name, [])}
        for path in defining:
            scores[path] += 1.0 / len(defining)
    for message in analysis.messages:
        containing = {c.path for c in chunks if message in c.text}
        for path in containing if len(containing) <= 5 else ():
            scores[path] += 1.0 / len(containing)
    return dict(scores)


def fuse(rankings: list[tuple[float, dict]], rrf_k: float) -> dict:
    """Weighted reciprocal rank fusion of several {key: rank} maps."""
    fused: dict = defaultdict(float)
    for weight, ranks in rankings:
        for key, rank in ranks.items():
            fused[key] += weight / (rrf_k + rank)
    return dict(fused)


def hybrid_files(lexical: np.ndarray, dense: dict[int, float], boosts: dict[str, float], chunks: list[Chunk],
                 params: FusionParams) -> dict[str, float]:
    """Fused file scores from chunk-level lexical and dense scores and file-level boosts."""
    lexical_chunks = {int(i): float(lexical[i]) for i in np.flatnonzero(lexical > 0)}
    rankings = [(params.lexical, _ranks(rank_files(lexical_chunks, chunks))),
                (params.dense, _ranks(rank_files(dense, chunks))),
                (params.boosts, _ranks(boosts))]
    fused = fuse([r for r in rankings if r[0] > 0], params.rrf_k)
    return {path: score * (params.test_factor if is_test_path(path) else 1.0) for path, score in fused.items()}


def hybrid_chunks(lexical: np.ndarray, dense: dict[int, float], boosts: dict[str, float], chunks: list[Chunk],
                  params: FusionParams) -> dict[int, float]:
    """Fused chunk scores: chunk rankings fused, plus the boost ranking of the chunk's file."""
    lexical_chunks = {int(i): float(lexical[i]) for i in np.flatnonzero(lexical > 0)}
    file_ranks = _ranks(boosts)
    boost_chunks = {i: file_ranks[c.path] for i, c in enumerate(chunks) if c.path in file_ranks}
    rankings = [(params.lexical, _ranks(lexical_chunks)), (params.dense, _ranks(dense)),
                (params.boosts, boost_chunks)]
    fused = fuse([r for r in rankings if r[0] > 0], params.rrf_k)
    return {i: s * (params.test_factor if is_test_path(chunks[i].path) else 1.0) for i, s in fused.items()}
