import pytest

from units import human_size, inch_to_centimetre, kilogram_to_pound


def test_conversions():
    assert inch_to_centimetre(1) == pytest.approx(2.54)
    assert kilogram_to_pound(1) == pytest.approx(2.20462, rel=1e-5)


def test_human_size_bytes():
    assert human_size(0) == "0 B"
    assert human_size(1023) == "1023 B"


def test_human_size_kib_boundary():
    assert human_size(1024) == "1.0 KiB"
    assert human_size(2048) == "2.0 KiB"
    assert human_size(1536 * 1024) == "1.5 MiB"
