#!/usr/bin/env python
"""Does the critic tell a right change from a green but wrong one? The critic alone, on bench/tasks.

    scripts/local_model.sh                          # a local Qwen2.5-Coder-1.5B on 127.0.0.1:8080
    .venv/bin/python bench/critic.py --base-url http://127.0.0.1:8080/v1 [--model NAME] [--json F]

The critic is only asked about changes the judge found good, so its whole worth is telling the
right ones from the green but wrong ones. Each case is the issue text of a bench task, a diff and
the judge's verdict "PASSED", sent through the engine's own path (`prompts.critic_messages`,
`asking.ask`, the model manager of the local-model profile):

- right: every design task's `solution.patch`, the fix the task was written from (held-out tasks,
  task.json's "set": "held_out", are left out: nothing of the engine is tuned on them, bench/README.md);
- wrong: `bench/critic_cases/*.patch`, changes that pass every test of their task and are still
  wrong (`cases.json` says why: the tests' own inputs special-cased, a check dropped, errors
  swallowed, a result rounded). A unit test keeps them applying and green.

It prints one line per case and last `critic: accepted R/N right changes, revised W/M wrong ones`,
then how many of those revisions quote code the change wrote (`verdict.names_a_problem`): only
those buy the engine a round on a judged-good change (`REVISIONS_AFTER_GOOD`). A critic that
revises everything (or accepts everything) tells nothing; a quoted revision of a right change is
a round spent for nothing, one of a wrong change is the round the critic is there for.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
CASES = BENCH / "critic_cases"


@dataclass(frozen=True)
class Case:
    """One change for the critic: `right` says whether it does what the task asks."""

    name: str
    task: str
    diff: str
    right: bool
    wrong: str = ""  # what is wrong with it, for the table


def load_cases(tasks_dir: Path = BENCH / "tasks", cases_dir: Path = CASES) -> list[Case]:
    """The right changes (every design task's solution) and the green but wrong ones (`cases.json`)."""
    right = [Case(f"{task.name}", task.name, (task / "solution.patch").read_text(), True)
             for task in sorted(tasks_dir.iterdir()) if (task / "solution.patch").is_file() and not held_out(task)]
    index = json.loads((cases_dir / "cases.json").read_text())
    wrong = [Case(name, spec["task"], (cases_dir / f"{name}.patch").read_text(), False, spec["wrong"])
             for name, spec in sorted(index.items())]
    return right + wrong


def held_out(task: Path) -> bool:
    """Whether the task folder belongs to the held-out set (task.json's "set")."""
    meta = task / "task.json"
    return meta.is_file() and json.loads(meta.read_text()).get("set") == "held_out"


def task_text(tasks_dir: Path, name: str) -> tuple[str, str]:
    """The task's issue: its title (task.md's first line) and body."""
    title, _, body = (tasks_dir / name / "task.md").read_text().partition("\n")
    return title.strip(), body.strip()


def judged_report(tasks_dir: Path, name: str) -> str:
    """What the critic is told about the tests: the judge's verdict as the engine words it (`test_report`)."""
    fixed = len(json.loads((tasks_dir / name / "task.json").read_text())["fail_to_pass"])
    return f"PASSED (judged against the base: {fixed} test(s) fixed)"


def _real_model() -> Any:
    """bench/real_model.py, loaded once by its file. Loading it takes bench/ off sys.path (bench/sandbox.py would
    shadow the engine's `sandbox` package) and puts the engine there (an explicit PYTHONPATH picks which)."""
    if "bench_real_model" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_real_model", BENCH / "real_model.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_real_model"]


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    real = _real_model()  # first: it sets up the path the engine's imports below need
    from bot.config import parse_config
    from bot.ensemble import prompts
    from bot.ensemble.asking import ask
    from bot.ensemble.critic import names_a_problem
    from bot.ensemble.types import Task
    from bot.errors import StructuredReplyError
    from bot.llm.manager import ModelManager

    config = parse_config(real.config_text(args.model, 1, 1, args.n_ctx, 300.0, args.max_output_tokens), "critic bench")
    records = []
    with tempfile.TemporaryDirectory(prefix="critic-bench-") as out:
        models = ModelManager.from_config(config, real.run_env(args.base_url, Path(out)))
        for case in load_cases(args.tasks_dir):
            task, report = Task(*task_text(args.tasks_dir, case.task)), judged_report(args.tasks_dir, case.task)
            started = time.monotonic()
            try:
                reply = ask(models, "critic", lambda size, task=task, diff=case.diff, report=report:
                            prompts.critic_messages(task, diff, report, "a", size),
                            models.prompt_budget("critic"), schema="review")
                data, tokens = reply.data or {}, reply.usage.input_tokens
            except StructuredReplyError as exc:
                data, tokens = {"verdict": "unreadable", "feedback": str(exc)}, 0
            feedback = str(data.get("feedback", ""))
            record = {"case": case.name, "right": case.right, "verdict": str(data.get("verdict", "")),
                      "feedback": feedback, "prompt_tokens": tokens,
                      "quotes_change": data.get("verdict") == "revise" and names_a_problem(feedback, case.diff),
                      "seconds": round(time.monotonic() - started, 1), "wrong": case.wrong}
            records.append(record)
            print(f"{'right' if case.right else 'wrong'} {case.name:32} {record['verdict']:10} "
                  f"{'quotes' if record['quotes_change'] else '-':6} "
                  f"{tokens:5} {record['seconds']:5.1f}s  {record['feedback'][:110]!r}", flush=True)
    return records


def summary(records: list[dict[str, Any]]) -> str:
    right = [r for r in records if r["right"]]
    wrong = [r for r in records if not r["right"]]
    accepted = sum(r["verdict"] == "accept" for r in right)
    revised = sum(r["verdict"] == "revise" for r in wrong)
    return (f"critic: accepted {accepted}/{len(right)} right changes, revised {revised}/{len(wrong)} wrong ones; "
            f"prompt tokens {sum(r['prompt_tokens'] for r in records)}\n"
            f"revisions quoting code the change wrote (each buys a round): "
            f"{sum(bool(r.get('quotes_change')) for r in right)}/{len(right)} of the right changes, "
            f"{sum(bool(r.get('quotes_change')) for r in wrong)}/{len(wrong)} of the wrong ones")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--n-ctx", type=int, default=16384, help="the server's context window (default 16384)")
    parser.add_argument("--max-output-tokens", type=int, default=2048)
    parser.add_argument("--tasks-dir", type=Path, default=BENCH / "tasks")
    parser.add_argument("--json", type=Path, help="write the per-case records here")
    args = parser.parse_args(argv)
    records = run(args)
    print(summary(records))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
