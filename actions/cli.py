"""`ensemble handle-event`: the GitHub Actions entry, registered through the `ensemble.commands` entry points."""

from __future__ import annotations

import argparse
import logging

log = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "handle-event", help="handle the GitHub event of this Actions job (reads GITHUB_EVENT_NAME/_PATH)",
        description="Handle one GitHub event: label -> draft PR, slash commands, reviews, self-healing. "
                    "Reads the standard GITHUB_* variables; exits 0 when there is nothing to do.")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle the event; one log line says what happened. Known errors also reach the step summary."""
    from actions.app import environment, handle_event, write_outputs
    from actions.context import Outcome
    from bot.cli import exit_code_of

    env = environment()
    try:
        outcome = handle_event(env)
    except Exception as exc:
        code = exit_code_of(exc)
        if code is not None:
            write_outputs(env, Outcome("error", str(exc), exit_code=code))
        raise
    log.info("%s: %s", outcome.result, outcome.message)
    return outcome.exit_code
