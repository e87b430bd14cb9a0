"""`ensemble report --html/--json` over synthetic traces: figures, A/B verdicts, damaged lines, bench results, Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.config import Config, Models, RoleModel
from bot.ensemble.runner import run_settings
from bot.llm import Message, ModelManager
from bot.report_ab import wilson
from bot.trace import Tracer
from fakes.openai_server import FakeOpenAI


def span(run_id: str, name: str, duration: float = 1.0, **attributes: Any) -> dict[str, Any]:
    return {"run_id": run_id, "span_id": "s", "parent_id": None, "name": name, "start": 0.0,
            "duration_s": duration, "status": "ok", "attributes": attributes}


def write_run(runs: Path, run_id: str, success: bool, coder: str, rounds: int = 2, cost: float = 0.01) -> Path:
    """One run's trace: a planner and a coder call, a sandbox run, a team and the run span with settings."""
    settings = {"models": {"planner": "openai/gpt-4o", "coder": coder, "critic": "openai/gpt-4o-mini"},
                "ensembles": 2, "max_iterations": 4, "embedder": "default"}
    records = [span(run_id, "ensemble.baseline", 3.0, passed=False, failing=["tests/test_a.py::test_old"]),
               span(run_id, "index.search", 0.5),
               span(run_id, "llm.complete", 2.0, role="planner", provider="openai", model="gpt-4o", schema="plan",
                    tokens_in=100, tokens_out=20, cost_usd=cost, latency_s=2.0, retries=1, rate_limited=1),
               span(run_id, "llm.complete", 4.0, role="coder", provider="openai", model=coder.split("/")[1],
                    tokens_in=300, tokens_out=50, cost_usd=cost, latency_s=4.0, repaired=True),
               span(run_id, "sandbox.run", 5.0), span(run_id, "git.commit", 0.25),
               span(run_id, "ensemble.team", 12.0, team="a", rounds=rounds),
               span(run_id, "ensemble.run", 20.0, task=f"task {run_id}", success=success, winner="a",
                    stop_reason="passed" if success else "max_iterations", reproduction_test=success,
                    settings=settings)]
    path = runs / run_id / "trace.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def ab_runs(runs: Path, a: tuple[int, int], b: tuple[int, int]) -> None:
    """`a` = (successes, runs) with coder model A, `b` likewise with model B."""
    for side, (wins, n) in (("openai/model-a", a), ("openai/model-b", b)):
        for i in range(n):
            write_run(runs, f"{side[-1]}{i:03d}", i < wins, side, rounds=2 if side.endswith("a") else 3)


def report_json(*args: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["report", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_figures_over_synthetic_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ab_runs(tmp_path / "runs", (18, 20), (4, 20))
    data = report_json(str(tmp_path / "runs"), capsys=capsys)
    roles = {r["role"]: r for r in data["by_role"]}
    assert roles["planner"]["tokens_in"] == 40 * 100 and roles["coder"]["tokens_out"] == 40 * 50
    assert round(sum(r["cost_usd"] for r in data["by_role"]), 6) == 0.8
    models = {m["model"]: m for m in data["by_model"]}
    assert models["openai/model-a"]["latency_p50_s"] == 4.0 and models["openai/gpt-4o"]["calls"] == 40
    planner = next(r for r in data["reliability"] if r["role"] == "planner")
    assert planner["retries"] == 40 and planner["rate_limited"] == 40
    assert next(r for r in data["reliability"] if r["role"] == "coder")["repaired"] == 40
    assert data["phases"] == {"index": 20.0, "explore": 0.0, "plan": 80.0, "code": 160.0, "sandbox": 200.0,
                              "critique": 0.0, "github": 10.0, "other": 0.0}
    o = data["outcomes"]
    assert (o["runs"], o["successes"], o["stop_reasons"]) == (40, 22, {"max_iterations": 18, "success": 22})
    assert o["rounds_to_green"] == {"2": 18, "3": 4} and o["reproduction_test_rate"] == 22 / 40
    assert o["runs_meeting_preexisting_failures"] == 40
    row = data["run_table"][0]
    assert row["cost_usd"] == 0.02 and row["wall_s"] == 20.0 and row["trace"].endswith("trace.jsonl")


def test_ab_meaningful_with_18_of_20_against_4_of_20(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ab_runs(tmp_path / "runs", (18, 20), (4, 20))
    c = report_json(str(tmp_path / "runs"), capsys=capsys)["comparison"]
    assert c["differs_in"] == ["models.coder"]
    a, b = c["sides"]
    assert (a["runs"], a["successes"], b["successes"]) == (20, 18, 4)
    assert a["ci95"] == list(wilson(18, 20)) and a["ci95"][0] > b["ci95"][1]
    assert (a["median_rounds"], b["median_rounds"], a["median_cost_usd"], a["median_wall_s"]) == (2, 3, 0.02, 20.0)
    assert "meaningful: models.coder=openai/model-a succeeds more often" in c["verdicts"][0]


def test_ab_not_meaningful_with_3_of_5_against_2_of_5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ab_runs(tmp_path / "runs", (3, 5), (2, 5))
    c = report_json(str(tmp_path / "runs"), capsys=capsys)["comparison"]
    assert c["verdicts"] == ["models.coder=openai/model-a vs models.coder=openai/model-b: 3/5 (60%) vs 2/5 (40%) "
                             "succeeded; the 95% intervals overlap, so the difference is not meaningful with 5 "
                             "and 5 runs."]


def test_corrupt_lines_counted_and_older_traces_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = write_run(tmp_path / "runs", "r1", True, "openai/model-a")
    with trace.open("a", encoding="utf-8") as fh:
        fh.write('{"run_id": "r1", "name": "llm.compl\n\x00\x01garbage\n[1, 2]\n')
    old = tmp_path / "runs" / "old" / "trace.jsonl"
    old.parent.mkdir()  # an older version: no settings, costs or roles; a string where a number belongs
    old.write_text(json.dumps({"run_id": "old", "name": "llm.complete", "attributes": {"tokens_in": "n/a"}}) + "\n"
                   + json.dumps({"run_id": "old", "name": "ensemble.run", "attributes": None}) + "\n")
    data = report_json(str(tmp_path / "runs"), capsys=capsys)
    assert data["malformed_lines"] == 3 and data["outcomes"]["runs"] == 2
    assert main(["report", str(tmp_path / "runs"), "--html", str(tmp_path / "r.html")]) == 0
    assert "Skipped 3 truncated or corrupt trace line(s)" in (tmp_path / "r.html").read_text()


def test_bench_results_load_as_runs_with_sides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def result(task: str, solved: bool, model: str, url: str) -> dict[str, Any]:
        return {"task": task, "kind": "logic", "solved": solved, "fixed": solved, "stop_reason": "max_iterations",
                "stop_detail": "", "rounds": 2, "tokens": {"input": 900}, "wall_s": 61.5,
                "parse_failures": {"coder": 1}, "crash": None, "model": model, "base_url": url,
                "settings": {"engine": "/x/bot", "ensembles": 1, "max_iterations": 4}, "trace": ""}
    local = tmp_path / "local.json"
    local.write_text(json.dumps([result("t1", True, "qwen", "http://127.0.0.1:8080/v1"),
                                 result("t2", False, "qwen", "http://127.0.0.1:8080/v1")]))
    hosted = tmp_path / "hosted.json"
    hosted.write_text(json.dumps([result("t1", True, "gpt-4o", "https://api.example.com/v1")]))
    data = report_json(str(local), str(hosted), capsys=capsys)
    assert data["outcomes"]["runs"] == 3 and data["outcomes"]["successes"] == 2
    assert data["run_table"][0]["tokens_in"] == 900 and data["run_table"][0]["trace"] == str(local)
    sides = {s["settings"]["models.coder"]: s for s in data["comparison"]["sides"]}
    assert (sides["openai/qwen"]["runs"], sides["openai/gpt-4o"]["runs"]) == (2, 1)
    assert sides["openai/qwen"]["median_wall_s"] == 61.5


def test_run_span_settings_name_what_ab_compares() -> None:
    config = Config(models=Models(coder=RoleModel("openai", "qwen")), ensembles=1, max_iterations=3)
    assert run_settings(config) == {"models": {"planner": "openai/gpt-4o", "coder": "openai/qwen",
                                               "critic": "gemini/gemini-2.5-flash"},
                                    "ensembles": 1, "max_iterations": 3, "embedder": "default"}


def test_a_429_retried_is_traced_and_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = {"OPENAI_API_KEY": "sk-test-0123456789abcdef", "OPENAI_BASE_URL": ""}
    server = FakeOpenAI(api_key=env["OPENAI_API_KEY"])
    with server:
        env["OPENAI_BASE_URL"] = server.url
        models = Models(planner=RoleModel("openai", "gpt-4o"), coder=RoleModel("openai", "gpt-4o-mini"),
                        critic=RoleModel("openai", "gpt-4o-mini"))
        manager = ModelManager.from_config(Config(models=models), env, cache_dir=None, sleep=lambda s: None)
        server.fail(429, retry_after=0)
        server.reply("done")
        tracer = Tracer.for_run(tmp_path / "runs", run_id="r1", env=env)
        with tracer.activate():
            manager.complete("coder", [Message("user", "code it")])
    coder = next(r for r in report_json(str(tmp_path / "runs"), capsys=capsys)["reliability"] if r["role"] == "coder")
    assert (coder["retries"], coder["rate_limited"]) == (1, 1)


def chromium_or_skip() -> str:
    """Debian's chromium; on CI (CI=true) a missing one fails the test, as a missing Docker engine does."""
    found = shutil.which("chromium")
    if found:
        return found
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail("CI=true but chromium is not installed; scripts/setup.sh --dev installs it")
    pytest.skip("chromium is not installed (scripts/setup.sh --dev installs it)")


def test_html_opens_in_headless_chromium(tmp_path: Path) -> None:
    browser = chromium_or_skip()
    ab_runs(tmp_path / "runs", (18, 20), (4, 20))
    page = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "runs"), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)=["']?https?:""", text) and "<script" not in text
    charts = re.findall(r'data-chart="([^"]+)"', text)
    assert len(charts) >= 8 and "success rate with 95% interval" in charts
    common = [browser, "--headless", "--disable-gpu", "--no-sandbox", "--window-size=1200,3000",
              f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    shot = tmp_path / "report.png"
    ran = subprocess.run([*common, f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert not [line for line in ran.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    dom = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    blocks = re.findall(r'<div class="chart" data-chart="([^"]+)">(.*?)</div>', dom.stdout, flags=re.DOTALL)
    assert [title for title, _ in blocks] == [c.replace("&amp;", "&") for c in charts]
    for title, svg in blocks:
        assert "<svg" in svg and len(re.findall(r"<path ", svg)) > 3, title
