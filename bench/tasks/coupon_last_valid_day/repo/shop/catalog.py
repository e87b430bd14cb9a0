"""The coupon codes on offer, as the shop's admin page saves them."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from shop.coupons import Coupon

COUPONS = {
    "WELCOME10": Coupon("WELCOME10", percent_off=10),
    "SPRING24": Coupon("SPRING24", percent_off=15, valid_from=date(2024, 3, 1), valid_until=date(2024, 3, 31)),
    "FIVEOFF": Coupon("FIVEOFF", amount_off=Decimal("5.00"), min_order=Decimal("30.00")),
}


def find_coupon(code: str) -> Coupon | None:
    """The coupon for a code as a customer typed it (case and spaces do not matter)."""
    return COUPONS.get(code.strip().upper())
