"""The engine's entries for the Action (actions/engine.py): the plan-approval planner plans a task as a team does."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from actions.engine import ensemble_planner
from bot.config import parse_config
from bot.ensemble.demo import create_sample_repo
from bot.ensemble.types import Task
from fakes.median_replies import PLAN
from fakes.openai_server import FakeOpenAI

KEY = "sk-planner-key-0123456789abcdef"
GREPS = ("ordered = sorted(values)", "len(ordered) // 2", 'raise ValueError("mean')


def test_the_plan_approval_planner_keeps_the_explore_limits_and_answers_exact_text_requests(tmp_path: Path) -> None:
    """The planner asks for an exact text in every exploring round, a new one each time. With `explore.max_rounds: 2`
    it gets two rounds (not the default four), and each request is answered from the checkout with the lines that
    hold the text, which the plan is then written from."""
    repo = create_sample_repo(tmp_path / "sample")
    for name in ("percent", "ratio", "clamp", "scale", "round_to", "spread", "total"):  # more than retrieval reads
        (repo / "stats" / f"{name}.py").write_text(f"def {name}(x):\n    return x\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "Percentages"], cwd=repo, check=True)
    config = parse_config("models:\n  planner: {provider: openai, model: gpt-4o}\nexplore: {max_rounds: 2}\n"
                          "llm:\n  cache: false\n")
    with FakeOpenAI(api_key=KEY) as openai:
        openai.reply(data=PLAN, schema="plan")
        for text in GREPS:
            openai.reply(json.dumps({"search": [], "open": [], "symbols": [], "grep": [text], "done": False}),
                         schema="explore")
        env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": openai.url, "ENSEMBLE_INDEX_DIR": str(tmp_path / "index")}
        plan = ensemble_planner(repo, Task("median is wrong", "median([1, 2, 3, 4]) returns 3", slug="issue-1"),
                                config, env)
    assert plan.steps == tuple(PLAN["steps"])
    explored = [r for r in openai.requests if r.schema == "explore"]
    assert len(explored) == 2
    [planned] = [r for r in openai.requests if r.schema == "plan"]
    asked = "\n".join(m["content"] for m in planned.messages)
    assert "stats/core.py:15:     ordered = sorted(values)" in asked
    assert "stats/core.py:16:     middle = len(ordered) // 2" in asked
    assert "(no matches)" not in asked and "stats/core.py:7:" not in asked  # the third round's text: never asked for
