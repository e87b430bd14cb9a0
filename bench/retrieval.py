#!/usr/bin/env python
"""Retrieval benchmark: recall on real bug-localization cases, judged on repositories the ranking was not tuned on.

    python bench/retrieval.py --root /tmp/evalroot            # checkouts are made from /work/.mirror as needed
    python bench/retrieval.py --root DIR --model all-MiniLM-L6-v2 --repos psf/requests,pallets/flask

Cases: the shared dev set (/work/shared/eval/retrieval-dev.jsonl) and bench/retrieval_cases/*.jsonl (issue
text, base commit, the non-test source files the fix changed; same fields). Each case is checked out at its
base commit under ROOT/OWNER__NAME/BASE, from the fetched mirror MIRRORS/OWNER+NAME/repo when it is not there
yet; cases whose repository has neither are skipped and listed.

Reports file-level recall@1/@5/@10 and MRR for the BM25 baselines (whole files and function chunks, with and
without test files), dense alone and the hybrid. Every tunable ranking is reported twice: in-sample (its
setting chosen on all cases) and leave-one-repository-out (each repository's cases ranked with the setting
that scored best on the other repositories): the held-out figure is the one that counts. Then a cold index of
a ~2,000-file checkout (wall time, chunks/s, peak RSS of the indexing process), warm and incremental builds
and query latency; `--faiss` adds exact vs HNSW.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pickle
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common.git import GitError, git, git_bytes, git_succeeds  # noqa: E402
from common.languages import CODE_SUFFIXES  # noqa: E402
from indexer import FusionParams, open_index  # noqa: E402
from indexer.chunks import Chunk  # noqa: E402
from indexer.files import is_auxiliary_path, is_test_path, read_text  # noqa: E402
from indexer.history import HistoryUpdate, update_history  # noqa: E402
from indexer.history_rank import HistoryRanker, with_history  # noqa: E402
from indexer.lexical import LexicalIndex  # noqa: E402
from indexer.query import analyze_query  # noqa: E402
from indexer.retrieval import FileChannels, analysis_scores, file_channels, fuse_files, rank_files  # noqa: E402
from indexer.tokens import tokenize  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CASES = ["/work/shared/eval/retrieval-dev.jsonl", *sorted(str(p) for p in (HERE / "retrieval_cases").glob("*.jsonl"))]
DEFAULT_MIRRORS = "/work/.mirror"
KS = (1, 5, 10)
Ranking = list[str]


RUNNER_UP = (0.0, 0.25)


@dataclass
class CaseData:
    """What the fusion needs of one case, computed once: the file-level channels for each runner-up weight."""

    channels: dict[float, FileChannels]


def metrics(rankings: Sequence[Ranking], golds: Sequence[set[str]]) -> dict[str, float]:
    """Recall@k (a gold file in the top k) and MRR, in percent and as a fraction."""
    out = {f"R@{k}": 100 * float(np.mean([bool(set(r[:k]) & g) for r, g in zip(rankings, golds, strict=True)]))
           for k in KS}
    rr = [next((1 / (i + 1) for i, p in enumerate(r) if p in g), 0.0) for r, g in zip(rankings, golds, strict=True)]
    out["MRR"] = float(np.mean(rr))
    return out


def objective(m: dict[str, float]) -> float:
    """What a setting is chosen by: recall@1 first, then @5 and MRR as tie-breakers."""
    return m["R@1"] + 0.5 * m["R@5"] + 10 * m["MRR"]


def ordered(scores: dict[str, float]) -> Ranking:
    return sorted(scores, key=lambda p: (-scores[p], p))


# ---------------------------------------------------------------------------------------------- cases

def load_cases(paths: Sequence[str]) -> list[dict[str, Any]]:
    """Cases from JSONL files; a missing file is reported and skipped."""
    cases: list[dict[str, Any]] = []
    for path in paths:
        if not Path(path).is_file():
            print(f"cases file {path} not found; skipped", file=sys.stderr)
            continue
        rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
        cases.extend({**row, "source": Path(path).name} for row in rows)
    return cases


def checkout(case: dict[str, Any], root: Path, mirrors: Path) -> Path | None:
    """The case's working tree at its base commit: already under `root`, or made from the repository's
    mirror (a bare git directory from `fetch`); None when neither exists."""
    dest = root / case["repo"].replace("/", "__") / case["base_commit"]
    if (dest / ".git").is_dir() and git_succeeds(dest, "rev-parse", "-q", "--verify", "HEAD"):
        return dest
    mirror = mirrors / case["repo"].replace("/", "+") / "repo"
    if not mirror.is_dir():
        return None
    shutil.rmtree(dest, ignore_errors=True)  # a checkout left half-made
    dest.mkdir(parents=True)
    if (git_succeeds(dest, "init", "-q")
            and git_succeeds(dest, "fetch", "-q", "--no-tags", str(mirror), f"{case['base_commit']}:refs/heads/base")
            and git_succeeds(dest, "checkout", "-q", "base")):
        return dest
    # mirrors leave out blobs of 4 MiB and more, so a fetch of the commit fails: write the tree's files
    # that are there and commit them (the blob ids, which the index keys on, are the same)
    return _checkout_by_blobs(mirror, case["base_commit"], dest)


def _checkout_by_blobs(mirror: Path, commit: str, dest: Path) -> Path | None:
    try:
        listing = git_bytes(mirror, "--git-dir", str(mirror), "ls-tree", "-r", "-z", commit)
    except GitError as exc:
        print(f"  cannot check out {commit[:10]}: {exc}", file=sys.stderr)
        return None
    entries = []
    for item in listing.decode("utf-8", "surrogateescape").split("\0"):
        if item:
            meta, path = item.split("\t", 1)
            mode, kind, blob = meta.split()
            if kind == "blob" and mode != "120000":
                entries.append((blob, path))
    # one `cat-file --batch` for every blob: each answer is "<id> blob <size>\n<data>\n" or "<id> missing\n"
    answers = git_bytes(mirror, "--git-dir", str(mirror), "cat-file", "--batch",
                        stdin="".join(f"{blob}\n" for blob, _ in entries))
    at = 0
    for _, path in entries:
        eol = answers.index(b"\n", at)
        header = answers[at:eol].split()
        at = eol + 1
        if len(header) < 3:  # "<id> missing"
            continue
        size = int(header[2])
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(answers[at:at + size])
        at += size + 1
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
    git(dest, "add", "-A", "-f", ".", env=env)
    git(dest, "commit", "-q", "--no-verify", "-m", f"base {commit}", env=env)
    return dest


# ---------------------------------------------------------------------------------------------- ranking

def bm25_rankings(chunks: list[Chunk], tokens: list[list[str]], query: str,
                  file_tokens: dict[str, list[str]]) -> dict[str, Ranking]:
    """The four BM25 baselines over source files: whole files / chunks, with / without tests in the index."""
    out = {}
    keeps: tuple[tuple[str, Callable[[str], bool]], ...] = (
        ("", lambda p: p.endswith(CODE_SUFFIXES)),
        (" no tests", lambda p: p.endswith(CODE_SUFFIXES) and not is_test_path(p)))
    for label, keep in keeps:
        paths = [p for p in file_tokens if keep(p)]
        lex = LexicalIndex([file_tokens[p] for p in paths]).scores(query)
        out[f"BM25 files{label}"] = [paths[i] for i in np.argsort(-lex, kind="stable") if lex[i] > 0]
        chunk_ids = [i for i, c in enumerate(chunks) if keep(c.path)]
        lex = LexicalIndex([tokens[i] for i in chunk_ids]).scores(query)
        scores = {chunk_ids[j]: float(lex[j]) for j in np.flatnonzero(lex > 0)}
        out[f"BM25 chunks{label}"] = ordered(rank_files(scores, chunks))
    return out


def evaluate(args: argparse.Namespace, cases: list[dict[str, Any]],
             repos: list[Path]) -> tuple[dict[str, list[Ranking]], list[CaseData]]:
    """Rankings of the fixed methods per case, plus each case's components for the tunable fusion."""
    rankings: dict[str, list[Ranking]] = {}
    components = []
    for n, (case, repo) in enumerate(zip(cases, repos, strict=True), 1):
        started = time.perf_counter()
        index = open_index(repo, model=args.model, cache_path=Path(args.root) / f".cache-{args.model_slug}.sqlite",
                           index_path=Path(args.root) / f".indexes-{args.model_slug}" / repo.parent.name / repo.name,
                           history=False)
        built = time.perf_counter() - started
        past = case_history(case, repo, Path(args.root), args.mirrors)
        index.history = past  # what open_index would have read from a full clone of the base commit
        loaded = past.load()
        ranker = HistoryRanker(loaded, index.stored.files) if loaded else None
        query = case["problem_statement"]
        file_tokens = {p: tokenize(f"{p} {read_text(repo / p) or ''}") for p in index.files
                       if p.endswith(CODE_SUFFIXES)}
        for label, ranking in bm25_rankings(index.chunks, index.stored.tokens, query, file_tokens).items():
            rankings.setdefault(label, []).append(ranking)
        lexical, dense = index.lexical.scores(query), index.dense_scores(query)
        boosts = analysis_scores(analyze_query(query), index.chunks, index.symbols, index.files)
        rankings.setdefault("dense alone", []).append(ordered(rank_files(dense, index.chunks)))
        # every history channel computed (weights > 0) so the grids can weigh them; seeds at the default fusion
        every = [replace(FusionParams(), runner_up_weight=r, cochange=1.0, recency=1.0) for r in RUNNER_UP]
        components.append(CaseData({p.runner_up_weight: with_history(
            file_channels(lexical, dense, boosts, index.chunks, p.runner_up_weight), ranker, query, p) for p in every}))
        if ranker is not None:
            rankings.setdefault("history alone (similar fixes)", []).append(ordered(ranker.similar_fixes(query)))
        hits = index.search(query, k=50)
        rankings.setdefault("hybrid (defaults)", []).append([h.path for h in hits])
        print(f"  [{n}/{len(cases)}] {case['instance_id']}: {len(index.chunks)} chunks, index {built:.1f}s, "
              f"{past.count} commits before the base "
              f"{past.note}", file=sys.stderr, flush=True)
    return rankings, components


def case_history(case: dict[str, Any], checkout_dir: Path, root: Path, mirrors: Path) -> HistoryUpdate:
    """The commits reachable from the case's base commit, never later ones: read from the fetched mirror
    (a checkout made file by file has no history of its own), else from the checkout; cached per case."""
    mirror = mirrors / case["repo"].replace("/", "+") / "repo"
    source = mirror if mirror.is_dir() else checkout_dir
    cache = root / ".history" / checkout_dir.parent.name / checkout_dir.name
    cache.mkdir(parents=True, exist_ok=True)
    return update_history(source, cache, case["base_commit"])


def fused(params: FusionParams, data: CaseData) -> Ranking:
    return ordered(fuse_files(data.channels[params.runner_up_weight], params))


NO_HISTORY: dict[str, tuple[Any, ...]] = {"history": (0.0,), "cochange": (0.0,), "recency": (0.0,)}
GRIDS: dict[str, dict[str, tuple[Any, ...]]] = {
    # each tunable ranking: the knobs it may turn (the rest stay at FusionParams' defaults)
    "BM25 + priors": {"dense": (0.0,), "boosts": (0.0,), "test_factor": (1.0, 0.5, 0.2, 0.0),
                      "auxiliary_factor": (1.0, 0.5, 0.2), "runner_up_weight": RUNNER_UP, **NO_HISTORY},
    "BM25 + boosts": {"dense": (0.0,), "boosts": (0.0, 0.05, 0.1, 0.25, 0.5, 1.0),
                      "test_factor": (0.5, 0.2, 0.0), "auxiliary_factor": (0.5, 0.2), "runner_up_weight": RUNNER_UP,
                      **NO_HISTORY},
    "hybrid": {"method": ("blend", "rrf"), "dense": (0.0, 0.1, 0.25, 0.5, 1.0), "boosts": (0.0, 0.05, 0.1, 0.25, 0.5, 1.0),
               "test_factor": (0.5, 0.2, 0.0), "auxiliary_factor": (0.5, 0.2),
               "runner_up_weight": RUNNER_UP, **NO_HISTORY},
    # the history channels on top of the hybrid: similar fixes alone, then with co-change and recency
    "hybrid + history": {"dense": (0.0, 0.25, 0.5), "boosts": (0.1, 0.25, 0.5),
                         "history": (0.0, 0.1, 0.25, 0.5, 1.0, 2.0), "cochange": (0.0,), "recency": (0.0,),
                         "test_factor": (0.5, 0.2, 0.0), "auxiliary_factor": (0.5, 0.2), "runner_up_weight": RUNNER_UP},
    "hybrid + history + co-change + recency": {
        "dense": (0.0, 0.25, 0.5), "boosts": (0.1, 0.25, 0.5), "history": (0.0, 0.25, 0.5, 1.0, 2.0),
        "cochange": (0.0, 0.05, 0.1, 0.25), "recency": (0.0, 0.05, 0.1),
        "test_factor": (0.5, 0.2), "auxiliary_factor": (0.5, 0.2), "runner_up_weight": RUNNER_UP},
}
# fixed settings, no tuning: each channel added to the one before, at FusionParams' default weights
ABLATION: dict[str, dict[str, Any]] = {
    "lexical (defaults)": {"dense": 0.0, "boosts": 0.0, "history": 0.0, "cochange": 0.0, "recency": 0.0},
    "+ dense": {"boosts": 0.0, "history": 0.0, "cochange": 0.0, "recency": 0.0},
    "+ boosts (today's hybrid)": {"history": 0.0, "cochange": 0.0, "recency": 0.0},
    "+ history": {"cochange": 0.0, "recency": 0.0},
    "+ co-change (0.1)": {"cochange": 0.1, "recency": 0.0},
    "+ recency (0.05)": {"cochange": 0.1, "recency": 0.05},
}


def grid_settings(knobs: dict[str, tuple[Any, ...]]) -> list[FusionParams]:
    names = list(knobs)
    return [replace(FusionParams(), **dict(zip(names, values, strict=True)))
            for values in itertools.product(*(knobs[n] for n in names))]


CHANNELS = ("lexical", "dense", "boosts", "history", "cochange", "recency")


@dataclass
class CaseArrays:
    """One case's channels as arrays over its files (sorted by path, NaN where a channel has no score),
    so a grid setting is a weighted sum and the gold file's rank a count: fast enough for big grids."""

    gold: np.ndarray
    test: np.ndarray
    auxiliary: np.ndarray
    values: dict[tuple[float, str], np.ndarray]
    cache: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray]]


def case_arrays(data: CaseData, gold: set[str]) -> CaseArrays:
    paths = sorted({p for ch in data.channels.values() for name in CHANNELS for p in getattr(ch, name)})
    where = {p: i for i, p in enumerate(paths)}
    values = {}
    for runner_up, channels in data.channels.items():
        for name in CHANNELS:
            column = np.full(len(paths), np.nan)
            for path, score in getattr(channels, name).items():
                column[where[path]] = score
            values[(runner_up, name)] = column
    return CaseArrays(np.array([where[g] for g in gold if g in where], dtype=np.int64),
                      np.array([is_test_path(p) for p in paths]), np.array([is_auxiliary_path(p) for p in paths]),
                      values, {})


def _contribution(arrays: CaseArrays, params: FusionParams, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A channel's part of the fused score (before its weight), as `fuse_files` computes it, and its files."""
    key = (params.method, params.rrf_k, params.test_factor, params.auxiliary_factor, params.runner_up_weight, name)
    if key not in arrays.cache:
        prior = np.where(arrays.test, params.test_factor, 1.0) * np.where(arrays.auxiliary, params.auxiliary_factor, 1.0)
        x = arrays.values[(params.runner_up_weight, name)] * prior
        present = ~np.isnan(x)
        out = np.zeros(len(x))
        if present.any():
            if params.method == "rrf":
                idx = np.flatnonzero(present)
                order = idx[np.argsort(-x[idx], kind="stable")]  # ties in path order, as `_ranks`
                out[order] = 1.0 / (params.rrf_k + np.arange(1, len(order) + 1))
            else:
                low, high = np.nanmin(x), np.nanmax(x)
                out[present] = (x[present] - low) / (high - low) if high > low else 1.0
        arrays.cache[key] = (out, present)
    return arrays.cache[key]


def gold_rank(arrays: CaseArrays, params: FusionParams) -> int:
    """1-based rank of the best gold file in `ordered(fuse_files(...))`, 0 when it is not ranked."""
    score, ranked = None, None
    for name in CHANNELS:
        weight = getattr(params, name)
        if weight > 0:
            part, present = _contribution(arrays, params, name)
            score = weight * part if score is None else score + weight * part
            ranked = present if ranked is None else ranked | present
    if score is None or ranked is None:
        return 0
    best = 0
    for g in arrays.gold:
        if ranked[g]:
            rank = 1 + int(np.count_nonzero(ranked & (score > score[g]))) + int(
                np.count_nonzero(ranked[:g] & (score[:g] == score[g])))
            best = rank if not best else min(best, rank)
    return best


def rank_metrics(ranks: np.ndarray) -> dict[str, float]:
    """Recall@k and MRR from gold ranks (0: not ranked)."""
    found = ranks > 0
    out = {f"R@{k}": 100 * float(np.mean(found & (ranks <= k))) for k in KS}
    out["MRR"] = float(np.mean(np.where(found, 1.0 / np.maximum(ranks, 1), 0.0)))
    return out


def held_out(ranks: np.ndarray, repos: list[str]) -> tuple[np.ndarray, list[int], int]:
    """Leave-one-repository-out over a grid (`ranks`: settings x cases): each repository's cases ranked
    with the setting that scored best on the other repositories' cases. Returns the held-out ranks, the
    setting chosen for each case, and the setting chosen on all cases (in-sample)."""
    out = np.zeros(ranks.shape[1], dtype=np.int64)
    chosen = [0] * ranks.shape[1]
    for repo in sorted(set(repos)):
        train = [i for i, r in enumerate(repos) if r != repo]
        best = max(range(len(ranks)), key=lambda s: (objective(rank_metrics(ranks[s, train])), -s))
        for i, r in enumerate(repos):
            if r == repo:
                out[i], chosen[i] = ranks[best, i], best
    everywhere = max(range(len(ranks)), key=lambda s: (objective(rank_metrics(ranks[s])), -s))
    return out, chosen, everywhere


def print_table(rows: list[tuple[str, dict[str, float], dict[str, float] | None]]) -> None:
    print(f"{'method':<44}{'in-sample R@1   R@5  R@10   MRR':>34}   {'held out R@1   R@5  R@10   MRR':>34}")
    for label, m, h in rows:
        cells = f"{m['R@1']:>13.1f}{m['R@5']:>6.1f}{m['R@10']:>6.1f}{m['MRR']:>7.3f}"
        held = f"{h['R@1']:>13.1f}{h['R@5']:>6.1f}{h['R@10']:>6.1f}{h['MRR']:>7.3f}" if h else f"{'(no knobs: same)':>32}"
        print(f"{label:<44}{cells:>34}   {held:>34}")


def per_repo(rankings: list[Ranking], golds: list[set[str]], repos: list[str]) -> str:
    parts = []
    for repo in sorted(set(repos)):
        idx = [i for i, r in enumerate(repos) if r == repo]
        hits = sum(bool(set(rankings[i][:1]) & golds[i]) for i in idx)
        parts.append(f"{repo.split('/')[-1]} {hits}/{len(idx)}")
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------- speed

COLD_INDEX = """
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from indexer import open_index
marks = {{}}
def progress(phase, done, total):
    marks.setdefault(phase + " start", time.perf_counter())
    marks[phase] = time.perf_counter()
started = time.perf_counter()
index = open_index(Path({repo!r}), model={model!r}, cache_path=Path({cache!r}), index_path=Path({index!r}),
                   progress=progress)
wall = time.perf_counter() - started
print(json.dumps({{"wall": wall, "chunks": len(index.chunks), "files": len(index.files),
                  "embedded": int((index.stored.vectors != 0).any(axis=1).sum()),
                  "chunking": marks.get("chunking", started) - started,
                  "loading": marks.get("chunking start", started) - started,
                  "embedding": marks.get("embedding", started) - marks.get("embedding start", started),
                  "history": marks.get("history", started) - marks.get("history start", started),
                  "cpu": resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def index_in_subprocess(repo: Path, model: str, cache: Path, index: Path, user_cache: Path) -> dict[str, float]:
    """Build the index in a fresh Python process (so the peak RSS is the indexer's own, models loaded), with
    an empty user cache: a first run distills the static embedder too."""
    code = COLD_INDEX.format(root=str(HERE.parent), repo=str(repo), model=model, cache=str(cache), index=str(index))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, "XDG_CACHE_HOME": str(user_cache)})
    return json.loads(result.stdout.strip().splitlines()[-1])


def performance(args: argparse.Namespace, repo: Path, queries: list[str]) -> None:
    """Cold, warm-cache and incremental builds, query latency and size on one checkout, in a scratch copy."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        git(tmp, "clone", "-q", "--local", str(repo), str(work))
        cache, index_path = Path(tmp) / "embeddings.sqlite", Path(tmp) / "index"
        user_cache = Path(tmp) / "user-cache"
        cold = index_in_subprocess(work, args.model, cache, index_path, user_cache)
        n_files = len(git(work, "ls-files").splitlines())
        print(f"\ncold index of {repo.parent.name} at {repo.name[:10]} ({n_files} tracked files, {cold['files']:.0f} "
              f"indexed, {cold['chunks']:.0f} chunks, {cold['embedded']:.0f} embedded), model {args.model}, "
              f"{os.cpu_count()} cores (shared: timings are noisy):")
        print(f"  wall time, cold (no index, no caches at all)    {cold['wall']:7.1f} s  "
              f"({cold['chunks'] / cold['wall']:.0f} chunks/s overall)")
        print(f"    of which listing files and loading (first time: distilling) the model  {cold['loading']:5.1f} s")
        print(f"    of which chunking and tokenizing              {cold['chunking'] - cold['loading']:7.1f} s")
        print(f"    of which embedding                            {cold['embedding']:7.1f} s  "
              f"({cold['embedded'] / max(cold['embedding'], 1e-9):.0f} chunks/s)")
        print(f"  CPU time of the indexing process (user + sys)   {cold['cpu']:7.1f} s  (the wall time on an idle "
              f"machine is about this or less: torch uses every core)")
        rest = cold["wall"] - cold["chunking"] - cold["embedding"]
        print(f"    the rest: listing, loading or distilling the model, writing  {rest:5.1f} s")
        print(f"  peak RSS of the indexing process                {cold['rss_mb']:7.0f} MB")
        for old in index_path.glob("*"):
            if old.is_file():  # the index goes, the embedding cache and the distilled model stay
                old.unlink()
        warm = index_in_subprocess(work, args.model, cache, index_path, user_cache)
        print(f"  wall time, warm embedding cache (index deleted) {warm['wall']:7.1f} s")
        target = next(p for p in sorted(work.rglob("*.py")) if ".git" not in p.parts and p.stat().st_size > 2000
                      and not is_test_path(str(p.relative_to(work))))
        target.write_text(target.read_text() + "\n\ndef added_by_benchmark(value):\n    return value * 2\n")
        env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
               "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}
        git(work, "commit", "-q", "--no-verify", "-am", "Fix the benchmark's value doubling", env=env)
        started = time.perf_counter()
        index = open_index(work, model=args.model, cache_path=cache, index_path=index_path)
        incremental = time.perf_counter() - started
        commits = index.history.count if index.history else 0
        index.search(queries[0])  # loads BM25, FAISS and the query encoder
        latencies = []
        for query in queries[:30]:
            started = time.perf_counter()
            index.search(query, k=10)
            latencies.append((time.perf_counter() - started) * 1000)
        size = sum(p.stat().st_size for p in index_path.rglob("*") if p.is_file())
        print(f"  update after a one-file commit                  {incremental:7.2f} s  (history: {commits} commits, "
              f"{index.history.read if index.history else 0} read by the update; {cold.get('history', 0):.1f} s "
              "of the cold build)")
        print(f"  query p50 / p95                                 {statistics.median(latencies):7.1f} / "
              f"{np.percentile(latencies, 95):.1f} ms over {len(latencies)} issue queries")
        print(f"  index size on disk                              {size / 1e6:7.1f} MB")


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
    parser.add_argument("--root", required=True, help="folder for the case checkouts and the benchmark's indexes")
    parser.add_argument("--cases", action="append", default=None, help="JSONL case file (repeatable; default: the "
                        "shared dev set and bench/retrieval_cases/*.jsonl)")
    parser.add_argument("--mirrors", type=Path, default=Path(DEFAULT_MIRRORS), help="fetched mirrors, OWNER+NAME/repo")
    parser.add_argument("--cases-limit", type=int, default=0, help="only the first N cases")
    parser.add_argument("--repos", default="", help="only cases of these repositories (comma-separated OWNER/NAME)")
    parser.add_argument("--model", default=None, help="embedding model (default: the index default)")
    parser.add_argument("--perf-repo", type=Path, default=None,
                        help="checkout for the speed section (default: the case checkout with the most files)")
    parser.add_argument("--skip-perf", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list the cases the hybrid misses at rank 1")
    parser.add_argument("--faiss", action="store_true", help="add the exact-vs-HNSW section")
    parser.add_argument("--reuse", type=Path, default=None, help="keep the per-case scores in this file and reuse "
                        "them when it exists (for trying fusion grids; delete it after changing the indexer)")
    args = parser.parse_args()
    from indexer.embedding import canonical_model_name

    args.model = canonical_model_name(args.model or os.environ.get("ENSEMBLE_BENCH_MODEL") or None)
    args.model_slug = args.model.replace(":", "_").replace("/", "_")
    cases = load_cases(args.cases or DEFAULT_CASES)
    cases = [c for c in cases if not args.repos or c["repo"] in args.repos.split(",")]
    cases = cases[: args.cases_limit] if args.cases_limit else cases
    checkouts = [checkout(c, Path(args.root), args.mirrors) for c in cases]
    missing = sorted({c["repo"] for c, r in zip(cases, checkouts, strict=True) if r is None})
    if missing:
        print(f"skipped {sum(r is None for r in checkouts)} cases of {len(missing)} repositories with no checkout "
              f"under {args.root} and no mirror under {args.mirrors} (bring them with fetch): {', '.join(missing)}")
    kept = [(c, r) for c, r in zip(cases, checkouts, strict=True) if r is not None]
    if not kept:
        print("no case could be checked out; nothing to measure")
        return 1
    cases, repo_dirs = [c for c, _ in kept], [r for _, r in kept]
    golds = [set(c["gold_files"]) for c in cases]
    repos = [c["repo"] for c in cases]
    if args.reuse and args.reuse.is_file():
        rankings, components = pickle.loads(args.reuse.read_bytes())
    else:
        rankings, components = evaluate(args, cases, repo_dirs)
        if args.reuse:
            args.reuse.write_bytes(pickle.dumps((rankings, components)))
    counts = {r: repos.count(r) for r in sorted(set(repos))}
    print(f"\n{len(cases)} cases from {len(counts)} repositories (most from one: {max(counts.values())}), "
          f"model {args.model}")
    rows: list[tuple[str, dict[str, float], dict[str, float] | None]] = [
        (label, metrics(r, golds), None) for label, r in rankings.items()]
    for label, overrides in ABLATION.items():
        params = replace(FusionParams(), **overrides)
        rows.append((f"{label}", metrics([fused(params, data) for data in components], golds), None))
    chosen: dict[str, FusionParams] = {}
    held: dict[str, list[Ranking]] = {}
    arrays = [case_arrays(data, gold) for data, gold in zip(components, golds, strict=True)]
    for name, knobs in GRIDS.items():
        started = time.perf_counter()
        settings = grid_settings(knobs)
        ranks = np.array([[gold_rank(a, params) for a in arrays] for params in settings])
        held_ranks, per_case, best = held_out(ranks, repos)
        chosen[name] = settings[best]
        held[name] = [fused(settings[s], data) for s, data in zip(per_case, components, strict=True)]
        exact = metrics(held[name], golds)
        if exact != rank_metrics(held_ranks):
            print(f"  warning: the fast grid and fuse_files disagree for {name}: {rank_metrics(held_ranks)} vs {exact}")
        rows.append((f"{name} (grid of {len(settings)})", rank_metrics(ranks[best]), exact))
        print(f"  grid {name}: {len(settings)} settings in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print_table(rows)
    for name, params in chosen.items():
        knobs = {k: getattr(params, k) for k in GRIDS[name]}
        print(f"  {name}: setting chosen on all cases: {knobs}")
    base = metrics(rankings["BM25 chunks no tests"], golds)
    print("\nheld-out margins over BM25 chunks without tests (the goal: R@1 +10 points, R@5 >= 85%):")
    for name in GRIDS:
        m = metrics(held[name], golds)
        print(f"  {name:<40} R@1 {m['R@1'] - base['R@1']:+5.1f} points, R@5 {m['R@5']:5.1f}%")
    print(f"\nR@1 per repository, BM25 chunks no tests: {per_repo(rankings['BM25 chunks no tests'], golds, repos)}")
    print(f"R@1 per repository, hybrid held out:      {per_repo(held['hybrid'], golds, repos)}")
    print(f"R@1 per repository, + history held out:   {per_repo(held['hybrid + history'], golds, repos)}")
    if args.misses:
        print("\nhybrid (held out) misses at rank 1:")
        for case, ranking, gold in zip(cases, held["hybrid"], golds, strict=True):
            if not set(ranking[:1]) & gold:
                rank = next((i + 1 for i, p in enumerate(ranking) if p in gold), None)
                print(f"  {case['instance_id']}: gold {sorted(gold)} at rank {rank}; top {ranking[:3]}")
    if not args.skip_perf:
        perf_repo = args.perf_repo or max(set(repo_dirs), key=lambda d: len(git(d, "ls-files").splitlines()))
        performance(args, perf_repo, [c["problem_statement"] for c in cases])
    print(f"  peak RSS of this benchmark process               {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:7.0f} MB")
    if args.faiss:
        faiss_threshold(Path(args.root) / f".cache-{args.model_slug}.sqlite")
    return 0


if __name__ == "__main__":
    sys.exit(main())
