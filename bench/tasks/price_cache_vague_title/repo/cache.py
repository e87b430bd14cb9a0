"""A small time-limited cache for expensive lookups, and a decorator that uses it."""

import functools
import time
from collections.abc import Callable
from typing import Any

MISSING = object()


class TTLCache:
    """Values kept for `ttl_s` seconds of `clock`."""

    def __init__(self, ttl_s: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.ttl_s = ttl_s
        self.clock = clock
        self._entries: dict[Any, tuple[Any, float]] = {}

    def get(self, key: Any, default: Any = None) -> Any:
        """The value stored under `key`, or `default` when there is none or it expired."""
        entry = self._entries.get(key)
        if entry is None:
            return default
        value, stored_at = entry
        if self.clock() - stored_at > self.ttl_s:
            del self._entries[key]
            return default
        return value

    def set(self, key: Any, value: Any) -> None:
        """Store `value` under `key` from now on."""
        self._entries[key] = (value, self.clock())


def cached(cache: TTLCache) -> Callable:
    """Serve repeated calls with the same arguments from `cache`."""
    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = (func.__qualname__, args, kwargs)
            try:
                hit = cache.get(key, MISSING)
            except TypeError:  # unhashable arguments cannot be cached
                return func(*args, **kwargs)
            if hit is not MISSING:
                return hit
            value = func(*args, **kwargs)
            cache.set(key, value)
            return value
        return wrapper
    return decorate
