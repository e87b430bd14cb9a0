"""Build the real components of a run from the config: model manager, retrieval, sandbox runner."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Config
from bot.ensemble.adapters import IndexRetriever, SandboxRunner
from bot.ensemble.instructions import Instructions, find_instructions

if TYPE_CHECKING:
    from bot.llm import ModelManager
    from indexer import RepoIndex
    from indexer.build import Progress

log = logging.getLogger(__name__)

INDEX_DIR_VAR = "ENSEMBLE_INDEX_DIR"


def model_manager(repo_dir: Path, config: Config, env: Mapping[str, str], use_cache: bool = True) -> ModelManager:
    """The model query manager for the config's roles, caching under `.ensemble/cache/llm/`."""
    from bot.llm import CACHE_SUBDIR, ModelManager

    return ModelManager.from_config(config, env, repo_dir / CACHE_SUBDIR, use_cache=use_cache, base_dir=repo_dir)


def instructions(repo_dir: Path, config: Config, ref: str = "HEAD") -> Instructions:
    """The repository's instructions as committed at `ref`, and the config's `instructions:` text.

    Read from a commit, never a worktree: on GitHub `ref` is the default branch, so a pull
    request cannot bring its own instructions.
    """
    from bot.forge.local import CommittedTree

    tree = CommittedTree(repo_dir, ref)
    return find_instructions(tree.read, tree.paths(), config.instructions)


def retriever(repo_dir: Path, config: Config, env: Mapping[str, str] | None = None, tree: Path | None = None) -> IndexRetriever:
    """The repository's index (built or updated as needed), wrapped for the planner.

    `tree` is the checkout to index when it is not `repo_dir` itself: a run indexes a clean
    worktree of the committed base, the same files its teams start from, never the user's
    uncommitted changes. The index still lives under `repo_dir/.ensemble/`.
    """
    from bot.trace import span

    with span("index.open", model=config.index.embedding_model or "default") as s:
        index = open_configured_index(repo_dir, config, env, tree=tree)
        stored = index.stored
        s.set(model=stored.model, commit=stored.commit, files=len(stored.files), chunks=len(stored.chunks))
        past = index.history
        s.set(history_commits=past.count if past else 0,
              history_note=past.note if past else "off (index.history: false)")
    return IndexRetriever(index)


def open_configured_index(repo_dir: Path, config: Config, env: Mapping[str, str] | None = None,
                          progress: Progress | None = None, tree: Path | None = None) -> RepoIndex:
    """Open (building or updating) the index of `repo_dir` with the config's options.

    With ENSEMBLE_INDEX_DIR set, the index and its embedding cache live there instead of under
    `.ensemble/`, so a CI cache can carry them from one run (and one throw-away clone) to the next.
    """
    from bot.redact import scrub
    from indexer import open_index

    spec = config.index
    index_dir = (env or {}).get(INDEX_DIR_VAR)
    home: Path | None = Path(index_dir) if index_dir else Path(repo_dir) / ".ensemble"
    if not index_dir and tree is None:
        home = None  # the indexer's own default place, which it also keeps out of `git status`
    return open_index(tree or repo_dir, include=spec.include, exclude=spec.exclude, max_file_kb=spec.max_file_kb,
                      model=spec.embedding_model, progress=progress,
                      index_path=home / "index" if home else None,
                      cache_path=home / "embeddings.sqlite" if home else None, redact=scrub,
                      history=spec.history)


def test_runner(config: Config, env: Mapping[str, str]) -> SandboxRunner:
    """The sandbox (Docker, or the local fallback) with the config's test spec."""
    from sandbox import select_sandbox

    return SandboxRunner(select_sandbox(config.sandbox.require_docker), config.sandbox)
