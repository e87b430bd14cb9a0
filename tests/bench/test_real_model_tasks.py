"""The real-model benchmark's tasks and report, without a model: every task is a real, failing bug."""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("bench_real_model", ROOT / "bench" / "real_model.py")
real_model = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(real_model)
TASK_IDS = real_model.task_ids()


judge = real_model.judge
NON_PYTHON = {"cargo", "go", "node"}


def spec_of(task_id: str):
    return judge.load_spec(real_model.TASKS_DIR / task_id)


@functools.cache
def baseline(task_id: str):
    """The task's suite on its repository as shipped, run once for the tests below that read it."""
    return judge.baseline(real_model.TASKS_DIR / task_id)


def needs_toolchain(task_id: str) -> None:
    tool = spec_of(task_id).runner.tool
    if tool and shutil.which(tool) is None:
        pytest.skip(f"task {task_id} runs `{tool}`, which is not installed here; install its toolchain to check it")


def test_there_are_enough_tasks():
    assert len(TASK_IDS) >= 15
    assert sum(spec_of(t).runner.name in NON_PYTHON for t in TASK_IDS) >= 3


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_task_text_and_checks(task_id: str):
    task = real_model.load_task(task_id)
    assert task["title"] and len(task["body"]) > 40
    assert task["kind"] and task["fail_to_pass"]
    assert not set(task["fail_to_pass"]) & set(task["preexisting_failures"])
    assert (task["folder"] / "solution.patch").is_file(), "every task ships a reference fix"


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_task_fails_at_the_base(task_id: str):
    """What the judge sees on the repository as shipped: the listed tests exist and fail, others pass."""
    needs_toolchain(task_id)
    task = real_model.load_task(task_id)
    before = baseline(task_id)
    for test_id in (*task["fail_to_pass"], *task["preexisting_failures"]):
        assert before.outcomes.get(test_id) == "failed", f"{test_id}: {before.outcomes}\n{before.output}"
    assert any(outcome == "passed" for outcome in before.outcomes.values()), before.output


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_reference_fix_is_solved(task_id: str, tmp_path: Path):
    """The shipped fix, judged like an agent's tree: the task is solvable and its test ids are right."""
    needs_toolchain(task_id)
    task = real_model.load_task(task_id)
    tree = shutil.copytree(task["repo"], tmp_path / "repo")
    subprocess.run(["git", "apply", str(task["folder"] / "solution.patch")], cwd=tree, check=True)
    verdict = judge.judge(task["folder"], tree, before=baseline(task_id))
    assert verdict.solved, judge.describe(verdict) + "\n" + (verdict.after.output if verdict.after else "")
    for test_id in task["preexisting_failures"]:
        assert not verdict.after.passed(test_id)


def test_a_task_that_asks_for_a_test_change_ships_it_for_the_judge():
    asking = [t for t in TASK_IDS if spec_of(t).overlay.is_dir()]
    assert asking
    for task_id in asking:
        task = real_model.load_task(task_id)
        changed = judge.tree_files(spec_of(task_id).overlay)
        assert changed and all(judge.is_test_file(rel) for rel in changed)
        assert all(rel in task["body"] for rel in changed), "the issue names the test file it wants changed"


def test_preexisting_failure_task_has_a_failing_unrelated_test():
    assert any(real_model.load_task(t)["preexisting_failures"] for t in TASK_IDS)


def test_long_file_task_has_its_bug_at_the_end():
    source = (real_model.TASKS_DIR / "human_size_long_file" / "repo" / "units.py").read_text().splitlines()
    assert len(source) >= 1500
    assert any("def human_size" in line for line in source[-30:])


def test_make_repo_commits_the_files(tmp_path: Path):
    task = real_model.load_task(TASK_IDS[0])
    repo = real_model.make_repo(task["repo"], tmp_path / "r")
    assert real_model.git(repo, "status", "--porcelain") == ""
    assert "Initial commit" in real_model.git(repo, "log", "--oneline")


def test_config_profile_parses():
    from bot.config import parse_config

    config = parse_config(real_model.config_text("qwen2.5-coder-1.5b-instruct", 1, 2, 16384, 600, 2048), "bench")
    assert config.ensembles == 1 and config.max_iterations == 2
    assert {config.models.for_role(r).provider for r in real_model.ROLES} == {"openai"}
    assert config.llm.prices[0].context_window == 16384 and config.llm.timeout_s == 600
    assert config.hidden_check == "on"


def test_the_hidden_check_can_be_turned_off_to_measure_what_it_costs():
    from bot.config import parse_config

    args = real_model.parse_args(["--base-url", "http://127.0.0.1:8080/v1", "--hidden-check", "off"])
    text = real_model.config_text("m", 1, None, 16384, 600, 2048, hidden_check=args.hidden_check)
    assert parse_config(text, "bench").hidden_check == "off"


FAKE = [
    {"task": "a", "solved": True, "fixed": True, "broken": [], "claimed": True, "stop_reason": "accepted",
     "rounds": 1, "tokens": {"input": 1200, "output": 300}, "wall_s": 61.2,
     "parse_failures": {"planner": 1, "coder": 0, "critic": 0, "coder_rounds_without_tests": 0}, "crash": None},
    {"task": "bb", "solved": False, "fixed": True, "broken": ["tests/test_x.py::test_y"], "claimed": True,
     "stop_reason": "max_iterations", "rounds": 2, "timed_out": True,
     "tokens": {"input": 5000, "output": 900}, "wall_s": 300, "parse_failures": {}, "crash": None,
     "team_errors": ["team a: StructuredReplyError: bad plan"]},
    {"task": "c", "solved": False, "fixed": None, "crash": "RuntimeError: boom"},
]


def test_table_lists_every_task_and_ends_with_solved():
    table = real_model.render_table(FAKE)
    lines = table.splitlines()
    assert lines[-1] == "solved 1/3"
    assert "fixed 2/3, broke tests 1, claimed 2" in table
    assert lines[0].split()[:5] == ["task", "solved", "fixed", "broken", "claimed"]
    assert lines[3].split()[:5] == ["bb", "no", "yes", "1", "yes"] and lines[4].split()[:5] == ["c", "no", "-", "-", "-"]
    assert "1/0/0" in table and "max_iterations (time limit)" in table
    assert "RuntimeError: boom" in table and "StructuredReplyError" in table


def test_the_branch_is_judged_by_the_task_tests(tmp_path: Path):
    task = real_model.load_task("mean_integer_division")
    repo = real_model.make_repo(task["repo"], tmp_path / "r")
    assert real_model.judge_branch(task, repo, "", []) == {"fixed": False, "broken": [], "solved": False}
    real_model.git(repo, "checkout", "-q", "-b", "ensemble/fix")
    stats = repo / "stats.py"
    stats.write_text(stats.read_text().replace("total(values) // len(values)", "total(values) / len(values)"))
    cheat = repo / "tests" / "test_stats.py"
    cheat.write_text(cheat.read_text() + "\n\ndef test_extra():\n    assert True\n")
    real_model.git(repo, "commit", "-qam", "fix mean")
    real_model.git(repo, "checkout", "-q", "main")
    record = real_model.judge_branch(task, repo, "ensemble/fix", ["c1"])
    assert record["fixed"] and record["solved"] and record["broken"] == []
    assert record["verdict"]["preparation"]["restored"] == ["tests/test_stats.py"]


def test_table_of_nothing():
    assert real_model.render_table([]).splitlines()[-1] == "solved 0/0"


def test_trace_stats_counts_schema_errors_per_role(tmp_path: Path):
    spans = [{"name": "llm.complete", "status": "ok", "attributes": {"role": "planner", "schema_error": "x"}},
             {"name": "llm.complete", "status": "error", "error": "StructuredReplyError: y",
              "attributes": {"role": "critic", "schema_error": "y"}},
             {"name": "llm.complete", "status": "ok", "attributes": {"role": "coder"}}]
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(json.dumps(s) for s in spans) + "\nnot json\n")
    stats = real_model.trace_stats(trace)
    assert stats["schema_errors"] == {"planner": 1, "critic": 1} and stats["llm_calls"] == 3
    assert stats["llm_errors"] == {"critic": 1} and stats["span_errors"]
    assert real_model.parse_failures({"by_role": {"coder": {"parse_failures": 4}}}, stats, 2) == {
        "planner": 1, "coder": 4, "critic": 1, "coder_rounds_without_tests": 2}


def test_coder_rounds_without_tests():
    log = real_model.PhaseLog("t", quiet=True)
    for phase in ("planning", "reproducing", "testing", "coding", "reviewing", "coding", "testing", "coding"):
        log("a", phase, 1, "")
    assert log.coder_rounds_without_tests() == 2


def test_a_crash_is_a_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def explode(*args, **kwargs):
        raise RuntimeError("engine exploded")

    # a stand-in runner module: the bench must not depend on the engine's internals being importable
    fake = types.ModuleType("bot.ensemble.runner")
    fake.Components, fake.run_task = lambda **kwargs: kwargs, explode
    monkeypatch.setitem(sys.modules, "bot.ensemble.runner", fake)
    args = real_model.parse_args(["--base-url", "http://127.0.0.1:9/v1", "--tasks", TASK_IDS[0], "--quiet",
                                  "--json", str(tmp_path / "out.json")])
    record = real_model.run_one(real_model.load_task(TASK_IDS[0]), args, tmp_path)
    assert record["crash"] == "RuntimeError: engine exploded" and "Traceback" in record["traceback"]
    assert record["set"] == real_model.task_set_of(TASK_IDS[0])  # design or held_out, to report each apart
    assert record["solved"] is False and record["fixed"] is None and record["settings"]["ensembles"] == 1
    assert "RuntimeError: engine exploded" in real_model.render_table([record])


def test_unknown_task_is_a_usage_error():
    with pytest.raises(SystemExit):
        real_model.parse_args(["--base-url", "http://x/v1", "--tasks", "no_such_task"])


def test_the_report_reads_this_engines_teams_and_an_older_engines_dicts() -> None:
    """The bench measures engines before and after a change: teams are TeamSummary now, dicts before."""
    from bot.ensemble.types import RunResult, Task, TeamSummary

    current = RunResult("r", Task("t"), winner="b", teams=[TeamSummary("a", rounds=3),
                                                            TeamSummary("b", rounds=2, error="boom")])
    older = types.SimpleNamespace(winner="a", teams=[{"name": "a", "rounds": 4, "error": ""}])
    assert real_model.rounds_of(current) == 2 and real_model.rounds_of(older) == 4
    assert [t["error"] for t in real_model.teams_of(current)] == ["", "boom"]
