"""One retry policy for every provider: exponential backoff with full jitter.

Retryable errors (429, 5xx, timeouts, connection errors) are tried again after
`uniform(0, min(cap, base * 2**n))` seconds, or after the server's `Retry-After` when it sent
one. Attempts and the total time spent waiting are both capped. The SDKs' own retries are
off, so this is the only policy. Clock and sleep are injected so tests never really wait.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from bot.errors import ProviderError

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Limits: attempts in all, and seconds of waiting in all; backoff base and cap per wait."""

    max_attempts: int = 5
    max_wait_s: float = 120.0
    base_s: float = 1.0
    cap_s: float = 30.0


@dataclass
class RetryLog:
    """What happened across attempts: how many retries, and how long was waited."""

    retries: int = 0
    waited_s: float = 0.0
    errors: list[str] = field(default_factory=list)


def backoff_delay(policy: RetryPolicy, retry: int, error: ProviderError, rng: random.Random) -> float:
    """The wait before retry number `retry` (0-based): Retry-After when given, else full jitter."""
    if error.retry_after is not None:
        return max(error.retry_after, 0.0)
    return rng.uniform(0.0, min(policy.cap_s, policy.base_s * (2 ** retry)))


def call_with_retries(fn: Callable[[], T], policy: RetryPolicy, *, sleep: Callable[[float], None] = time.sleep,
                      rng: random.Random | None = None, log_to: RetryLog | None = None) -> T:
    """Call `fn` until it succeeds, fails for good, or the limits are reached (then re-raise its error)."""
    rng = rng or random.Random()
    record = log_to if log_to is not None else RetryLog()
    for attempt in range(1, policy.max_attempts + 1):
        try:
            return fn()
        except ProviderError as exc:
            record.errors.append(f"{type(exc).__name__}: {exc}")
            if not exc.retryable or attempt == policy.max_attempts:
                raise
            delay = backoff_delay(policy, record.retries, exc, rng)
            if record.waited_s + delay > policy.max_wait_s:
                log.info("giving up: waiting %.1fs more would pass the %.1fs retry budget", delay, policy.max_wait_s)
                raise
            log.info("retrying in %.2fs after %s", delay, type(exc).__name__)
            sleep(delay)
            record.retries += 1
            record.waited_s += delay
    raise AssertionError("unreachable: the loop returns or raises")


def parse_retry_after(headers: object) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), else None."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    try:
        if (ms := get("retry-after-ms")) is not None:
            return max(float(ms) / 1000.0, 0.0)
        value = get("retry-after")
        if value is None:
            return None
        try:
            return max(float(value), 0.0)
        except ValueError:
            from email.utils import parsedate_to_datetime

            return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError):
        return None
