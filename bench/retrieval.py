#!/usr/bin/env python
"""Retrieval benchmark: recall on real bug-localization cases, build/update/query times, size, memory.

    python bench/retrieval.py --root /work/evalroot            # cases materialized by materialize.py
    python bench/retrieval.py --root DIR --model all-MiniLM-L6-v2 --cases-limit 9   # the full-precision model

Reports, side by side: file-level recall@1/@5/@10 and MRR for BM25 over whole files and over
chunks (each with and without test files in the index), dense alone and hybrid; the fusion grid
the default weights were chosen from, and a leave-one-repository-out figure for that choice; then on one ~500-file checkout: cold and warm-cache build,
a one-file incremental update, query p50/p95, index size and peak memory; and FAISS exact vs HNSW.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from indexer import FusionParams, open_index  # noqa: E402
from indexer.files import CODE_SUFFIXES, is_test_path, read_text  # noqa: E402
from indexer.lexical import LexicalIndex  # noqa: E402
from indexer.query import analyze_query  # noqa: E402
from indexer.retrieval import analysis_scores, hybrid_files, rank_files  # noqa: E402
from indexer.tokens import tokenize  # noqa: E402

DEFAULT_CASES = "/work/shared/eval/retrieval-dev.jsonl"
KS = (1, 5, 10)
# each retriever alone, with the same priors (tests, docs and non-code down-weighted) as the hybrid
SINGLE = {
    "BM25 chunks + priors": FusionParams(dense=0.0, boosts=0.0),
    "dense + priors": FusionParams(lexical=0.0, boosts=0.0),
    "boosts + priors": FusionParams(lexical=0.0, dense=0.0),
}


def metrics(rankings: list[list[str]], golds: list[set[str]]) -> dict[str, float]:
    """Recall@k (a gold file in the top k) and MRR, in percent and as a fraction."""
    out = {f"R@{k}": 100 * float(np.mean([bool(set(r[:k]) & g) for r, g in zip(rankings, golds, strict=True)])) for k in KS}
    rr = [next((1 / (i + 1) for i, p in enumerate(r) if p in g), 0.0) for r, g in zip(rankings, golds, strict=True)]
    out["MRR"] = float(np.mean(rr))
    return out


def ordered(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda p: (-scores[p], p))


def bm25_rankings(index, query: str, file_tokens: dict[str, list[str]]) -> dict[str, list[str]]:
    """The four BM25 baselines over source files: whole files / chunks, with / without tests in the index."""
    out = {}
    for label, keep in (("", lambda p: p.endswith(CODE_SUFFIXES)),
                        (" no tests", lambda p: p.endswith(CODE_SUFFIXES) and not is_test_path(p))):
        paths = [p for p in file_tokens if keep(p)]
        lex = LexicalIndex([file_tokens[p] for p in paths]).scores(query)
        out[f"BM25 files{label}"] = [paths[i] for i in np.argsort(-lex) if lex[i] > 0]
        chunk_ids = [i for i, c in enumerate(index.chunks) if keep(c.path)]
        lex = LexicalIndex([index.stored.tokens[i] for i in chunk_ids]).scores(query)
        scores = {chunk_ids[j]: float(lex[j]) for j in np.flatnonzero(lex > 0)}
        out[f"BM25 chunks{label}"] = ordered(rank_files(scores, index.chunks))
    return out


def evaluate(args: argparse.Namespace, cases: list[dict]) -> tuple[dict, list]:
    """Rankings per method per case, plus the per-case components for the fusion grid."""
    rankings: dict[str, list[list[str]]] = {}
    components = []
    for n, case in enumerate(cases, 1):
        repo = Path(args.root) / case["repo"].replace("/", "__") / case["base_commit"]
        started = time.perf_counter()
        index = open_index(repo, model=args.model, cache_path=Path(args.root) / f".cache-{args.model_slug}.sqlite",
                           index_path=Path(args.root) / f".indexes-{args.model_slug}" / repo.parent.name / repo.name)
        built = time.perf_counter() - started
        query = case["problem_statement"]
        file_tokens = {p: tokenize(f"{p} {read_text(repo / p) or ''}") for p in index.files
                       if p.endswith(CODE_SUFFIXES)}
        for label, ranking in bm25_rankings(index, query, file_tokens).items():
            rankings.setdefault(label, []).append(ranking)
        lexical, dense = index.lexical.scores(query), index.dense_scores(query)
        boosts = analysis_scores(analyze_query(query), index.chunks, index.symbols, index.files)
        rankings.setdefault("dense", []).append(ordered(rank_files(dense, index.chunks)))
        for label, params in SINGLE.items():
            rankings.setdefault(label, []).append(ordered(hybrid_files(lexical, dense, boosts, index.chunks, params)))
        components.append((lexical, dense, boosts, index.chunks))
        hits = index.search(query, k=50)
        rankings.setdefault("hybrid", []).append([h.path for h in hits])
        print(f"  [{n}/{len(cases)}] {case['instance_id']}: {len(index.chunks)} chunks, index {built:.1f}s, "
              f"hybrid top: {hits[0].path if hits else '-'}", file=sys.stderr)
    return rankings, components


def grid_rankings(components: list) -> list[tuple[FusionParams, list[list[str]]]]:
    """Every setting of a small grid around the defaults, with its rankings of every case."""
    out = []
    for method, dense_w, boost_w, prior, runner_up in itertools.product(
            ("blend", "rrf"), (0.0, 0.1, 0.25, 0.5), (0.0, 0.05, 0.1, 0.25), (1.0, 0.5), (0.0, 0.25)):
        params = FusionParams(method=method, dense=dense_w, boosts=boost_w, test_factor=prior,
                              auxiliary_factor=prior, runner_up_weight=runner_up)
        out.append((params, [ordered(hybrid_files(lex, dense, boosts, chunks, params))
                             for lex, dense, boosts, chunks in components]))
    return out


def held_out(grid: list[tuple[FusionParams, list[list[str]]]], golds: list[set[str]], repos: list[str]) -> dict[str, float]:
    """Leave-one-repository-out: each repository's cases ranked with the grid setting that scored best
    on the other repositories' cases, so the figure is one on cases the choice never saw."""
    per_setting = [ranks for _, ranks in grid]
    ranks: list[list[str]] = [[] for _ in golds]
    for repo in sorted(set(repos)):
        train = [i for i, r in enumerate(repos) if r != repo]

        def score(rankings: list[list[str]], train: list[int] = train) -> float:
            m = metrics([rankings[i] for i in train], [golds[i] for i in train])
            return m["R@1"] + m["R@5"] + 100 * m["MRR"]

        best = max(per_setting, key=score)
        for i, r in enumerate(repos):
            if r == repo:
                ranks[i] = best[i]
    return metrics(ranks, golds)


def print_table(rows: list[tuple[str, dict]]) -> None:
    print(f"{'method':<24}" + "".join(f"{k:>8}" for k in ("R@1", "R@5", "R@10", "MRR")))
    for label, m in rows:
        print(f"{label:<24}{m['R@1']:>7.1f}%{m['R@5']:>7.1f}%{m['R@10']:>7.1f}%{m['MRR']:>8.3f}")


def print_margins(ours: dict[str, dict], baselines: dict[str, dict]) -> None:
    """Points of R@1 / R@5 each of ours gains over every BM25 row (the target: +10 over the better variant)."""
    print("\nmargins in points, R@1 / R@5 (target: both >= +10 over the better BM25 variant):")
    print(f"  {'over':<28}" + "".join(f"{label:>20}" for label in ours))
    for base, b in baselines.items():
        cells = "".join(f"{m['R@1'] - b['R@1']:+9.1f} / {m['R@5'] - b['R@5']:+6.1f}  " for m in ours.values())
        print(f"  {base:<28}{cells}")


def performance(args: argparse.Namespace, queries: list[str]) -> None:
    """Build, update, query, size and memory on one checkout, copied to a scratch folder."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", "--local", str(args.perf_repo), str(repo)], check=True)
        n_files = len(subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True,
                                     check=True).stdout.splitlines())
        cache = Path(tmp) / "embeddings.sqlite"
        started = time.perf_counter()
        open_index(repo, model=args.model, cache_path=cache)
        cold = time.perf_counter() - started
        shutil.rmtree(repo / ".ensemble" / "index")
        started = time.perf_counter()
        open_index(repo, model=args.model, cache_path=cache)
        warm = time.perf_counter() - started
        target = next(p for p in sorted(repo.rglob("*.py")) if ".ensemble" not in p.parts and p.stat().st_size > 2000)
        target.write_text(target.read_text() + "\n\ndef added_by_benchmark(value):\n    return value * 2\n")
        started = time.perf_counter()
        index = open_index(repo, model=args.model, cache_path=cache)
        incremental = time.perf_counter() - started
        index.search(queries[0])  # loads BM25, FAISS and the query encoder
        latencies = []
        for query in queries:
            started = time.perf_counter()
            index.search(query, k=10)
            latencies.append((time.perf_counter() - started) * 1000)
        size = sum(p.stat().st_size for p in (repo / ".ensemble").rglob("*") if p.is_file())
        print(f"\nperformance on {args.perf_repo.parent.name} ({n_files} tracked files, {len(index.chunks)} chunks, "
              f"model {index.stored.model}):")
        print(f"  build, cold embedding cache   {cold:7.1f} s")
        print(f"  build, warm embedding cache   {warm:7.1f} s")
        print(f"  update after one-file change  {incremental:7.2f} s")
        print(f"  query p50 / p95               {statistics.median(latencies):7.1f} / "
              f"{np.percentile(latencies, 95):.1f} ms over {len(latencies)} issue queries")
        print(f"  index size on disk            {size / 1e6:7.1f} MB (incl. embedding cache)")
    print(f"  peak memory (whole run)       {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:7.0f} MB")


def faiss_threshold(cache: Path | None = None) -> None:
    """Exact vs HNSW as the index builds it: build time, query latency, and HNSW's recall of the exact top 100.

    The vectors are real chunk embeddings from the benchmark's embedding cache (larger sizes repeat
    them with a little noise), since random vectors have no neighbourhoods and understate HNSW.
    """
    import sqlite3

    import indexer.store as store

    rng = np.random.default_rng(0)
    real = np.zeros((0, 384), dtype=np.float32)
    if cache and cache.is_file():
        rows = sqlite3.connect(str(cache)).execute("SELECT vector FROM vectors").fetchall()
        real = np.stack([np.frombuffer(blob, dtype=np.float32) for (blob,) in rows]) if rows else real
    source = "real chunk embeddings" if len(real) else "random unit vectors (no embedding cache found)"
    print(f"\nFAISS exact (IndexFlatIP) vs HNSW(32, efSearch 128) on {source}"
          " — build s / query ms (top 2000) / recall@100 of the exact top 100:")
    if not len(real):
        real = rng.standard_normal((50_000, 384)).astype(np.float32)
    real /= np.linalg.norm(real, axis=1, keepdims=True)
    order = rng.permutation(len(real))
    queries, pool = real[order[:50]], real[order[50:]]
    for size in (20_000, 100_000, 300_000):
        picks = pool[rng.integers(0, len(pool), size)] if size > len(pool) else pool[:size]
        data = picks + (0.05 / np.sqrt(384)) * rng.standard_normal(picks.shape).astype(np.float32) \
            if size > len(pool) else picks.copy()
        data /= np.linalg.norm(data, axis=1, keepdims=True)
        row, exact = f"  {size:>7} vectors:", None
        for name in ("flat", "hnsw"):
            saved, store.HNSW_THRESHOLD = store.HNSW_THRESHOLD, (10**9 if name == "flat" else 0)
            try:
                started = time.perf_counter()
                index = store.build_faiss(data)
                build = time.perf_counter() - started
            finally:
                store.HNSW_THRESHOLD = saved
            started = time.perf_counter()
            top = [index.search(q[None, :], 2000)[1][0][:100] for q in queries]
            took = (time.perf_counter() - started) / len(queries) * 1000
            exact = exact or top
            recall = np.mean([len(set(a) & set(b)) / 100 for a, b in zip(top, exact, strict=True)])
            row += f"  {name} {build:6.1f} s / {took:6.1f} ms / {recall:5.3f}"
        print(row + f"  hnsw update after a 60-chunk change {_hnsw_update_seconds(data, rng):5.1f} s", flush=True)


def _hnsw_update_seconds(data: np.ndarray, rng: np.random.Generator) -> float:
    """Seconds to save the HNSW index of `data` after 60 of its vectors changed (the incremental path)."""
    import json
    import tempfile

    import indexer.store as store

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        np.save(root / "vectors-g0.npy", data)
        store._save_hnsw(root, "g0", data)
        (root / "manifest.json").write_text(json.dumps({"generation": "g0"}))
        changed = data.copy()
        picked = rng.choice(len(changed), 60, replace=False)
        changed[picked] = np.roll(changed[picked], 1, axis=1)
        started = time.perf_counter()
        store._save_hnsw(root, "g1", changed)
        return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="folder the cases were materialized into")
    parser.add_argument("--cases", default=DEFAULT_CASES)
    parser.add_argument("--cases-limit", type=int, default=0, help="only the first N cases")
    parser.add_argument("--repos", default="", help="only cases of these repositories (comma-separated OWNER/NAME)")
    parser.add_argument("--model", default=None, help="embedding model (default: the index default)")
    parser.add_argument("--perf-repo", type=Path, default=None, help="checkout for the timing section")
    parser.add_argument("--skip-perf", action="store_true")
    parser.add_argument("--faiss-only", action="store_true", help="only the exact-vs-HNSW section")
    args = parser.parse_args()
    from indexer.embedder import canonical_model_name

    args.model = canonical_model_name(args.model or os.environ.get("ENSEMBLE_BENCH_MODEL") or None)
    args.model_slug = args.model.replace(":", "_").replace("/", "_")
    if args.faiss_only:
        faiss_threshold(Path(args.root) / f".cache-{args.model_slug}.sqlite")
        return 0
    cases = [json.loads(line) for line in Path(args.cases).read_text().splitlines() if line.strip()]
    cases = [c for c in cases if not args.repos or c["repo"] in args.repos.split(",")]
    cases = cases[: args.cases_limit] if args.cases_limit else cases
    golds = [set(c["gold_files"]) for c in cases]
    rankings, components = evaluate(args, cases)
    print(f"\n{len(cases)} cases, model {args.model}; hybrid uses {FusionParams()}")
    print_table([(label, metrics(r, golds)) for label, r in rankings.items()])
    grid_ranks = grid_rankings(components)  # few knobs around the defaults, so the choice generalizes
    grid = [(params, metrics(ranks, golds)) for params, ranks in grid_ranks]
    print(f"\nfusion grid ({len(grid)} settings), best 15 by R@1 + R@5 + 100 MRR\n"
          "  method dense boosts test/aux-prior runner-up:  R@1   R@5  R@10  MRR")
    for params, m in sorted(grid, key=lambda x: -(x[1]["R@1"] + x[1]["R@5"] + 100 * x[1]["MRR"]))[:15]:
        print(f"  {params.method:<6} {params.dense:5.2f} {params.boosts:6.2f} {params.test_factor:14.1f} "
              f"{params.runner_up_weight:9.2f}:  {m['R@1']:5.1f} {m['R@5']:5.1f} {m['R@10']:5.1f} {m['MRR']:.3f}")
    cv = held_out(grid_ranks, golds, [c["repo"] for c in cases])
    print(f"\nleave-one-repository-out (grid choice made without the held-out repository's cases):\n"
          f"  hybrid, held out         {cv['R@1']:5.1f}% {cv['R@5']:6.1f}% {cv['R@10']:6.1f}% {cv['MRR']:7.3f}")
    table = {label: metrics(r, golds) for label, r in rankings.items()}
    print_margins({"hybrid": table["hybrid"], "hybrid, held out": cv},
                  {label: m for label, m in table.items() if label.startswith("BM25")})
    if not args.skip_perf:
        perf_repo = args.perf_repo or next(Path(args.root).glob("pytest-dev__pytest/56bf*"), None)
        if perf_repo:
            args.perf_repo = perf_repo
            performance(args, [c["problem_statement"] for c in cases])
        faiss_threshold(Path(args.root) / f".cache-{args.model_slug}.sqlite")
    return 0


if __name__ == "__main__":
    sys.exit(main())
