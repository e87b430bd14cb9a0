"""`ensemble doctor` says whether the repository has an index, and which model and commit built it."""

from __future__ import annotations

from pathlib import Path

from bot.doctor import DoctorContext, check_index
from indexer import open_index
from tests.conftest import git
from tests.indexer.conftest import HashingEmbedder, commit_all


def test_doctor_reports_missing_then_built_then_stale_index(code_repo: Path):
    missing = check_index(DoctorContext(code_repo, {}))
    assert not missing.ok and not missing.essential and "ensemble index --repo" in missing.fix

    open_index(code_repo, embedder=HashingEmbedder())
    head = git(code_repo, "rev-parse", "HEAD").strip()
    built = check_index(DoctorContext(code_repo, {}))
    assert built.ok and "test-hashing" in built.detail and head[:12] in built.detail
    assert "behind HEAD" not in built.detail

    (code_repo / "new.py").write_text("x = 1\n")
    commit_all(code_repo)
    assert "behind HEAD" in check_index(DoctorContext(code_repo, {})).detail
