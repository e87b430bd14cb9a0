"""A writer killed mid-save, and two writers at once, through real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from indexer import open_index
from indexer.store import index_dir, lock_path
from tests.indexer.conftest import HashingEmbedder, commit_all

ROOT = Path(__file__).resolve().parents[2]
# Update the index after a change, and die (SIGKILL, no cleanup) just before the manifest would switch.
DIE_BEFORE_SWITCH = """
import os, signal, sys
from pathlib import Path
import indexer.store as store
from indexer import open_index
from tests.indexer.conftest import HashingEmbedder
real = store.write_atomic
def write(path, data, **options):
    if Path(path).name == "manifest.json":
        os.kill(os.getpid(), signal.SIGKILL)
    real(path, data, **options)
store.write_atomic = write
open_index(Path(sys.argv[1]), embedder=HashingEmbedder())
"""
HOLD_THE_LOCK = """
import sys, time
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def child(script: str, *args: str, **kwargs: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            **kwargs)  # type: ignore[call-overload]


def test_a_writer_killed_before_the_switch_leaves_the_old_index_whole(code_repo: Path) -> None:
    open_index(code_repo, embedder=HashingEmbedder())
    (code_repo / "pkg" / "retry.py").write_text("def backoff(attempt):\n    return 2 ** attempt\n")
    commit_all(code_repo)
    killed = child(DIE_BEFORE_SWITCH, str(code_repo))
    assert killed.wait(60) == -9
    assert list(index_dir(code_repo).glob("chunks-*.jsonl"))  # it did get as far as writing its generation
    counting = HashingEmbedder()
    index = open_index(code_repo, embedder=counting, update=False)
    assert "pkg/session.py" in {c.path for c in index.chunks} and "pkg/retry.py" not in {c.path for c in index.chunks}
    assert counting.embedded == []  # the old generation loaded as it was
    updated = open_index(code_repo, embedder=counting)
    assert "pkg/retry.py" in {c.path for c in updated.chunks}


def test_a_second_writer_waits_for_the_first(code_repo: Path) -> None:
    root = index_dir(code_repo)
    root.mkdir(parents=True, exist_ok=True)
    holder = child(HOLD_THE_LOCK, str(lock_path(root)), "2", stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        started = time.monotonic()
        index = open_index(code_repo, embedder=HashingEmbedder())
        waited = time.monotonic() - started
        assert waited > 1.0, f"the second writer did not wait for the lock ({waited:.2f}s)"
        assert "pkg/session.py" in {c.path for c in index.chunks}
    finally:
        holder.kill()
        holder.wait()
