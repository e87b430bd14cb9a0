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
    kinds = figures["github_requests_by_kind"]
    assert sum(kinds.values()) == figures["github_requests"]
    assert figures["github_stop_polls"] == sum(n for kind, n in kinds.items() if "?since=" in kind)
    assert figures["github_not_modified"] == sum(n for kind, n in kinds.items() if kind.endswith("(304)"))
    # two issue runs and two revision runs: the engine's ticks coalesced (each run ticked five stages)
    assert kinds["PATCH /repos/octo/demo/issues/comments/N"] <= 3 * 4
    # the default branch comes with the event, an installation token is not asked who it is, a new PR has no
    # partial label to take off
    assert not [kind for kind in kinds if kind in ("GET /repos/octo/demo", "GET /user") or "ensemble%3Apartial" in kind]
    # one GraphQL snapshot per delivery answers the config, the sender's permission and the open PR (REST never)
    assert kinds["POST /api/graphql EventSnapshot"] == 4
    assert not [kind for kind in kinds if kind.startswith("GET") and ("/contents/" in kind or "/collaborators/" in kind
                                                                 or kind.endswith("/pulls"))]
    # the 👀 on each labelled issue goes with its progress comment (a duplicate writes none: its 👀 goes alone)
    assert kinds["POST /api/graphql ReactAndComment"] == 2
