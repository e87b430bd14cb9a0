"""Ranking files by the repository's history: past commits similar to the issue vote for the files they changed.

Three file-level channels for the fusion (indexer/retrieval.py), after BugLocator's similar-report
channel and Locus's change history:
- `similar_fixes`: BM25 over commit messages; each of the SIMILAR_COMMITS best-matching commits votes
  for the files it changed, weighted by its similarity to the query (squared: the closest fixes
  dominate), its focus (1/sqrt of the files it changed: a 2-file fix says more than a 200-file
  reformat), its age (halved every AGE_HALF_LIFE_DAYS before the indexed commit) and its kind
  (merges and mass renames count less). Those choices were made on bench/retrieval_cases (the
  channel alone: R@1 24% -> 43% against 100 commits, 1/n and plain similarity), never on the
  shared dev set that bench/retrieval.py reports as unseen;
- `cochange`: files that changed together with strong candidates, in focused commits;
- `recency`: how recently each file changed (a weak prior: bugs live where code moves).
Paths are mapped to today's files by following renames from the newest commit back; a file that no
longer exists gets no votes. Pure: works on a loaded `History`, no git here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace

import numpy as np

from indexer.history import Commit, History
from indexer.lexical import LexicalIndex
from indexer.retrieval import FileChannels, FusionParams, fuse_files
from indexer.tokens import tokenize

SIMILAR_COMMITS = 30  # commits that vote for a query
AGE_HALF_LIFE_DAYS = 730.0
RECENCY_HALF_LIFE_DAYS = 180.0
MERGE_FACTOR = 0.5
MASS_RENAME_FACTOR = 0.1
MASS_RENAME_MIN = 10  # renames in one commit, and at least half its changes, make a mass rename
COCHANGE_MAX_FILES = 20  # larger commits say little about which files belong together
COCHANGE_SEEDS = 5


def today_paths(commits: tuple[Commit, ...], files: set[str]) -> list[tuple[str, ...]]:
    """For each commit (newest first), the files of today it touched: renames followed, gone files dropped.

    Walking back in time, `alias` maps a path as it was named then to the file it is today (None
    once it was deleted or re-created later, so an old file of the same name gets no votes).
    """
    alias: dict[str, str | None] = {}
    out = []
    for commit in commits:
        touched = []
        for change in commit.changes:
            today = alias.get(change.path, change.path)
            if today is not None and today in files:
                touched.append(today)
            if change.status == "R" and change.old_path:
                alias[change.old_path] = today
            if change.status in ("A", "D") or change.status == "R":
                # before an add (or a rename onto this path) the name belonged to another file or none;
                # before a delete the name was the deleted file, which today's file of that name is not
                alias[change.path] = None
        out.append(tuple(dict.fromkeys(touched)))
    return out


def commit_weight(commit: Commit, head_time: int) -> float:
    """How much a commit's vote counts before similarity: focus, age and kind."""
    changed = max(1, len(commit.changes))
    renames = sum(c.status == "R" for c in commit.changes)
    weight: float = changed ** -0.5
    weight *= float(0.5 ** (max(0, head_time - commit.time) / 86400 / AGE_HALF_LIFE_DAYS))
    if commit.parents > 1:
        weight *= MERGE_FACTOR
    if renames >= MASS_RENAME_MIN and 2 * renames >= changed:
        weight *= MASS_RENAME_FACTOR
    return weight


class HistoryRanker:
    """File scores from a `History`, for the files indexed today."""

    def __init__(self, history: History, files: Iterable[str]):
        self.history = history
        self.files = set(files)
        self.touched = today_paths(history.commits, self.files)
        self.head_time = history.commits[0].time if history.commits else 0
        self.weights = np.array([commit_weight(c, self.head_time) for c in history.commits])
        self._lexical: LexicalIndex | None = None
        self._by_file: dict[str, list[int]] | None = None
        self._recency: dict[str, float] | None = None

    @property
    def lexical(self) -> LexicalIndex:
        """BM25 over commit messages (built on first use)."""
        if self._lexical is None:
            self._lexical = LexicalIndex([list(c.tokens) for c in self.history.commits])
        return self._lexical

    def similar_commits(self, query: str, k: int = SIMILAR_COMMITS) -> list[tuple[int, float]]:
        """The `k` commits whose messages best match the query, with BM25 scores scaled to the best (1.0)."""
        if not self.history.commits:
            return []
        scores = self.lexical.scores(tokenize(query))
        best = np.argsort(-scores, kind="stable")[:k]
        top = float(scores[best[0]]) if len(best) else 0.0
        return [(int(i), float(scores[i]) / top) for i in best if scores[i] > 0] if top > 0 else []

    def similar_fixes(self, query: str) -> dict[str, float]:
        """Each similar commit votes for today's files it changed: similarity² x focus x age x kind."""
        votes: dict[str, float] = defaultdict(float)
        for i, similarity in self.similar_commits(query):
            for path in self.touched[i]:
                votes[path] += similarity ** 2 * float(self.weights[i])
        return dict(votes)

    def cochange(self, seeds: Mapping[str, float]) -> dict[str, float]:
        """Files that changed with the strongest seeds (path -> weight), as a share of each seed's focused commits."""
        by_file = self._commits_by_file()
        out: dict[str, float] = defaultdict(float)
        strongest = sorted(seeds, key=lambda p: (-seeds[p], p))[:COCHANGE_SEEDS]
        for seed in strongest:
            commits = [i for i in by_file.get(seed, []) if len(self.history.commits[i].changes) <= COCHANGE_MAX_FILES]
            for i in commits:
                for path in self.touched[i]:
                    if path != seed:
                        out[path] += seeds[seed] / len(commits)
        return dict(out)

    def recency(self) -> dict[str, float]:
        """1.0 for a file changed by the newest commit, halving every RECENCY_HALF_LIFE_DAYS before it."""
        if self._recency is not None:
            return self._recency
        out: dict[str, float] = {}
        for commit, touched in zip(self.history.commits, self.touched, strict=True):
            for path in touched:
                if path not in out:
                    age_days = max(0, self.head_time - commit.time) / 86400
                    out[path] = 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)
        self._recency = out
        return out

    def _commits_by_file(self) -> dict[str, list[int]]:
        if self._by_file is None:
            by_file: dict[str, list[int]] = defaultdict(list)
            for i, touched in enumerate(self.touched):
                for path in touched:
                    by_file[path].append(i)
            self._by_file = dict(by_file)
        return self._by_file


def with_history(channels: FileChannels, ranker: HistoryRanker | None, query: str,
                 params: FusionParams) -> FileChannels:
    """The channels plus the history's: similar fixes, co-change with today's strongest candidates, recency.

    The co-change seeds are the best files of the fusion without history, so the history adds files
    that move with them rather than echoing its own votes.
    """
    if ranker is None or not ranker.history.commits:
        return channels
    history = ranker.similar_fixes(query) if params.history > 0 else {}
    seeds: dict[str, float] = {}
    if params.cochange > 0:
        base = fuse_files(channels, replace(params, history=0.0, cochange=0.0, recency=0.0))
        top = max(base.values(), default=0.0)
        seeds = {path: score / top for path, score in base.items()} if top > 0 else {}
    return replace(channels, history=history, cochange=ranker.cochange(seeds) if seeds else {},
                   recency=ranker.recency() if params.recency > 0 else {})
