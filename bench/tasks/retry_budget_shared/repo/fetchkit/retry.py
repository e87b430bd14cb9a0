"""Call a function again when it fails with a transient error."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class RetryError(RuntimeError):
    """Every try failed; the last error is the cause."""

    def __init__(self, tries: int, last: BaseException):
        super().__init__(f"gave up after {tries} attempt(s): {last}")
        self.tries = tries


class Retry:
    """Up to `attempts` tries per call, sleeping `delay` seconds after the first failure and
    `backoff` times longer after each further one."""

    def __init__(self, attempts: int = 3, delay: float = 0.5, backoff: float = 2.0,
                 retry_on: tuple[type[BaseException], ...] = (OSError,),
                 sleep: Callable[[float], None] = time.sleep):
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, got {attempts}")
        self.attempts = attempts
        self.delay = delay
        self.backoff = backoff
        self.retry_on = retry_on
        self.sleep = sleep
        self._remaining = attempts

    def __call__(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        delay = self.delay
        tries = 0
        while True:
            tries += 1
            self._remaining -= 1
            try:
                return fn(*args, **kwargs)
            except self.retry_on as exc:
                if self._remaining <= 0:
                    raise RetryError(tries, exc) from exc
                self.sleep(delay)
                delay *= self.backoff
