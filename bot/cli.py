"""The `ensemble` command line: argument parsing, logging set-up and error-to-exit-code mapping.

argparse (stdlib) keeps `ensemble --help` fast and adds no dependency. Each subcommand lives
in its own module with `register(subparsers)`; the engine's commands are listed here, and
packages outside the engine (the GitHub Actions entry) add theirs through the
`ensemble.commands` entry-point group, so `bot/` never imports `actions/`.

Exit codes: 0 success, 1 the task could not be completed, 2 bad usage or bad config.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Protocol, runtime_checkable

from bot import __version__
from bot.redact import RedactingFilter, scrub

ENGINE_COMMANDS = ("bot.commands.doctor", "bot.commands.run", "bot.commands.verify", "bot.commands.report",
                   "bot.commands.index", "bot.commands.search")
PLUGIN_GROUP = "ensemble.commands"
OWN_PACKAGES = ("bot", "actions", "sandbox", "indexer", "common")
CHATTY_LIBRARIES = ("bm25s",)

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    """The full parser, with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="ensemble",
        description="A Git-native coding bot: LLM ensembles plan, code and test changes in containers.",
    )
    parser.add_argument("--version", action="version", version=f"ensemble-bot {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in _command_modules():
        importlib.import_module(module_name).register(subparsers)
    return parser


def _command_modules() -> list[str]:
    plugins = sorted(ep.value for ep in entry_points(group=PLUGIN_GROUP))
    return [*ENGINE_COMMANDS, *(p for p in plugins if p not in ENGINE_COMMANDS)]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code instead of exiting."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage and 0 on --help
        return int(exc.code or 0)
    configure_logging(args.verbose)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the boundary: known errors become messages
        code = exit_code_of(exc)
        if code is None:
            raise
        report_error(str(exc))
        return code


def configure_logging(verbose: bool) -> None:
    """Our packages log at INFO (DEBUG with -v); libraries only say something at WARNING."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())  # logs reach CI output: no secret in them
    for package in OWN_PACKAGES:
        logging.getLogger(package).setLevel(logging.DEBUG if verbose else logging.INFO)
    for library in CHATTY_LIBRARIES:  # these set their own loggers to DEBUG on import
        logging.getLogger(library).setLevel(logging.DEBUG if verbose else logging.WARNING)
    if not verbose:  # ... and an import after this point would undo the line above: filter at the handler too
        quiet = tuple(f"{name}." for name in CHATTY_LIBRARIES)
        for handler in logging.getLogger().handlers:
            handler.addFilter(lambda record: record.levelno >= logging.WARNING
                              or not f"{record.name}.".startswith(quiet))


def report_error(message: str) -> None:
    """Print an error for a person, and as an annotation when running inside GitHub Actions."""
    message = scrub(message)
    print(f"error: {message}", file=sys.stderr)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        print(f"::error::{escaped}")


if __name__ == "__main__":
    sys.exit(main())


@runtime_checkable
class _Explained(Protocol):
    """An error of the project's own (each layer has its base: EnsembleError, SandboxError, IndexerError, GitError,
    EmbedderError), whose message says what to fix; `exit_code` is the status the CLI returns for it."""

    exit_code: int


def exit_code_of(exc: Exception) -> int | None:
    """The exit status of one of the project's own errors; None for any other exception. (A structural check:
    the core install has no numpy, so the indexer's error classes cannot be imported to compare with.)"""
    return exc.exit_code if isinstance(exc, _Explained) else None
