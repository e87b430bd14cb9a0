"""The engine's error hierarchy. Every message says what went wrong and how to fix it.

    EnsembleError              exit 1: the task could not be completed
    ├── UsageError             exit 2: bad command-line usage
    │   ├── ConfigError        exit 2: a bad .github/ensemble.yml (one or more ConfigIssues)
    │   └── PromptTooLong      exit 2: a prompt plus the output cap would not fit a model's window
    ├── StopRequested          exit 1: a human asked the run to stop
    └── ModelError             exit 1: a model call failed (names the role, provider and model)
        ├── BudgetExceeded     the run's USD or token cap would be passed; carries the spend
        ├── StructuredReplyError   a JSON reply did not match its schema, even after a repair round
        └── ProviderError      the provider refused or failed; `retryable` says whether to try again
            ├── ModelAuthError         401/403: the key was rejected
            ├── ModelNotFound          404: no such model
            ├── ContextTooLong         400: the prompt does not fit the model's window
            ├── QuotaExhausted         the account has no quota or credit left
            ├── ModelRequestError      any other 4xx, or a reply the SDK could not read
            ├── RateLimited            429 (retryable, may carry Retry-After)
            ├── ModelServerError       5xx (retryable)
            ├── ModelTimeout           no answer in time (retryable)
            ├── ModelConnectionError   the server could not be reached (retryable)
            └── UnreadableReply        a success status with a body that is not JSON (retryable)

Errors raised by `indexer/` and `sandbox/` live in those packages (they do not import
`bot/`); the CLI boundary maps them to exit codes.
"""

from __future__ import annotations

from collections.abc import Mapping
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


class PromptTooLong(UsageError):
    """A request would not fit its model's window, so it was not sent; the message names the setting to raise."""


class StopRequested(EnsembleError):
    """A stop was requested (a `/ensemble stop` comment or Ctrl-C) and the run ended cleanly."""


class ModelError(EnsembleError):
    """A model call failed; the message names the role, provider and model and what to do."""


class BudgetExceeded(ModelError):
    """The next call would pass the run's cap; `spend` is what the run has used so far."""

    def __init__(self, message: str, spend: Mapping[str, object] | None = None):
        self.spend = spend or {}
        super().__init__(message)


class StructuredReplyError(ModelError):
    """A JSON reply did not validate against its schema, even after one repair round."""

    def __init__(self, message: str, raw_reply: str = ""):
        self.raw_reply = raw_reply
        super().__init__(message)


class ProviderError(ModelError):
    """The provider refused or failed the call; retryable errors may carry `retry_after` seconds."""

    retryable = False

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None):
        self.status = status
        self.retry_after = retry_after
        super().__init__(message)


class ModelAuthError(ProviderError):
    """The API key was missing or rejected (401/403)."""


class ModelNotFound(ProviderError):
    """The provider has no model by the configured name (404)."""


class ContextTooLong(ProviderError):
    """The prompt is longer than the model's context window."""


class QuotaExhausted(ProviderError):
    """The account's quota or credit is used up; retrying will not help."""


class ModelRequestError(ProviderError):
    """Every other refused request, or a reply the client could not read."""


class RateLimited(ProviderError):
    """429 Too Many Requests."""

    retryable = True


class ModelServerError(ProviderError):
    """The provider failed with a 5xx status."""

    retryable = True


class ModelTimeout(ProviderError):
    """No answer arrived within the timeout."""

    retryable = True


class ModelConnectionError(ProviderError):
    """The server could not be reached."""

    retryable = True


class UnreadableReply(ProviderError):
    """A success status whose body is not JSON: a proxy's error page or a connection cut mid-body."""

    retryable = True
