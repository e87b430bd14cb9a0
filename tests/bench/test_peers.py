"""bench/peers.py without the peers or a model: stand-in agents behind the counting proxy, judged; the report."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import types
import urllib.request
from pathlib import Path

import pytest

from fakes.openai_server import FakeOpenAI
from tests.bench.loading import load_bench

ROOT = Path(__file__).resolve().parents[2]




peers = load_bench("peers")
TASK = "mean_integer_division"

# a stand-in agent: asks the model once through OPENAI_BASE_URL, then fixes the bug (or sleeps past its budget)
AGENT = textwrap.dedent('''
    import json, os, pathlib, sys, time, urllib.request
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": sys.argv[1]}]}).encode()
    request = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
    print(json.load(urllib.request.urlopen(request, timeout=10))["choices"][0]["message"]["content"])
    if sys.argv[2] == "sleep":
        time.sleep(60)
    stats = pathlib.Path("stats.py")
    stats.write_text(stats.read_text().replace("total(values) // len(values)", "total(values) / len(values)"))
''')


def stand_in(mode: str) -> peers.Peer:
    return peers.Peer("stand-in", "stand-in-agent", "0.1", "python",
                      lambda exe, job: [sys.executable, "-c", AGENT, job.issue, mode])


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        fake.set_default("I will fix it.")
        yield fake


def args_for(server: FakeOpenAI, tmp_path: Path, **overrides) -> argparse.Namespace:
    values = {"base_url": server.url, "model": "m", "agents": ["stand-in"], "tasks": [TASK], "budget_s": 30.0,
              "json": tmp_path / "peers.json", "out_dir": tmp_path / "out", "venvs_dir": tmp_path / "venvs",
              "quiet": True, "max_output_tokens": 2048, "restart_server": None, "edit_format": "blocks",
              "hidden_check": "on"}
    return argparse.Namespace(**{**values, **overrides})


def test_a_peer_run_is_counted_and_judged(server: FakeOpenAI, tmp_path: Path):
    server.reply("I will fix it.", usage=(120, 30, 0))
    task = peers.real_model.load_task(TASK)
    record = peers.run_peer(stand_in("fix"), Path(sys.executable), task, args_for(server, tmp_path), tmp_path,
                            peers.judge.baseline(task["folder"]))
    assert record["solved"] and record["fixed"] and record["broken"] == []
    assert record["exit_code"] == 0 and not record["timed_out"] and record["error"] is None
    assert record["usage"] == {"requests": 1, "prompt_tokens": 120, "completion_tokens": 30, "unreported": 0,
                               "errors": 0, "cached_tokens": 0, "estimated": 0, "tokens": 150}
    assert server.requests[0].headers["Authorization"] == "Bearer sk-no-key-required"
    assert server.requests[0].last_user.startswith("stats.mean() rounds down")
    assert "I will fix it." in Path(record["log"]).read_text()


def test_a_peer_is_stopped_at_the_budget(server: FakeOpenAI, tmp_path: Path):
    task = peers.real_model.load_task(TASK)
    record = peers.run_peer(stand_in("sleep"), Path(sys.executable), task, args_for(server, tmp_path, budget_s=2),
                            tmp_path, None)
    assert record["timed_out"] and record["exit_code"] is None and 2 <= record["wall_s"] < 10
    assert not record["solved"] and record["fixed"] is False and record["usage"]["requests"] == 1


def test_the_whole_run_writes_json_and_the_table(server: FakeOpenAI, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(peers.PEERS, "stand-in", stand_in("fix"))
    monkeypatch.setattr(peers, "install", lambda peer, venvs, quiet=False: Path(sys.executable))
    args = args_for(server, tmp_path)
    records = peers.run(args, args.out_dir)
    assert [r["solved"] for r in records] == [True] and args.json.is_file()
    assert peers.render(records, args.agents).splitlines()[-1].startswith("stand-in: solved 1/1, median wall ")


def test_the_engine_runs_behind_the_proxy_and_its_branch_is_judged(server: FakeOpenAI, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch):
    def run_task(repo, task, config, env, components):  # a stand-in engine: one model call, a fix on its branch
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": task.title}]}).encode()
        request = urllib.request.Request(env["OPENAI_BASE_URL"] + "/chat/completions", data=body,
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()
        peers.real_model.git(repo, "checkout", "-q", "-b", "ensemble/mean")
        stats = repo / "stats.py"
        stats.write_text(stats.read_text().replace("total(values) // len(values)", "total(values) / len(values)"))
        peers.real_model.git(repo, "commit", "-qam", "Fix mean")
        return types.SimpleNamespace(success=True, stop_reason="accepted", branch="ensemble/mean", commits=["c1"])

    fake = types.ModuleType("bot.ensemble.runner")
    fake.Components, fake.run_task = lambda **kwargs: kwargs, run_task
    monkeypatch.setitem(sys.modules, "bot.ensemble.runner", fake)
    server.reply("a plan", usage=(300, 50, 0))
    record = peers.run_engine(peers.real_model.load_task(TASK), args_for(server, tmp_path), tmp_path)
    assert record["agent"] == "ensemble" and record["solved"] and record["claimed"] and record["error"] is None
    assert record["usage"]["requests"] == 1 and record["usage"]["tokens"] == 350
    assert (record["stop_reason"], record["budget_s"]) == ("accepted", 30.0)


def test_an_engine_that_gives_up_records_its_stop_and_the_budget_it_left(server: FakeOpenAI, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch):
    def run_task(repo, task, config, env, components):  # a stand-in engine that stops after 12 s of its 30
        return types.SimpleNamespace(success=False, stop_reason="max_iterations", stop_detail="4 rounds",
                                     branch="", commits=[], duration_s=12.0)

    fake = types.ModuleType("bot.ensemble.runner")
    fake.Components, fake.run_task = lambda **kwargs: kwargs, run_task
    monkeypatch.setitem(sys.modules, "bot.ensemble.runner", fake)
    record = peers.run_engine(peers.real_model.load_task(TASK), args_for(server, tmp_path), tmp_path)
    assert not record["solved"] and record["stop_reason"] == "max_iterations" and record["duration_s"] == 12.0
    assert peers.budget_left(record) == pytest.approx(0.6)
    assert peers.note_of(record) == "stop: max_iterations, 60% left"


def test_every_task_reaches_the_model_at_the_same_url(server: FakeOpenAI, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    """The engine remembers what a server refused by its URL: a proxy on a new port every task would hide it."""
    seen = []

    def run_task(repo, task, config, env, components):
        seen.append(env["OPENAI_BASE_URL"])
        return types.SimpleNamespace(success=False, stop_reason="stuck", branch="", commits=[])

    fake = types.ModuleType("bot.ensemble.runner")
    fake.Components, fake.run_task = lambda **kwargs: kwargs, run_task
    monkeypatch.setitem(sys.modules, "bot.ensemble.runner", fake)
    args = args_for(server, tmp_path)
    for task in (TASK, "paginate_off_by_one"):
        peers.run_engine(peers.real_model.load_task(task), args, tmp_path / task)
    assert len(seen) == 2 and seen[0] == seen[1] != server.url


def test_an_installed_peer_is_reused(tmp_path: Path):
    peer = peers.PEERS["mini"]
    venv = tmp_path / f"{peer.package}-{peer.version}"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "mini").write_text("")
    (venv / ".installed").write_text("")
    assert peers.install(peer, tmp_path, quiet=True) == venv / "bin" / "mini"


def job_on(tmp_path: Path) -> peers.Job:
    task = peers.real_model.load_task("report_median_other_module")
    repo = peers.real_model.make_repo(task["repo"], tmp_path / "repo")
    return peers.Job(task, repo, "http://127.0.0.1:5/v1", "qwen", 300, tmp_path)


def test_aider_runs_unattended_on_the_source_files(tmp_path: Path):
    job = job_on(tmp_path)
    argv = peers.aider_command(Path("/venv/bin/aider"), job)
    for flag in ("--yes-always", "--no-auto-commits", "--auto-test", "--no-show-model-warnings", "--no-stream"):
        assert flag in argv
    assert argv[argv.index("--model") + 1] == "openai/qwen"
    assert argv[argv.index("--openai-api-base") + 1] == "http://127.0.0.1:5/v1"
    assert argv[argv.index("--test-cmd") + 1].endswith("-m pytest -q -p no:cacheprovider")
    assert argv[argv.index("--message") + 1].startswith("Sales report shows the wrong median order value\n\n")
    assert argv[-3:] == ["shop/__init__.py", "shop/numbers.py", "shop/report.py"]


def test_mini_runs_unattended_in_the_repository(tmp_path: Path):
    job = job_on(tmp_path)
    argv = peers.mini_command(Path("/venv/bin/mini"), job)
    for flag in ("--yolo", "--exit-immediately", "mini_textbased.yaml", "model.cost_tracking=ignore_errors",
                 f"environment.cwd={job.repo}", "agent.wall_time_limit_seconds=300",
                 "model.model_kwargs.api_base=http://127.0.0.1:5/v1"):
        assert flag in argv
    assert argv[argv.index("--cost-limit") + 1] == "0" and argv[argv.index("--task") + 1] == job.issue


def test_a_peer_gets_the_proxy_and_a_home_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_ORG_ID", "org-real")
    monkeypatch.setenv("AIDER_MODEL", "gpt-4o")
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    env = peers.peer_env(job_on(tmp_path), tmp_path / "home")
    assert env["OPENAI_API_BASE"] == env["OPENAI_BASE_URL"] == "http://127.0.0.1:5/v1"
    assert env["HOME"] == str(tmp_path / "home") and (tmp_path / "home").is_dir()
    assert "OPENAI_ORG_ID" not in env and "AIDER_MODEL" not in env
    assert env["MSWEA_CONFIGURED"] == "true" and "127.0.0.1" in env["NO_PROXY"]
    assert env["PATH"].split(":")[0] == str(Path(sys.executable).parent) and "PYTHONPATH" not in env


def test_a_task_the_judge_cannot_run_costs_no_budget(server: FakeOpenAI, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    def no_toolchain(folder, timeout_s=0):
        raise peers.judge.JudgeError("the cargo tasks need `cargo` on PATH")

    monkeypatch.setitem(peers.PEERS, "stand-in", stand_in("fix"))
    monkeypatch.setattr(peers, "install", lambda peer, venvs, quiet=False: Path(sys.executable))
    monkeypatch.setattr(peers.judge, "baseline", no_toolchain)
    records = peers.run(args_for(server, tmp_path), tmp_path / "out")
    assert [r["error"] for r in records] == ["judge: the cargo tasks need `cargo` on PATH"]
    assert server.requests == []


RECORDS = [
    {"task": "a", "agent": "ensemble", "solved": True, "fixed": True, "broken": [], "wall_s": 100.4,
     "usage": {"requests": 12, "prompt_tokens": 9000, "completion_tokens": 1000, "cached_tokens": 3800}},
    {"task": "a", "agent": "aider", "solved": False, "fixed": True, "broken": ["t::x"], "wall_s": 30,
     "exit_code": 1, "usage": {"requests": 3, "prompt_tokens": 2000, "completion_tokens": 500, "unreported": 1}},
    {"task": "b", "agent": "ensemble", "solved": False, "fixed": False, "broken": [], "wall_s": 300,
     "timed_out": True, "usage": {"requests": 20, "prompt_tokens": 10000, "completion_tokens": 2000}},
    {"task": "b", "agent": "aider", "solved": False, "fixed": None, "wall_s": 2, "error": "judge: JudgeError: x\ny",
     "usage": {}},
]


def test_the_table_and_the_summary_lines():
    lines = peers.render(RECORDS, ["ensemble", "aider", "mini"]).splitlines()
    assert lines[0].split() == ["task", "agent", "solved", "fixed", "broken", "wall", "s", "requests", "prompt", "tok",
                                "compl", "tok", "note"]
    assert lines[2].split() == ["a", "ensemble", "yes", "yes", "0", "100", "12", "9000", "1000", "-"]
    assert lines[3].split()[:9] == ["a", "aider", "no", "yes", "1", "30", "3", "2000", "500"]
    assert lines[3].endswith("exit 1; 1 without usage")
    assert lines[4].endswith("time limit") and lines[5].endswith("judge: JudgeError: x")
    assert lines[-4:] == [
        "ensemble: solved 1/2, median wall 200 s, tokens 22000, median prompt tokens 9500, prefix cache 20%, "
        "uncached per solved task 5200",
        "aider: solved 0/2, median wall 16 s, tokens 2500, median prompt tokens 1000, prefix cache not reported, "
        "uncached per solved task -",
        "ensemble and aider both solved 0",
        "mini: solved 0/0, median wall 0 s, tokens 0, median prompt tokens 0, prefix cache not reported, "
        "uncached per solved task -"]


def test_the_time_to_green_is_compared_on_the_tasks_both_agents_solved():
    def record(task: str, agent: str, solved: bool, wall_s: float) -> dict:
        return {"task": task, "agent": agent, "solved": solved, "wall_s": wall_s, "usage": {"prompt_tokens": 1000}}

    records = [record("a", "ensemble", True, 40), record("a", "aider", True, 50),
               record("b", "ensemble", True, 90), record("b", "aider", True, 60),
               record("c", "ensemble", True, 30), record("c", "aider", False, 300),  # the engine's alone: left out
               record("d", "ensemble", False, 300), record("d", "aider", True, 10)]  # aider's alone: left out
    assert peers.both_solved_line("aider", records) == "ensemble and aider both solved 2: median wall 65 s against 55 s (1.18x)"
    assert peers.both_solved_line("mini", records) is None  # mini did not run
    assert peers.render(records, ["ensemble", "aider"]).splitlines()[-1] == peers.both_solved_line("aider", records)


def test_agents_and_tasks_are_checked():
    args = peers.parse_args(["--base-url", "http://x/v1"])
    assert args.agents == ["ensemble", "aider", "mini"] and len(args.tasks) >= 15 and args.budget_s == 900
    with pytest.raises(SystemExit):
        peers.parse_args(["--base-url", "http://x/v1", "--agents", "copilot"])
    with pytest.raises(SystemExit):
        peers.parse_args(["--base-url", "http://x/v1", "--tasks", "no_such_task"])
