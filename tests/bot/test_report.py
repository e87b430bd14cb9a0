"""`ensemble report`: aggregates real traces written by the model query manager."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.config import Config, Models, RoleModel
from bot.forge.local import GitError, LocalForge
from bot.llm import Message, ModelManager
from bot.trace import Tracer, span
from fakes.openai_server import FakeOpenAI

KEY = "sk-test-report-key-0123456789"
PLAN = {"summary": "s", "files": [], "steps": ["x"], "questions": []}


def traced_run(tmp_path: Path, server: FakeOpenAI) -> Path:
    """Four planner/coder calls through the real manager and SDK, one of them repaired, one failing."""
    models = Models(planner=RoleModel("openai", "gpt-4o"), coder=RoleModel("openai", "gpt-4o-mini"),
                    critic=RoleModel("openai", "gpt-4o-mini"))
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url}
    manager = ModelManager.from_config(Config(models=models), env, cache_dir=None, sleep=lambda s: None)
    server.reply("not json at all", schema="plan", times=1)
    server.reply(data=PLAN, schema="plan")
    server.reply("path.py\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n", times=2)
    tracer = Tracer.for_run(tmp_path / "runs", run_id="r1", env=env)
    with tracer.activate():
        manager.complete("planner", [Message("user", "plan it")], schema="plan")
        manager.complete("coder", [Message("user", "code it")])
        manager.complete("coder", [Message("user", "code it again")])
        server.unauthorized()
        with pytest.raises(Exception, match="rejected"):
            manager.complete("critic", [Message("user", "review it")], schema="review")
    return tracer.path


def test_report_counts_calls_tokens_repairs_and_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAI(api_key=KEY) as server:
        trace = traced_run(tmp_path, server)
    with trace.open("a") as fh:
        fh.write("{truncated\n")
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_role = {(m["role"], m["model"]): m for m in data["models"]}
    planner = by_role[("planner", "gpt-4o")]
    assert planner["calls"] == 1 and planner["repaired"] == 1 and planner["failures"] == 0
    assert planner["tokens_in"] > 0 and planner["cost_usd"] > 0
    coder = by_role[("coder", "gpt-4o-mini")]
    assert coder["calls"] == 2 and coder["latency_p50_s"] is not None
    critic = [m for m in data["models"] if m["role"] == "critic"]
    assert sum(m["failures"] for m in critic) == 1
    assert data["malformed_lines"] == 1 and data["files"] == 1


def test_report_table_for_people(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAI(api_key=KEY) as server:
        trace = traced_run(tmp_path, server)
    assert main(["report", str(trace)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "1 trace file(s), 0 run(s)"
    assert any(line.startswith("planner") and "openai/gpt-4o" in line for line in out.splitlines())
    assert "total cost $" in out


def test_missing_trace_is_bad_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such trace file" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty")]) == 2


def test_report_totals_git_and_other_operations_per_span_name(repo: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    tracer = Tracer.for_run(tmp_path / "runs", run_id="r2", env={})
    with tracer.activate():
        forge = LocalForge(repo, "r2")
        forge.start("tidy")
        workspace = forge.workspace("a")
        for n in range(2):
            (workspace.path / f"new{n}.txt").write_text(f"{n}\n")
            workspace.commit(f"add new{n}", "", {})
        forge.publish(workspace)
        with pytest.raises(GitError), span("git.push", branch="ensemble/tidy"):
            raise GitError("rejected")
        forge.cleanup()
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    ops = {o["name"]: o for o in json.loads(capsys.readouterr().out)["operations"]}
    assert ops["git.commit"]["count"] == 2 and ops["git.commit"]["errors"] == 0
    assert ops["git.worktree"]["count"] == 1 and ops["git.publish"]["count"] == 1
    assert ops["git.push"]["errors"] == 1
    assert all(o["total_s"] >= o["longest_s"] > 0 for o in ops.values() if o["name"] != "git.push")
    assert main(["report", str(tmp_path / "runs")]) == 0
    table = capsys.readouterr().out
    assert "time by operation" in table and any(line.split()[:2] == ["git.commit", "2"] for line in table.splitlines())


def test_report_lists_updates_with_their_conflicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for run_id, attributes in (("u1", {"strategy": "merge", "outcome": "updated", "conflicts": [], "rounds": 0}),
                               ("u2", {"strategy": "merge", "outcome": "updated", "conflicts": ["calc.py"],
                                       "resolved": True, "rounds": 1}),
                               ("u3", {"strategy": "rebase", "outcome": "left as it was", "conflicts": ["a.py"],
                                       "resolved": False, "rounds": 2})):
        with Tracer.for_run(tmp_path / "runs", run_id=run_id, env={}).activate(), span("ensemble.update") as s:
            with span("sandbox.run"):
                pass
            s.set(**attributes)
    assert main(["report", str(tmp_path / "runs")]) == 0
    text = capsys.readouterr().out
    assert "3 run(s)" in text
    assert "run u1: update (merge): updated, clean" in text
    assert "run u2: update (merge): updated, conflicts in calc.py resolved in 1 attempt(s)" in text
    assert "run u3: update (rebase): left as it was, conflicts in a.py not resolved" in text
    assert main(["report", str(tmp_path / "runs"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["success"] for r in data["runs"]] == [True, True, False]
    assert [o["name"] for o in data["operations"]] == ["sandbox.run"]  # the update span encloses, it is not totalled
