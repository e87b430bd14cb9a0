"""bench/team_walk.py: how far a reader walks to follow one team, and what a shorter walk would cost."""

from __future__ import annotations

import re

import pytest

from tests.bench.loading import load_bench

team_walk = load_bench("team_walk")


def _walk(*modules: str) -> object:
    return team_walk.Walk([(m, f"f{i}", "") for i, m in enumerate(modules)])


def test_stops_count_each_module_entered_and_each_return_to_one_left() -> None:
    walk = _walk("team", "team", "coding", "team", "judge", "team", "coding")

    assert walk.figures() == {"stops": 6, "modules": 3, "returns": 3, "functions": 7}


def test_the_merge_that_shortens_the_walk_most_comes_first() -> None:
    walk = _walk("team", "policy", "team", "policy", "team", "coding", "team")

    merges = walk.best_merges(2)

    assert [(a, b) for a, b, _ in merges] == [("team", "policy"), ("team", "coding")]
    assert merges[0][2].figures()["stops"] == 3  # team, coding, team
    assert merges[1][2].figures() == {"stops": 1, "modules": 1, "returns": 0, "functions": 7}


def test_no_merge_is_left_once_one_module_remains() -> None:
    assert _walk("team", "coding").best_merges(5)[1:] == []


def test_the_scripted_team_is_walked_and_its_merges_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert team_walk.main(["--runs", "1", "--only", "bot/ensemble", "--merges", "1"]) == 0

    out = capsys.readouterr().out
    walked = re.search(r"(\d+) stops in (\d+) modules, (\d+) returns", out)
    assert walked, out
    stops, modules, returns = map(int, walked.groups())
    assert stops == modules + returns and modules > 1
    merged = re.search(r"^merging bot\.ensemble\.[\w.]+ into bot\.ensemble\.[\w.]+: (\d+) stops", out, re.MULTILINE)
    assert merged and int(merged.group(1)) < stops, out
