"""Caches in the right place: the distilled embedding model once per user, never in a repository.

The static model (about 31 MB) used to be kept in every repository's `.ensemble/index/models/`,
where CI caches and artifacts carried it about. It now lives in `$XDG_CACHE_HOME/ensemble-bot/
static/` (the tests' own, from tests/conftest.py), keyed by the model's files and shared by every
repository, and is written whole or not at all.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import numpy as np
import pytest

from bot.cli import main
from bot.doctor import DoctorContext, check_caches
from bot.ensemble.demo import create_sample_repo
from indexer.static import _save, default_cache_dir

MAX_ENSEMBLE_BYTES = 5 * 1024 * 1024


def size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


@pytest.mark.slow  # the real static model (distilled once per test session)
def test_repositories_share_one_distilled_model_and_keep_only_their_own_index(tmp_path: Path) -> None:
    first, second = create_sample_repo(tmp_path / "one"), create_sample_repo(tmp_path / "two")
    legacy = second / ".ensemble" / "index" / "models"  # where an earlier version kept its copy
    legacy.mkdir(parents=True)
    (legacy / "0123456789abcdef.npy").write_bytes(b"\0" * 1024)

    assert main(["index", "--repo", str(first)]) == 0
    models = sorted(default_cache_dir().glob("all-MiniLM-L6-v2-*.npy"))
    assert len(models) == 1 and models[0].stat().st_size > 10 * 1024 * 1024
    written = models[0].stat().st_mtime_ns
    assert main(["index", "--repo", str(second)]) == 0

    assert sorted(default_cache_dir().glob("all-MiniLM-L6-v2-*.npy")) == models  # shared, not made again
    assert models[0].stat().st_mtime_ns == written
    for repo in (first, second):
        assert size(repo / ".ensemble") < MAX_ENSEMBLE_BYTES, sorted((repo / ".ensemble").rglob("*"))
        assert not (repo / ".ensemble" / "index" / "models").exists()
    assert not list(default_cache_dir().glob(".*.tmp"))


def test_a_distillation_that_cannot_be_written_whole_leaves_no_half_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    real_save = np.save

    def disk_full(fh: object, array: np.ndarray, **kwargs: object) -> None:
        real_save(fh, array[:10], **kwargs)  # part of it reaches the disk, then the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "save", disk_full)
    target = tmp_path / "static" / "all-MiniLM-L6-v2-0123456789abcdef.npy"
    with caplog.at_level(logging.WARNING):
        _save(target, np.ones((30522, 8), dtype=np.float32))
    assert list((tmp_path / "static").iterdir()) == []  # neither the entry nor its temporary file
    assert "No space left on device" in caplog.text


def test_two_runs_distilling_at_once_leave_one_whole_model(tmp_path: Path) -> None:
    target = tmp_path / "static" / "all-MiniLM-L6-v2-0123456789abcdef.npy"
    arrays = [np.full((30522, 64), i, dtype=np.float32) for i in range(4)]
    threads = [threading.Thread(target=_save, args=(target, a)) for a in arrays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kept = np.load(target)
    assert kept.shape == (30522, 64) and len(np.unique(kept)) == 1
    assert [p.name for p in target.parent.iterdir()] == [target.name]


def test_doctor_shows_where_each_cache_is_and_how_big(tmp_path: Path) -> None:
    repo = create_sample_repo(tmp_path / "stats")
    (repo / ".ensemble" / "cache" / "llm").mkdir(parents=True)
    (repo / ".ensemble" / "cache" / "llm" / "entry.json").write_bytes(b"x" * 300_000)
    check = check_caches(DoctorContext(repo, {"XDG_CACHE_HOME": str(tmp_path / "xdg")}))
    assert check.ok
    assert f"model cache {tmp_path / 'xdg' / 'ensemble-bot' / 'static'} (none yet)" in check.detail
    assert f"reply cache {repo / '.ensemble' / 'cache'} (0.3 MB)" in check.detail
    assert f"index {repo / '.ensemble' / 'index'}" in check.detail
