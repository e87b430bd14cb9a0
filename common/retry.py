"""Retry with backoff, and the one reading of `Retry-After`: model calls and GitHub calls share both.

A caller says, per failure, how long to wait before the next try (or that the failure is final);
`retry_call` does the waiting and stops at the attempt and waiting limits, re-raising the last
error so the caller can say what it was trying to do. `backoff_s` is the exponential step (with
full jitter when given a random source), and `parse_retry_after` reads the server's own advice:
`retry-after-ms` (OpenAI), `Retry-After` in seconds or as an HTTP date, capped, and ignored when
it is not a time. Clock and sleep are injected so tests never really wait.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")
# A server may ask for any wait; no single wait is longer than this (the callers' budgets are shorter still).
MAX_RETRY_AFTER_S = 3600.0


@dataclass
class RetryLog:
    """What happened across attempts: retries made, seconds waited, each error, and why it stopped."""

    retries: int = 0
    waited_s: float = 0.0
    errors: list[str] = field(default_factory=list)
    over_budget: bool = False  # the last error was retryable, but waiting for it would pass `max_wait_s`


def backoff_s(retry: int, base_s: float, cap_s: float, rng: random.Random | None = None) -> float:
    """The wait before retry number `retry` (0-based): `min(cap, base * 2**retry)`, or uniform below it with `rng`."""
    ceiling = min(cap_s, base_s * (2.0 ** min(retry, 64)))
    return rng.uniform(0.0, ceiling) if rng is not None else ceiling


def retry_call(fn: Callable[[], T], wait_for: Callable[[Exception, int], float | None], *,
               retry_on: tuple[type[Exception], ...] = (Exception,), max_attempts: int | None = None,
               max_wait_s: float = math.inf, sleep: Callable[[float], None] = time.sleep,
               log_to: RetryLog | None = None) -> T:
    """Call `fn` until it returns, fails for good, or a limit is reached; then re-raise its last error.

    `wait_for(error, retries_so_far)` gives the seconds to wait before trying again, or None when the
    error is final. Errors outside `retry_on` are never caught.
    """
    record = log_to if log_to is not None else RetryLog()
    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except retry_on as exc:
            record.errors.append(f"{type(exc).__name__}: {exc}")
            delay = wait_for(exc, record.retries)
            if delay is None or (max_attempts is not None and attempt >= max_attempts):
                raise
            delay = max(delay, 0.0)
            if record.waited_s + delay > max_wait_s:
                record.over_budget = True
                log.info("giving up: waiting %.1fs more would pass the %.1fs retry budget", delay, max_wait_s)
                raise
            log.info("retrying in %.2fs after %s", delay, type(exc).__name__)
            sleep(delay)
            record.retries += 1
            record.waited_s += delay


def parse_retry_after(headers: object, *, now: Callable[[], float] = time.time,
                      cap_s: float = MAX_RETRY_AFTER_S) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), capped at `cap_s`; else None.

    `headers` is any mapping of header names to values (a dict, httpx's or requests' headers); names
    match in any case. A value that is not a number or a date is ignored, as if it were absent.
    """
    if not isinstance(headers, Mapping):
        return None
    lowered = {str(k).lower(): v for k, v in headers.items()}
    if (ms := _number(lowered.get("retry-after-ms"))) is not None:
        return min(max(ms / 1000.0, 0.0), cap_s)
    value = lowered.get("retry-after")
    if (seconds := _number(value)) is None and isinstance(value, str):
        seconds = _date_in(value, now())
    return None if seconds is None else min(max(seconds, 0.0), cap_s)


def _number(value: object) -> float | None:
    """A finite number of seconds from a header value, else None."""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _date_in(value: str, now: float) -> float | None:
    """Seconds from `now` until the HTTP date `value`, else None when it is not a date."""
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT, whatever zone it forgot to name
        when = when.replace(tzinfo=UTC)
    return when.timestamp() - now
