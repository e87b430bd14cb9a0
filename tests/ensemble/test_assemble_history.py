"""A run's trace says whether retrieval ranked with the repository's history or without it (a shallow clone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Config
from bot.ensemble.assemble import retriever
from bot.trace import Tracer, read_trace
from tests.conftest import git


@pytest.mark.slow
def test_the_index_span_names_the_history_or_why_it_is_missing(repo: Path, tmp_path: Path) -> None:
    for n in range(3):
        (repo / "shapes.py").write_text(f"def area_of_circle(radius):\n    return 3.14159 * radius ** {n}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"Fix the circle's area, take {n}")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    tracer = Tracer.for_run(tmp_path / "runs", "run-1", env={})
    with tracer.activate():
        retriever(repo, Config(), {})
        retriever(shallow, Config(), {})
    full, cut = [s for s in read_trace(tracer.path) if s["name"] == "index.open"]
    assert full["attributes"]["history_commits"] == 4 and full["attributes"]["history_note"] == ""
    assert cut["attributes"]["history_commits"] == 0
    assert "shallow clone" in cut["attributes"]["history_note"]
    assert "git fetch --filter=blob:none --unshallow" in cut["attributes"]["history_note"]
