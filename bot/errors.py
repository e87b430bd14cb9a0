"""The engine's error hierarchy. Every message says what went wrong and how to fix it.

    EnsembleError              exit 1: the task could not be completed
    ├── UsageError             exit 2: bad command-line usage
    │   └── ConfigError        exit 2: a bad .github/ensemble.yml (one or more ConfigIssues)
    └── StopRequested          exit 1: a human asked the run to stop

Errors raised by `indexer/` and `sandbox/` live in those packages (they do not import
`bot/`); the CLI boundary maps them to exit codes.
"""

from __future__ import annotations

from dataclasses import dataclass


class EnsembleError(Exception):
    """Base of the engine's errors; `exit_code` is what the CLI returns."""

    exit_code = 1


class UsageError(EnsembleError):
    """The command line was wrong; the message names the argument and the fix."""

    exit_code = 2


@dataclass(frozen=True)
class ConfigIssue:
    """One problem in a config file: where it is, which key, and what was expected."""

    file: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class ConfigError(UsageError):
    """The configuration is invalid; carries every issue found, not just the first."""

    def __init__(self, issues: list[ConfigIssue]):
        self.issues = issues
        super().__init__("\n".join(str(issue) for issue in issues))


class StopRequested(EnsembleError):
    """A stop was requested (a `/ensemble stop` comment or Ctrl-C) and the run ended cleanly."""
