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
