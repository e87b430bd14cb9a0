from datetime import date
from decimal import Decimal

import pytest

from shop.catalog import find_coupon
from shop.coupons import Coupon, CouponError, apply_coupon

SPRING = Coupon("SPRING24", percent_off=15, valid_from=date(2024, 3, 1), valid_until=date(2024, 3, 31))


def test_percent_off():
    assert apply_coupon(Decimal("80.00"), SPRING, date(2024, 3, 12)) == Decimal("68.00")


def test_amount_off_never_below_zero():
    coupon = Coupon("TEN", amount_off=Decimal("10.00"))
    assert apply_coupon(Decimal("7.50"), coupon, date(2024, 1, 1)) == Decimal("0.00")


def test_minimum_order():
    coupon = find_coupon(" fiveoff ")
    with pytest.raises(CouponError, match="at least 30.00"):
        apply_coupon(Decimal("29.99"), coupon, date(2024, 5, 1))
    assert apply_coupon(Decimal("30.00"), coupon, date(2024, 5, 1)) == Decimal("25.00")


def test_not_before_the_first_day():
    with pytest.raises(CouponError, match="from 01 March 2024"):
        apply_coupon(Decimal("80.00"), SPRING, date(2024, 2, 29))
    assert apply_coupon(Decimal("80.00"), SPRING, date(2024, 3, 1)) == Decimal("68.00")


def test_usable_on_the_last_day():
    assert apply_coupon(Decimal("80.00"), SPRING, date(2024, 3, 31)) == Decimal("68.00")


def test_expired_the_day_after():
    with pytest.raises(CouponError, match="expired on 31 March 2024"):
        apply_coupon(Decimal("80.00"), SPRING, date(2024, 4, 1))


def test_a_coupon_without_dates_never_expires():
    assert apply_coupon(Decimal("20.00"), find_coupon("welcome10"), date(2031, 12, 31)) == Decimal("18.00")
