import pytest

from fetchkit.retry import Retry, RetryError


class Flaky:
    """Fails the first `failures` calls with a connection reset, then answers."""

    def __init__(self, failures: int):
        self.failures = failures
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionResetError("connection reset by peer")
        return "ok"


def test_retries_until_it_works():
    sleeps = []
    flaky = Flaky(2)
    assert Retry(attempts=3, delay=1.0, backoff=2.0, sleep=sleeps.append)(flaky) == "ok"
    assert flaky.calls == 3 and sleeps == [1.0, 2.0]


def test_gives_up_with_the_last_error():
    with pytest.raises(RetryError) as info:
        Retry(attempts=2, delay=0, sleep=lambda s: None)(Flaky(5))
    assert info.value.tries == 2 and isinstance(info.value.__cause__, ConnectionResetError)
    assert str(info.value) == "gave up after 2 attempt(s): connection reset by peer"


def test_other_errors_are_not_retried():
    def broken():
        raise KeyError("x")

    with pytest.raises(KeyError):
        Retry(attempts=3, sleep=lambda s: None)(broken)


def test_attempts_must_be_positive():
    with pytest.raises(ValueError, match="attempts must be at least 1, got 0"):
        Retry(attempts=0)


def test_each_call_gets_every_attempt():
    retry = Retry(attempts=3, delay=0, sleep=lambda s: None)
    for _ in range(4):
        flaky = Flaky(2)
        assert retry(flaky) == "ok"
        assert flaky.calls == 3


def test_a_call_after_a_failed_one_is_retried_too():
    retry = Retry(attempts=2, delay=0, sleep=lambda s: None)
    with pytest.raises(RetryError):
        retry(Flaky(5))
    assert retry(Flaky(1)) == "ok"
