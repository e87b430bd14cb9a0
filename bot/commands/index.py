"""`ensemble index --repo PATH`: build or incrementally update the retrieval index."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.config import load_config
from bot.errors import UsageError
from bot.extras import require_engine

if TYPE_CHECKING:  # the engine's modules load only when the index is opened
    from indexer import RepoIndex
    from indexer.build import Progress


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("index", help="build or update the retrieval index under PATH/.ensemble/index/ "
                                   "(or $ENSEMBLE_INDEX_DIR)")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository to index (default: .)")
    parser.set_defaults(handler=run)


class StderrProgress:
    """A one-line progress bar on stderr (a line per stage when stderr is not a terminal)."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._last = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        finished = done >= total
        if self.tty and (finished or time.monotonic() - self._last > 0.1):
            width = 30
            filled = width * done // max(total, 1)
            self.stream.write(f"\r{stage:<10} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
            self.stream.write("\n" if finished else "")
            self.stream.flush()
            self._last = time.monotonic()
        elif not self.tty and finished:
            print(f"{stage}: {done}/{total}", file=self.stream)


def open_repo_index(repo: Path, progress: Progress | None = None) -> RepoIndex:
    """Open (building or updating) the index of `repo` as `ensemble run` would (ENSEMBLE_INDEX_DIR included)."""
    from bot.ensemble.assemble import open_configured_index

    repo = checked_repo(repo)
    return open_configured_index(repo, load_config(repo, os.environ), os.environ, progress)


def checked_repo(repo: Path) -> Path:
    """`--repo` resolved; a usage error (exit 2) when it is not the top folder of a git checkout."""
    repo = repo.resolve()
    if not repo.is_dir():
        raise UsageError(f"--repo {repo} is not a folder; pass the path of a git checkout")
    if not (repo / ".git").exists():
        raise UsageError(f"--repo {repo} is not a git checkout; point it at a repository's top folder "
                         "(or run `git init` there first)")
    return repo


def run(args: argparse.Namespace) -> int:
    require_engine()
    started = time.perf_counter()
    index = open_repo_index(args.repo, StderrProgress())
    stored = index.stored
    print(f"indexed {len(stored.files)} files, {len(stored.chunks)} chunks at {stored.commit[:12] or '(no commit)'} "
          f"with {stored.model} in {time.perf_counter() - started:.1f}s")
    return 0
