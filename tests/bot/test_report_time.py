"""`ensemble report`: where a run's time went, step by step (bot/report_time.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.trace import Tracer, read_trace, span


class Spans:
    """A trace written as the engine writes one: spans with ids, parents, start times and durations."""

    def __init__(self, run_id: str):
        self.run_id, self.records, self.clock = run_id, [], 1000.0

    def add(self, name: str, duration: float, parent: str | None = None, at: float | None = None,
            **attributes: Any) -> str:
        span_id = f"{self.run_id}-{len(self.records)}"
        start = self.clock if at is None else at
        self.clock = max(self.clock, start + duration)
        self.records.append({"run_id": self.run_id, "span_id": span_id, "parent_id": parent, "name": name,
                             "start": start, "duration_s": duration, "status": "ok", "attributes": attributes})
        return span_id

    def write(self, folder: Path) -> Path:
        path = folder / self.run_id / "trace.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in self.records))
        return path


def solved_run(run_id: str = "r1") -> Spans:
    """One team: index, the base run, explore and plan, two coder calls, two test runs, a review; 100 s of wall."""
    t = Spans(run_id)
    run = t.add("ensemble.run", 100.0, at=1000.0, stop_reason="accepted", success=True)
    t.add("index.open", 4.0, run, at=1000.0)
    base = t.add("ensemble.baseline", 10.0, run, at=1004.0)
    t.add("sandbox.prepare", 1.0, base, at=1004.0)
    t.add("sandbox.run", 9.0, base, at=1005.0)
    team = t.add("ensemble.team", 85.0, run, at=1014.0)
    t.add("llm.complete", 6.0, team, at=1014.0, role="planner", schema="explore")
    t.add("llm.complete", 12.0, team, at=1020.0, role="planner", schema="plan")
    t.add("llm.complete", 30.0, team, at=1032.0, role="coder")
    t.add("sandbox.run", 8.0, team, at=1062.0)
    t.add("llm.complete", 14.0, team, at=1070.0, role="coder")
    t.add("sandbox.run", 7.0, team, at=1084.0)
    t.add("git.commit", 0.5, team, at=1091.0)
    t.add("llm.complete", 5.0, team, at=1092.0, role="critic", schema="review")
    return t


def test_a_runs_time_is_split_into_its_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    solved_run().write(tmp_path / "runs")
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["run_times"]
    assert run["wall_s"] == 100.0 and run["teams"] == 1
    assert run["steps"] == {"index": 4.0, "base run": 10.0, "explore": 6.0, "plan": 12.0, "first coder call": 30.0,
                            "coder": 14.0, "test runs": 15.0, "critic": 5.0, "cross-check": 0.0, "git": 0.5,
                            "other": 0.0}
    assert run["untraced_s"] == 3.5


def test_the_report_prints_the_split_for_people(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    solved_run().write(tmp_path / "runs")
    assert main(["report", str(tmp_path / "runs")]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("where the time went"))
    header, row, share = (line.split("  ") for line in lines[start + 1:start + 4])
    cells = [[c.strip() for c in line if c.strip()] for line in (header, row, share)]
    assert cells[0] == ["run", "teams", "wall", "index", "base run", "explore", "plan", "first coder call", "coder",
                        "test runs", "critic", "git", "untraced"]
    assert cells[1] == ["r1", "1", "100.0", "4.0", "10.0", "6.0", "12.0", "30.0", "14.0", "15.0", "5.0", "0.5", "3.5"]
    assert cells[2] == ["share of wall", "100%", "4%", "10%", "6%", "12%", "30%", "14%", "15%", "5%", "0%", "4%"]


def test_two_teams_and_their_cross_checks_count_each_span_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    t = Spans("r2")
    run = t.add("ensemble.run", 60.0, at=0.0)
    for team_name, first in (("a", 20.0), ("b", 10.0)):
        team = t.add("ensemble.team", 40.0, run, at=5.0, team=team_name)
        t.add("llm.complete", first, team, at=5.0 + (30 - first), role="coder")  # team a's call starts first (at 15 s)
        t.add("sandbox.run", 5.0, team, at=40.0)
    cross = t.add("ensemble.corroborate", 12.0, run, at=45.0)
    t.add("sandbox.run", 6.0, cross, at=45.0)
    t.add("sandbox.run", 6.0, cross, at=51.0)
    t.write(tmp_path / "runs")
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (times,) = data["run_times"]
    assert times["teams"] == 2
    steps = {k: v for k, v in times["steps"].items() if v}
    assert steps == {"first coder call": 20.0, "coder": 10.0, "test runs": 10.0, "cross-check": 12.0}
    assert data["phases"]["sandbox"] == 22.0  # the cross-check's own runs are not counted twice


def test_a_run_cut_off_before_its_run_span_is_measured_by_its_spans(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]):
    t = Spans("cut")
    team = t.add("ensemble.team", 0.0, at=100.0)  # never closed: written with what it had when the run died
    t.add("llm.complete", 20.0, team, at=100.0, role="coder")
    t.add("sandbox.run", 10.0, team, at=125.0)
    t.write(tmp_path / "runs")
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    (times,) = json.loads(capsys.readouterr().out)["run_times"]
    assert (times["wall_s"], times["untraced_s"]) == (35.0, 5.0)


def test_spans_written_by_the_tracer_are_split_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """The real tracer's nesting (parent ids) puts the base run's test run in the base run, not the teams'."""
    tracer = Tracer.for_run(tmp_path / "runs", run_id="real", env={})
    with tracer.activate(), span("ensemble.run"):
        with span("ensemble.baseline"), span("sandbox.run"):
            time.sleep(0.01)
        with span("ensemble.team"), span("sandbox.run"):
            time.sleep(0.01)
    assert [r["name"] for r in read_trace(tracer.path)].count("sandbox.run") == 2
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    (times,) = json.loads(capsys.readouterr().out)["run_times"]
    assert times["steps"]["base run"] > 0 and times["steps"]["test runs"] > 0
