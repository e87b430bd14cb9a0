"""Which files are indexed: git-tracked and untracked-but-not-ignored files, minus noise.

Each file is identified by its git blob SHA (from the git index, or `git hash-object` when the
working tree differs), which is what incremental updates compare. Binaries, vendored and generated
folders, lock files, files over the size cap and paths outside the include/exclude patterns (gitignore
rules, `common.globs`) are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from common.git import git
from common.globs import matches_any
from common.languages import is_code
from common.testfiles import is_test_path

__all__ = ["IndexerError", "RepoFile", "head_commit", "is_auxiliary_path", "is_test_path", "list_files", "read_text",
           "wanted"]


class IndexerError(Exception):
    """The index could not be built or read; the message says how to fix it."""

    exit_code = 1


SKIP_DIRS = {".git", ".ensemble", "node_modules", "vendor", "vendored", "third_party", "thirdparty",
             "__pycache__", "site-packages", "dist", "build", ".tox", ".venv", "venv", ".mypy_cache",
             ".pytest_cache", "bower_components", "_build", "target", ".next", "coverage"}
LOCK_FILES = {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "Pipfile.lock", "Cargo.lock",
              "Gemfile.lock", "composer.lock", "go.sum", "uv.lock", "pdm.lock", "npm-shrinkwrap.json"}
GENERATED = re.compile(r"(\.min\.(js|css)|\.map|_pb2(_grpc)?\.py|\.pb\.go|\.lock)$")
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".zip", ".gz", ".tar", ".whl", ".so", ".dll",
                   ".exe", ".bin", ".pyc", ".class", ".jar", ".woff", ".woff2", ".ttf", ".otf", ".mp3", ".mp4",
                   ".npy", ".npz", ".pkl", ".db", ".sqlite", ".fits", ".h5", ".hdf5", ".nc", ".xz", ".bz2"}
AUXILIARY_DIR = re.compile(r"(^|/)(docs?|examples?|benchmarks?|scripts|extra|tools|contrib)/")


@dataclass(frozen=True)
class RepoFile:
    """A file to index: its path relative to the repository root and its git blob SHA."""

    path: str
    blob: str


def is_auxiliary_path(path: str) -> bool:
    """True for files that are not source code, or that sit under docs, examples, benchmarks or scripts."""
    return not is_code(path) or bool(AUXILIARY_DIR.search(path))


def _git(repo: Path, *args: str, stdin: str | None = None) -> str:
    """git in the repository to index; a failure is the facade's GitError, with the fix added."""
    return git(repo, *args, stdin=stdin, hint="index a git working tree (run `git init` first)")


def head_commit(repo: Path) -> str:
    """The HEAD commit, or an empty string in a repository with no commits yet."""
    return git(repo, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()


def wanted(path: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Whether a path passes the folder, lock-file, binary-suffix and include/exclude filters.

    `include` and `exclude` are gitignore-style patterns (`common.globs`): `*.py` at any depth,
    `docs/` a folder anywhere, `/src` anchored at the root, `!pattern` taking a path back.
    """
    parts = path.split("/")
    name = parts[-1]
    if any(part in SKIP_DIRS for part in parts[:-1]) or name in LOCK_FILES or GENERATED.search(name):
        return False
    if "." + name.rsplit(".", 1)[-1].lower() in BINARY_SUFFIXES:
        return False
    if include and not matches_any(path, include):
        return False
    return not (exclude and matches_any(path, exclude))


def list_files(repo: Path, include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
               max_file_kb: int = 512) -> list[RepoFile]:
    """The files to index with their current blob SHAs, sorted by path."""
    staged: dict[str, str] = {}
    for line in _git(repo, "ls-files", "-s", "-z").split("\0"):
        if line:
            meta, path = line.split("\t", 1)
            mode, blob, _stage = meta.split()
            if mode != "160000":  # submodules are not files
                staged[path] = blob
    changed = set(filter(None, _git(repo, "ls-files", "-m", "-z").split("\0")))
    changed |= set(filter(None, _git(repo, "ls-files", "-o", "--exclude-standard", "-z").split("\0")))
    candidates = [p for p in set(staged) | changed if wanted(p, include, exclude)]
    present = [p for p in candidates if _small_regular_file(repo / p, max_file_kb)]
    rehash = sorted(p for p in present if p in changed or p not in staged)
    if rehash:
        hashes = _git(repo, "hash-object", "--no-filters", "--stdin-paths", stdin="\n".join(rehash) + "\n").split()
        staged.update(zip(rehash, hashes, strict=True))
    return [RepoFile(p, staged[p]) for p in sorted(present)]


def _small_regular_file(path: Path, max_file_kb: int) -> bool:
    try:
        return path.is_file() and not path.is_symlink() and path.stat().st_size <= max_file_kb * 1024
    except OSError:
        return False


def read_text(path: Path) -> str | None:
    """The file's text (invalid UTF-8 replaced), or None for a binary file (a NUL byte early on)."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")
