"""`ensemble run`: the whole ensemble on a local checkout, with progress on stderr and a summary."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import UsageError
from bot.extras import require_engine
from bot.redact import clip, scrub

if TYPE_CHECKING:  # the engine's modules load only when a run starts, so `ensemble --help` stays fast
    from bot.ensemble.ports import ModelClient
    from bot.ensemble.types import Task


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("run", help="plan, code and test a change on a local checkout")
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="the git checkout to work on (default: .)")
    task = parser.add_mutually_exclusive_group(required=True)
    task.add_argument("--task", help="what to do, in words (first line is the title)")
    task.add_argument("--task-file", type=Path, help="a file holding the task text")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.add_argument("--no-cache", action="store_true", help="do not use or fill the model reply cache")
    parser.set_defaults(handler=run)


def read_task(args: argparse.Namespace) -> Task:
    """The task from --task or --task-file; its first line is the title."""
    from bot.ensemble.types import Task

    if args.task_file is not None:
        try:
            text = args.task_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"--task-file {args.task_file}: {exc.strerror}; give a readable text file") from None
    else:
        text = args.task
    text = (text or "").strip()
    if not text:
        raise UsageError("the task is empty; say what to do with --task TEXT or --task-file FILE")
    title, _, body = text.partition("\n")
    return Task(clip(title.strip(), 200), body.strip())


def run(args: argparse.Namespace) -> int:
    """`ensemble run`; with --json an error still prints JSON (with `error`) before the CLI reports it."""
    try:
        return _run(args)
    except Exception as exc:
        if args.json:  # the error may quote a setup's log: redacted like the summary
            print(scrub(json.dumps(error_json(exc), indent=2)), flush=True)
        raise


def error_json(exc: BaseException) -> dict[str, object]:
    """What `--json` prints when the run could not happen: the error, its kind, and no branch."""
    from sandbox.errors import EnvironmentProblem

    kind = "environment" if isinstance(exc, EnvironmentProblem) else "error"
    return {"success": False, "stop_reason": kind, "error": str(exc), "error_type": type(exc).__name__,
            "branch": "", "commits": []}


def _run(args: argparse.Namespace) -> int:
    require_engine()  # before the engine's imports, which need it
    from bot.commands.index import checked_repo
    from bot.config import load_config
    from bot.ensemble.assemble import model_manager
    from bot.ensemble.report import render_summary
    from bot.ensemble.runner import Components, run_task

    repo = checked_repo(args.repo)
    task = read_task(args)
    config = load_config(repo, os.environ)
    scripted = [r for r in ("planner", "coder", "critic") if config.models.for_role(r).provider == "scripted"]
    if scripted:
        print(f"NOTE: model replies for {', '.join(scripted)} are REPLAYED from a scripted transcript, "
              "not produced live by a model.", file=sys.stderr)
    models = model_manager(repo, config, os.environ, use_cache=not args.no_cache)
    progress = ProgressView(models)
    try:
        result = run_task(repo, task, config, os.environ, Components(models=models, progress=progress,
                                                                     use_cache=not args.no_cache))
    except KeyboardInterrupt:
        # The second Ctrl-C: the first already asked the teams to stop and the run was waiting for them.
        print("interrupted: quitting without waiting for the teams (no branch was written)", file=sys.stderr)
        sys.stderr.flush()
        os._exit(130)
    progress.done()
    # The summary quotes the plan and the diff, model text both: it reaches CI logs only redacted.
    if args.json:
        print(scrub(json.dumps(result.to_dict(), indent=2, default=str)))
    else:
        print(scrub(render_summary(result)))
    return 0 if result.success else 1


class ProgressView:
    """One stderr line per phase: team, round, phase, tokens and cost so far."""

    def __init__(self, models: ModelClient):
        self.models = models
        self.started = time.monotonic()

    def __call__(self, team: str, phase: str, rnd: int, detail: str) -> None:
        spend = self.models.spend()
        tokens = spend["input_tokens"] + spend["output_tokens"]
        where = f"team {team}" if team != "-" else "run"
        round_text = f" round {rnd}" if rnd else ""
        line = (f"[{time.monotonic() - self.started:6.1f}s] {where}{round_text}: {phase}"
                f"{' ' + clip(detail, 60) if detail else ''}  ({tokens} tokens, ${spend['cost_usd']:.4f})")
        print(scrub(line), file=sys.stderr, flush=True)

    def done(self) -> None:
        """Mark the end of the live view."""
        print(f"[{time.monotonic() - self.started:6.1f}s] run: finished", file=sys.stderr, flush=True)
