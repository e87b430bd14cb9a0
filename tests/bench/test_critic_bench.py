"""bench/critic.py: its wrong cases really are green, and its count of the critic's verdicts, without a model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fakes.openai_server import FakeOpenAI
from tests.bench.loading import load_bench

critic = load_bench("critic")
judge = load_bench("judge")
WRONG = [case for case in critic.load_cases() if not case.right]


def test_every_design_task_is_a_right_case_and_the_wrong_ones_say_why():
    cases = critic.load_cases()
    tasks = {p.name for p in (critic.BENCH / "tasks").iterdir() if (p / "solution.patch").is_file()}
    held_out = {t for t in tasks if json.loads((critic.BENCH / "tasks" / t / "task.json").read_text()).get("set")
                == "held_out"}
    assert held_out, "there are held-out tasks, and the critic bench leaves them out (nothing is tuned on them)"
    tasks -= held_out
    assert {c.task for c in cases if c.right} == tasks
    assert len(WRONG) >= 5 and all(c.wrong and c.task in tasks for c in WRONG)


@pytest.mark.parametrize("case", WRONG, ids=lambda c: c.name)
def test_a_wrong_case_passes_every_test_of_its_task(case, tmp_path: Path):
    """The judge finds it good: only a reviewer can tell it is wrong, which is the critic's job."""
    task = critic.BENCH / "tasks" / case.task
    tree = shutil.copytree(task / "repo", tmp_path / "repo")
    patch = tmp_path / "wrong.patch"
    patch.write_text(case.diff)
    subprocess.run(["git", "apply", str(patch)], cwd=tree, check=True)
    verdict = judge.judge(task, tree)
    assert verdict.solved, judge.describe(verdict)


@pytest.mark.parametrize("verdict, accepted, revised", [("revise", 0, len(WRONG)), ("accept", None, 0)])
def test_the_summary_counts_what_the_critic_answered(tmp_path: Path, capsys, verdict, accepted, revised):
    """Through the engine's own path against a server that refuses json_schema as llama.cpp's does."""
    right = sum(c.right for c in critic.load_cases())
    with FakeOpenAI.llama_cpp() as server:
        server.set_default(data={"verdict": verdict, "feedback": "`mean()` returns a float now."})
        records = tmp_path / "critic.json"
        assert critic.main([f"--base-url={server.url}", "--model=m", f"--json={records}"]) == 0
        asked = [r for r in server.requests if r.body.get("response_format", {}).get("type") == "json_object"]
    out = capsys.readouterr().out
    accepted = right if accepted is None else accepted
    assert f"critic: accepted {accepted}/{right} right changes, revised {revised}/{len(WRONG)} wrong ones" in out
    assert len(asked) == right + len(WRONG)  # one JSON-mode request per case after the refused json_schema
    assert "mean_games_the_test" in records.read_text()


def test_it_counts_the_revisions_that_quote_code_the_change_wrote(tmp_path: Path, capsys):
    """Only those buy a round: here the one line both paginate changes add, and no other case has."""
    right = sum(c.right for c in critic.load_cases())
    with FakeOpenAI.llama_cpp() as server:
        server.set_default(data={"verdict": "revise", "feedback": "`(page - 1) * per_page` is wrong for page 0."})
        assert critic.main([f"--base-url={server.url}", "--model=m"]) == 0
    out = capsys.readouterr().out
    assert (f"revisions quoting code the change wrote (each buys a round): 1/{right} of the right changes, "
            f"1/{len(WRONG)} of the wrong ones") in out


def test_it_runs_as_a_script(tmp_path: Path):
    """As the README runs it: bench/ is on the script's path, where bench/sandbox.py must not shadow the engine's."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with FakeOpenAI.llama_cpp() as server:
        server.set_default(data={"verdict": "accept", "feedback": ""})
        done = subprocess.run([sys.executable, str(critic.BENCH / "critic.py"), "--base-url", server.url],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"revised 0/{len(WRONG)} wrong ones" in done.stdout
