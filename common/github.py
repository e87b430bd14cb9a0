"""The PyGithub client, built one way, and the waits every GitHub call shares (rate limits, 5xx).

The bot's GitHub client (actions/github/) and the doctor's token check (bot/doctor/) both build
their client and make their calls here, so both run with PyGithub's own retries off and wait out
secondary rate limits and GitHub's passing 502s the same way. A 5xx is tried again after 1, 2
and 4 seconds, except for calls that would do twice what the failed one may already have done
(`repeatable=False`: posting a comment, dispatching a workflow). PyGithub is imported when a
client is built, never at import time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from common.retry import MAX_RETRY_AFTER_S, RetryLog, backoff_s, parse_retry_after, retry_call

if TYPE_CHECKING:
    from github import Github

log = logging.getLogger(__name__)
T = TypeVar("T")
SERVER_ERRORS = (500, 502, 503, 504)
SERVER_RETRIES = 3
RATE_LIMIT_DEFAULT_S = 60.0  # GitHub's advice when a rate-limit answer names no time


def github_client(api_url: str, token: str, *, timeout: float = 30) -> Github:
    """PyGithub for `api_url` (github.com, Enterprise Server or a fake) with its own retries and pauses off."""
    from github import Auth, Github

    # per_page=100, GitHub's largest page: a 5,000-comment thread is 50 requests, not 167
    return Github(base_url=api_url.rstrip("/"), auth=Auth.Token(token), retry=None, lazy=True, per_page=100,
                  seconds_between_requests=None, seconds_between_writes=None, timeout=int(timeout))


def rate_limit_wait(exc: Exception, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait for a rate-limit answer (`Retry-After`, else `x-ratelimit-reset`), or None when it is not one."""
    from github import GithubException, RateLimitExceededException

    if not (isinstance(exc, RateLimitExceededException) or isinstance(exc, GithubException) and exc.status == 429):
        return None
    headers: dict[str, str] = {str(k).lower(): v for k, v in (exc.headers or {}).items()}
    if (seconds := parse_retry_after(headers, now=now)) is not None:
        return seconds
    reset = headers.get("x-ratelimit-reset", "")
    if isinstance(reset, str) and reset.isdigit():
        return min(max(1.0, float(reset) - now()), MAX_RETRY_AFTER_S)
    return RATE_LIMIT_DEFAULT_S


def call_github(fn: Callable[[], T], *, what: str, repeatable: bool = True, max_wait_s: float = 300.0,
                sleep: Callable[[float], None] = time.sleep, log_to: RetryLog | None = None,
                on_error: Callable[[int], None] | None = None) -> T:
    """Run `fn` (PyGithub calls), waiting out rate limits within `max_wait_s` and 5xx answers when `repeatable`.

    The last `GithubException` is re-raised when GitHub refuses for good or the wait would pass the
    budget (`log_to.over_budget` then says so); `on_error` hears each failure's HTTP status.
    """
    from github import GithubException

    server_failures = 0

    def wait_for(exc: Exception, _retry: int) -> float | None:
        nonlocal server_failures
        assert isinstance(exc, GithubException)  # retry_on lets no other error through
        if on_error is not None:
            on_error(exc.status)
        if (wait := rate_limit_wait(exc)) is not None:
            log.warning("GitHub rate limit while trying to %s; waiting %.0fs", what, wait)
            return wait
        if repeatable and exc.status in SERVER_ERRORS and server_failures < SERVER_RETRIES:
            wait = backoff_s(server_failures, 1.0, 4.0)
            server_failures += 1
            log.warning("GitHub answered %s while trying to %s; trying again in %.0fs", exc.status, what, wait)
            return wait
        return None

    return retry_call(fn, wait_for, retry_on=(GithubException,), max_wait_s=max_wait_s, sleep=sleep, log_to=log_to)
