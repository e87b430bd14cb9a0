"""The shared retry loop, backoff and `Retry-After` reading that model and GitHub calls both use."""

from __future__ import annotations

import random
from email.utils import formatdate

import pytest

from common.retry import MAX_RETRY_AFTER_S, RetryLog, backoff_s, parse_retry_after, retry_call

NOW = 1_800_000_000.0


def clock() -> float:
    return NOW


@pytest.mark.parametrize(("headers", "seconds"), [
    ({"Retry-After": "12"}, 12.0),                                        # seconds, any case
    ({"retry-after": "2.5"}, 2.5),
    ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),                 # OpenAI's milliseconds win
    ({"Retry-After": formatdate(NOW + 30, usegmt=True)}, 30.0),           # an HTTP date
    ({"Retry-After": formatdate(NOW - 30, usegmt=True)}, 0.0),            # a date already past: no wait
    ({"retry-after": "-5"}, 0.0),
    ({"retry-after": "86400000"}, MAX_RETRY_AFTER_S),                     # capped
    ({"retry-after": formatdate(NOW + 10**7, usegmt=True)}, MAX_RETRY_AFTER_S),
])
def test_retry_after_forms(headers: dict[str, str], seconds: float) -> None:
    assert parse_retry_after(headers, now=clock) == pytest.approx(seconds)


@pytest.mark.parametrize("headers", [
    {}, {"retry-after": "soon"}, {"retry-after": ""}, {"retry-after": "nan"}, {"retry-after": "inf"},
    {"retry-after-ms": "later"}, None, "retry-after: 5", {"retry-after": "Mon, 99 Foo 2026 99:99:99 GMT"},
])
def test_values_that_are_not_a_time_are_ignored(headers: object) -> None:
    assert parse_retry_after(headers, now=clock) is None


def test_a_bad_millisecond_value_falls_back_to_retry_after() -> None:
    assert parse_retry_after({"retry-after-ms": "x", "retry-after": "4"}, now=clock) == 4.0


def test_the_cap_is_the_caller_s_to_choose() -> None:
    assert parse_retry_after({"retry-after": "120"}, cap_s=60) == 60.0


def test_backoff_doubles_to_its_cap_and_jitter_spreads_below_it() -> None:
    assert [backoff_s(n, 1.0, 4.0) for n in range(5)] == [1.0, 2.0, 4.0, 4.0, 4.0]
    assert backoff_s(10_000, 1.0, 30.0) == 30.0  # no overflow however many retries
    rng = random.Random(3)
    sample = [backoff_s(3, 1.0, 30.0, rng) for _ in range(200)]
    assert min(sample) >= 0 and max(sample) <= 8 and max(sample) > 4


def failing(errors: list[Exception]):
    calls: list[int] = []

    def fn() -> str:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return "ok"

    return fn, calls


def test_the_caller_decides_each_wait_and_which_errors_are_final() -> None:
    sleeps: list[float] = []
    fn, calls = failing([TimeoutError("slow"), TimeoutError("slow"), KeyError("final"), TimeoutError("never")])
    record = RetryLog()
    with pytest.raises(KeyError):
        retry_call(fn, lambda exc, n: 0.5 * (n + 1) if isinstance(exc, TimeoutError) else None,
                   sleep=sleeps.append, log_to=record)
    assert len(calls) == 3 and sleeps == [0.5, 1.0]
    assert record.retries == 2 and record.waited_s == 1.5 and not record.over_budget
    assert record.errors == ["TimeoutError: slow", "TimeoutError: slow", "KeyError: 'final'"]


def test_errors_outside_retry_on_pass_straight_through() -> None:
    fn, calls = failing([ValueError("bug")])
    with pytest.raises(ValueError):
        retry_call(fn, lambda exc, n: 1.0, retry_on=(TimeoutError,), sleep=lambda s: None)
    assert len(calls) == 1


def test_attempt_and_waiting_limits_stop_the_loop_and_say_which() -> None:
    fn, calls = failing([TimeoutError()] * 10)
    with pytest.raises(TimeoutError):
        retry_call(fn, lambda exc, n: 1.0, max_attempts=3, sleep=lambda s: None)
    assert len(calls) == 3
    fn, calls = failing([TimeoutError()] * 10)
    record = RetryLog()
    with pytest.raises(TimeoutError):
        retry_call(fn, lambda exc, n: 30.0, max_wait_s=70, sleep=lambda s: None, log_to=record)
    assert len(calls) == 3 and record.waited_s == 60 and record.over_budget


def test_success_after_retries_returns_the_value() -> None:
    fn, calls = failing([TimeoutError(), TimeoutError()])
    assert retry_call(fn, lambda exc, n: 0.0, sleep=lambda s: None) == "ok" and len(calls) == 3
