"""The retry policy: full jitter, Retry-After, and the limits on attempts and waiting."""

from __future__ import annotations

import random
from email.utils import formatdate

import pytest

from bot.errors import ModelAuthError, ModelServerError, RateLimited
from bot.llm.retry import RetryLog, RetryPolicy, backoff_delay, call_with_retries, parse_retry_after


def flaky(errors: list[Exception], result: str = "ok"):
    calls = []

    def fn() -> str:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return result

    return fn, calls


def test_full_jitter_stays_under_the_exponential_cap():
    policy = RetryPolicy(base_s=1, cap_s=8)
    rng = random.Random(7)
    delays = [[backoff_delay(policy, n, ModelServerError("x"), rng) for _ in range(200)] for n in range(6)]
    for n, sample in enumerate(delays):
        assert min(sample) >= 0 and max(sample) <= min(8, 2 ** n)
        assert max(sample) > 0.5 * min(8, 2 ** n)  # jitter spreads over the whole range


def test_retry_after_wins_over_jitter_and_successes_stop_retrying():
    sleeps: list[float] = []
    fn, calls = flaky([RateLimited("slow down", 429, retry_after=4.5), ModelServerError("boom", 500)])
    record = RetryLog()
    assert call_with_retries(fn, RetryPolicy(base_s=0.1), sleep=sleeps.append, rng=random.Random(1),
                             log_to=record) == "ok"
    assert len(calls) == 3 and sleeps[0] == 4.5 and sleeps[1] <= 0.2
    assert record.retries == 2 and record.waited_s == pytest.approx(sum(sleeps))


def test_permanent_errors_are_not_retried():
    fn, calls = flaky([ModelAuthError("bad key", 401)])
    with pytest.raises(ModelAuthError):
        call_with_retries(fn, RetryPolicy(), sleep=lambda s: None)
    assert len(calls) == 1


def test_attempt_and_wait_limits():
    sleeps: list[float] = []
    fn, calls = flaky([ModelServerError("x")] * 10)
    with pytest.raises(ModelServerError):
        call_with_retries(fn, RetryPolicy(max_attempts=3), sleep=sleeps.append)
    assert len(calls) == 3 and len(sleeps) == 2
    fn, calls = flaky([RateLimited("x", retry_after=30)] * 10)
    with pytest.raises(RateLimited):
        call_with_retries(fn, RetryPolicy(max_attempts=10, max_wait_s=70), sleep=sleeps.append)
    assert len(calls) == 3


def test_parse_retry_after_forms():
    assert parse_retry_after({"retry-after": "12"}) == 12.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({}) is None and parse_retry_after({"retry-after": "soon"}) is None
    import time

    assert 25 <= parse_retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)}) <= 30
