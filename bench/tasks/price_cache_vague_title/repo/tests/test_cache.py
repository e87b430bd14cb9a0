from cache import TTLCache, cached


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def counting(cache):
    calls = []

    @cached(cache)
    def square(x, scale=1):
        calls.append(x)
        return x * x * scale

    return square, calls


def test_values_expire():
    clock = Clock()
    cache = TTLCache(ttl_s=10, clock=clock)
    cache.set("a", 1)
    clock.now = 5
    assert cache.get("a") == 1
    clock.now = 11
    assert cache.get("a") is None


def test_positional_arguments_are_cached():
    square, calls = counting(TTLCache())
    assert square(3) == 9 and square(3) == 9
    assert calls == [3]


def test_keyword_arguments_are_cached():
    square, calls = counting(TTLCache())
    assert square(3, scale=2) == 18 and square(3, scale=2) == 18
    assert square(3, scale=3) == 27
    assert calls == [3, 3]


def test_unhashable_arguments_are_not_cached():
    calls = []

    @cached(TTLCache())
    def total(values):
        calls.append(values)
        return sum(values)

    assert total([1, 2]) == 3 and total([1, 2]) == 3
    assert len(calls) == 2
