import pytest

from stats import mean, spread, total


def test_total():
    assert total([1, 2, 3]) == 6


def test_mean_of_integers():
    assert mean([1, 2]) == 1.5
    assert mean([2, 4, 4, 5]) == 3.75


def test_mean_of_floats():
    assert mean([0.5, 1.5]) == pytest.approx(1.0)


def test_spread():
    assert spread([3, 9, 1]) == 8
