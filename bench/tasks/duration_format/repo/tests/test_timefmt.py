import pytest

from timefmt import format_duration


def test_minutes_and_seconds_are_padded():
    assert format_duration(65) == "01:05"
    assert format_duration(0) == "00:00"


def test_hours():
    assert format_duration(3725) == "1:02:05"


def test_negative_duration_is_an_error():
    with pytest.raises(ValueError):
        format_duration(-1)
