"""The held-out task set: marked in task.json, left out unless asked for, and reported apart from the design set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.loading import load_bench

peers = load_bench("peers")
real_model = peers.real_model
judge = real_model.judge
HELD_OUT = real_model.task_ids("held_out")
DESIGN = real_model.task_ids("design")


def test_the_held_out_set_is_marked_and_varied():
    assert len(HELD_OUT) >= 10 and len(DESIGN) >= 15
    assert sorted(HELD_OUT + DESIGN) == real_model.task_ids()
    runners = [judge.load_spec(real_model.TASKS_DIR / t).runner.name for t in HELD_OUT]
    assert sum(r != "pytest" for r in runners) >= 3 and len(set(runners)) >= 3
    assert len({real_model.load_task(t)["kind"] for t in HELD_OUT}) == len(HELD_OUT), "each is another kind of bug"
    assert all(real_model.load_task(t)["set"] == "held_out" for t in HELD_OUT)


@pytest.mark.parametrize("bench", ["peers", "real_model"])
def test_only_design_tasks_run_unless_asked(bench: str):
    parse = load_bench(bench).parse_args
    base = ["--base-url", "http://127.0.0.1:9/v1"]
    assert parse(base).tasks == DESIGN
    assert parse([*base, "--set", "held_out"]).tasks == HELD_OUT
    assert parse([*base, "--set", "all"]).tasks == real_model.task_ids()
    assert parse([*base, "--tasks", HELD_OUT[0]]).tasks == [HELD_OUT[0]]


def test_a_wrong_set_names_the_file_and_the_choices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    task = tmp_path / "t"
    (task / "repo").mkdir(parents=True)
    (task / "task.md").write_text("Title\n\nbody\n")
    (task / "task.json").write_text('{"set": "heldout", "fail_to_pass": ["x"]}')
    monkeypatch.setattr(real_model, "TASKS_DIR", tmp_path)
    with pytest.raises(ValueError, match=r"t/task.json: \"set\" is 'heldout'; use one of design, held_out"):
        real_model.load_task("t")


def record(task: str, agent: str, solved: bool, wall_s: float, prompt_tokens: int, task_set: str | None):
    """A per-task record as `peers.py --json` writes it; `task_set` None as in files written before sets."""
    data = {"task": task, "agent": agent, "solved": solved, "fixed": solved, "broken": [], "wall_s": wall_s,
            "usage": {"requests": 2, "prompt_tokens": prompt_tokens, "completion_tokens": 0}}
    return data if task_set is None else {**data, "set": task_set}


def a_run() -> list[dict]:
    return [
        record(DESIGN[0], "ensemble", True, 60, 3000, "design"), record(DESIGN[0], "aider", True, 80, 1000, "design"),
        record(DESIGN[1], "ensemble", False, 150, 5000, "design"), record(DESIGN[1], "aider", True, 90, 1400, "design"),
        record(HELD_OUT[0], "ensemble", True, 40, 2000, "held_out"),
        record(HELD_OUT[0], "aider", False, 150, 900, "held_out"),
        record(HELD_OUT[1], "ensemble", False, 100, 2600, None),  # its set from its task.json
        record(HELD_OUT[1], "aider", True, 50, 700, None),
    ]


SET_LINES = [
    "[design] ensemble: solved 1/2, median wall 105 s, tokens 8000, median prompt tokens 4000, "
    "prefix cache not reported, uncached per solved task 3000",
    "[design] aider: solved 2/2, median wall 85 s, tokens 2400, median prompt tokens 1200, prefix cache not reported, "
    "uncached per solved task 1200",
    "[design] ensemble and aider both solved 1: median wall 60 s against 80 s (0.75x)",
    "[held_out] ensemble: solved 1/2, median wall 70 s, tokens 4600, median prompt tokens 2300, "
    "prefix cache not reported, uncached per solved task 2000",
    "[held_out] aider: solved 1/2, median wall 100 s, tokens 1600, median prompt tokens 800, prefix cache not reported, "
    "uncached per solved task 700",
    "[held_out] ensemble and aider both solved 0",
]
OVERALL = [
    "ensemble: solved 2/4, median wall 80 s, tokens 12600, median prompt tokens 2800, prefix cache not reported, "
    "uncached per solved task 2500",
    "aider: solved 3/4, median wall 85 s, tokens 4000, median prompt tokens 950, prefix cache not reported, "
    "uncached per solved task 1000",
    "ensemble and aider both solved 1: median wall 60 s against 80 s (0.75x)",
]


def test_the_report_counts_each_set_apart_and_then_all():
    lines = peers.render(a_run(), ["ensemble", "aider"]).splitlines()
    assert lines[-len(OVERALL):] == OVERALL
    start = lines.index(SET_LINES[0])
    assert lines[start:start + len(SET_LINES)] == SET_LINES
    assert "held-out tasks are never used to tune the engine" in lines[start - 1]


def test_one_set_alone_has_no_per_set_lines():
    design_only = [r for r in a_run() if r.get("set") == "design"]
    assert not any(line.startswith("[") for line in peers.render(design_only, ["ensemble", "aider"]).splitlines())


def test_a_recorded_run_is_reported_again(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "peers.json"
    path.write_text(json.dumps(a_run()))
    assert peers.main(["--from-json", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-len(OVERALL):] == OVERALL and all(line in out for line in SET_LINES)


def test_a_file_that_is_not_a_run_is_refused_with_its_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "notes.json"
    path.write_text('{"solved": 3}')
    assert peers.main(["--from-json", str(path)]) == 2
    assert f"{path}: expected a JSON list of per-task records" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        peers.parse_args([])  # neither a server to run against nor a recorded run


def test_the_engine_bench_counts_each_set_before_the_total():
    runs = [{**r, "claimed": r["solved"]} for r in a_run() if r["agent"] == "ensemble"]
    lines = real_model.render_table(runs).splitlines()
    assert lines[-2:] == ["solved by set: design 1/2, held_out 1/2", "solved 2/4"]
    assert real_model.render_table(runs[:2]).splitlines()[-2].startswith("fixed ")


def test_each_record_says_its_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Even a task the judge cannot run is recorded under its set (no agent is started on it)."""
    def no_toolchain(folder, timeout_s=0):
        raise judge.JudgeError("no toolchain here")

    monkeypatch.setattr(peers, "install", lambda peer, venvs, quiet=False: Path("/nonexistent/agent"))
    monkeypatch.setattr(peers.judge, "baseline", no_toolchain)
    args = peers.parse_args(["--base-url", "http://127.0.0.1:9/v1", "--agents", "aider", "--tasks", HELD_OUT[0],
                             DESIGN[0], "--quiet", "--out-dir", str(tmp_path)])
    records = peers.run(args, tmp_path)
    assert [(r["task"], r["set"]) for r in records] == [(HELD_OUT[0], "held_out"), (DESIGN[0], "design")]
    assert peers.new_record(DESIGN[0], "mini", "1")["set"] == "design"



def engine(task: str, solved: bool, stop: str, stopped_at: float, task_set: str, budget_s: float = 200) -> dict:
    """An engine record as `peers.py --json` writes it: the stop reason, the engine's own duration, the budget."""
    return {**record(task, "ensemble", solved, stopped_at + 3, 2000, task_set), "stop_reason": stop,
            "duration_s": stopped_at, "budget_s": budget_s}


def test_unsolved_engine_tasks_say_why_they_stopped_and_how_much_budget_was_left():
    runs = [engine(DESIGN[0], True, "accepted", 50, "design"),
            engine(DESIGN[1], False, "max_iterations", 90, "design"),  # 55% of the budget unused
            engine(DESIGN[2], False, "budget", 199, "design"),
            engine(HELD_OUT[0], False, "stuck", 40, "held_out"),
            {**engine(HELD_OUT[1], False, "", 0, "held_out"), "error": "RuntimeError: boom", "duration_s": None,
             "wall_s": 30},  # a crash: its wall time is when it stopped
            record(HELD_OUT[1], "aider", False, 200, 900, "held_out")]
    lines = peers.render(runs, ["ensemble", "aider"]).splitlines()
    assert lines[-4:-2] == [
        "ensemble: solved 1/5, median wall 53 s, tokens 10000, median prompt tokens 2000, prefix cache not reported, "
        "uncached per solved task 2000",
        f"ensemble unsolved: 3 of 4 stopped with more than 20% of the budget left; {DESIGN[1]}: max_iterations, "
        f"55% left; {DESIGN[2]}: budget, 0% left; {HELD_OUT[0]}: stuck, 80% left; {HELD_OUT[1]}: crash, 85% left"]
    assert f"[design] ensemble unsolved: 1 of 2 stopped with more than 20% of the budget left; {DESIGN[1]}: " \
           f"max_iterations, 55% left; {DESIGN[2]}: budget, 0% left" in lines
    assert f"[held_out] ensemble unsolved: 2 of 2 stopped with more than 20% of the budget left; {HELD_OUT[0]}: " \
           f"stuck, 80% left; {HELD_OUT[1]}: crash, 85% left" in lines
    assert next(line for line in lines if line.startswith(DESIGN[1])).endswith("stop: max_iterations, 55% left")
    assert next(line for line in lines if line.startswith(DESIGN[0])).endswith("-")  # a solved task needs no note


def test_a_run_recorded_before_stop_reasons_were_kept_prints_as_before():
    lines = peers.render(a_run(), ["ensemble", "aider"]).splitlines()
    assert not any("unsolved" in line for line in lines)
