"""Assembling the real components: the index can live outside the checkout (for CI caches)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.config import Config
from bot.ensemble.assemble import INDEX_DIR_VAR, retriever
from tests.conftest import git


@pytest.mark.slow
def test_index_dir_outside_the_checkout_is_reused_by_another_clone(repo: Path, tmp_path: Path) -> None:
    (repo / "shapes.py").write_text("def area_of_circle(radius):\n    return 3.14159 * radius ** 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "shapes")
    env = {INDEX_DIR_VAR: str(tmp_path / "ci-cache")}
    retriever(repo, Config(), env)
    assert (tmp_path / "ci-cache" / "index").is_dir()
    assert (tmp_path / "ci-cache" / "embeddings.sqlite").is_file()
    assert not (repo / ".ensemble" / "index").exists()

    clone = tmp_path / "clone"
    shutil.copytree(repo, clone)
    found = retriever(clone, Config(), env).index.search("circle area", k=1)
    assert found[0].path == "shapes.py"


@pytest.mark.slow
def test_a_run_indexes_the_committed_base_not_uncommitted_changes(repo: Path, tmp_path: Path) -> None:
    from bot.forge.local import LocalForge

    (repo / "shapes.py").write_text("def area_of_circle(radius):\n    return 3.14159 * radius ** 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "shapes")
    (repo / "shapes.py").write_text("def volume_of_sphere(radius):\n    return 4.18879 * radius ** 3\n")
    (repo / "draft.py").write_text("def half_written_parser():\n    pass\n")
    forge = LocalForge(repo, "test-run")
    try:
        forge.start("task")
        base = forge.workspace("a")
        index = retriever(repo, Config(), {}, tree=base.path).index
        assert "draft.py" not in index.stored.files
        assert index.search("circle area", k=1, level="chunk")[0].symbol == "area_of_circle"
        assert (repo / ".ensemble" / "index").is_dir()  # kept in the checkout's own place for the next run
    finally:
        forge.cleanup()
    assert (repo / "draft.py").exists() and "volume_of_sphere" in (repo / "shapes.py").read_text()
