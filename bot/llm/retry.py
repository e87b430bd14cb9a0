"""One retry policy for every provider: exponential backoff with full jitter.

Retryable errors (429, 5xx, timeouts, connection errors) are tried again after
`uniform(0, min(cap, base * 2**n))` seconds, or after the server's `Retry-After` when it sent
one. Attempts and the total time spent waiting are both capped. The SDKs' own retries are
off, so this is the only policy. The loop, the backoff and the `Retry-After` reading are
common/retry.py's, shared with the GitHub client; this module says what a model error means.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from bot.errors import ProviderError
from common.retry import RetryLog, backoff_s, parse_retry_after, retry_call

__all__ = ["RetryLog", "RetryPolicy", "backoff_delay", "call_with_retries", "parse_retry_after"]
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Limits: attempts in all, and seconds of waiting in all; backoff base and cap per wait."""

    max_attempts: int = 5
    max_wait_s: float = 120.0
    base_s: float = 1.0
    cap_s: float = 30.0


def backoff_delay(policy: RetryPolicy, retry: int, error: ProviderError, rng: random.Random) -> float:
    """The wait before retry number `retry` (0-based): Retry-After when given, else full jitter."""
    if error.retry_after is not None:
        return max(error.retry_after, 0.0)
    return backoff_s(retry, policy.base_s, policy.cap_s, rng)


def call_with_retries(fn: Callable[[], T], policy: RetryPolicy, *, sleep: Callable[[float], None] = time.sleep,
                      rng: random.Random | None = None, log_to: RetryLog | None = None) -> T:
    """Call `fn` until it succeeds, fails for good, or the limits are reached (then re-raise its error)."""
    jitter = rng or random.Random()

    def wait_for(exc: Exception, retry: int) -> float | None:
        assert isinstance(exc, ProviderError)  # retry_on lets no other error through
        return backoff_delay(policy, retry, exc, jitter) if exc.retryable else None

    return retry_call(fn, wait_for, retry_on=(ProviderError,), max_attempts=policy.max_attempts,
                      max_wait_s=policy.max_wait_s, sleep=sleep, log_to=log_to)
