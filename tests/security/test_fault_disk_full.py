"""A full disk while the index or the reply cache is written: what was on disk before stays whole
and readable (atomic writes, no half-written or temporary files left behind), and the run goes on
(the new index is searched from memory, the reply is used uncached).

The full disk is a file-size limit (RLIMIT_FSIZE) on a child process: every write past it fails
with EFBIG, as writes on a full disk fail with ENOSPC, with no root mount needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bot.llm.cache import CachedReply, ReplyCache
from indexer import open_index
from indexer.store import index_dir, load_store
from tests.conftest import git
from tests.indexer.conftest import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]
FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing us
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
"""
UPDATE_INDEX = FULL_DISK + """
from pathlib import Path
from indexer import open_index
from tests.indexer.conftest import HashingEmbedder
index = open_index(Path(sys.argv[2]), embedder=HashingEmbedder())
print("searching the new files from memory:", "big.py" in {c.path for c in index.stored.chunks})
"""
CACHE_REPLY = FULL_DISK + """
from pathlib import Path
from bot.llm.cache import ReplyCache
try:
    ReplyCache(Path(sys.argv[2])).put("ab" + "0" * 62, {"text": "y" * 200_000})
except OSError as exc:
    print(f"failed: {exc.strerror}")
"""


def child(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]  # a warning, not a crash
    return done.stdout.strip()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if ".tmp" in p.name)


def test_a_full_disk_while_updating_the_index_leaves_the_old_index_whole(repo: Path) -> None:
    (repo / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "app")
    before = open_index(repo, embedder=HashingEmbedder())
    (repo / "big.py").write_text("".join(f"def handler_{n}(request):\n    return {n}\n\n" for n in range(3000)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a big change")

    assert child(UPDATE_INDEX, str(64 * 1024), str(repo)) == "searching the new files from memory: True"
    stored = load_store(index_dir(repo))
    assert stored is not None and stored.commit == before.stored.commit  # the old generation, whole
    assert {c.path for c in stored.chunks} == {c.path for c in before.stored.chunks}
    assert leftovers(index_dir(repo)) == []
    after = open_index(repo, embedder=HashingEmbedder())  # with room again, the update goes through
    assert "big.py" in {c.path for c in after.stored.chunks}


def test_a_full_disk_while_caching_a_reply_leaves_no_half_entry(tmp_path: Path) -> None:
    cache = ReplyCache(tmp_path / "llm")
    earlier = CachedReply(text="an earlier reply", data=None, request_id=None, provider="openai", model="gpt-4o")
    cache.put("cd" + "1" * 62, earlier)
    assert child(CACHE_REPLY, str(64 * 1024), str(tmp_path / "llm")).startswith("failed: File too large")
    assert cache.get("ab" + "0" * 62) is None  # no entry rather than a truncated one
    assert cache.get("cd" + "1" * 62) == earlier
    assert leftovers(tmp_path / "llm") == []
    assert all(json.loads(p.read_text()) for p in (tmp_path / "llm").rglob("*.json"))
