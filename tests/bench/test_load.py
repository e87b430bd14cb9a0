"""bench/load.py in a reduced mode: two issues at once, a duplicate delivery, two queued revisions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("bench_load", ROOT / "bench" / "load.py")
assert SPEC is not None and SPEC.loader is not None
load = importlib.util.module_from_spec(SPEC)
sys.modules["bench_load"] = load
SPEC.loader.exec_module(load)
pytestmark = pytest.mark.slow


def test_the_load_bench_finds_no_problem_in_a_reduced_run() -> None:
    figures = load.run(issues=2, duplicates=1, queued_prs=1)
    assert figures["problems"] == []
    assert figures["results"] == {"pr-opened": 2, "exists": 1, "revised": 1}
    assert figures["pull_requests"] == 2 and figures["peak_rss_mb"] > 0
