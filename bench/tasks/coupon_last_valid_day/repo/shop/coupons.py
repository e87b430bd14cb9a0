"""Discount coupons: a code, an amount off and the dates it can be used."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal


class CouponError(ValueError):
    """A coupon that cannot be used on this order; the message is shown to the customer."""


@dataclass(frozen=True)
class Coupon:
    code: str
    percent_off: int = 0
    amount_off: Decimal = Decimal("0")
    valid_from: date | None = None
    valid_until: date | None = None  # the last day the coupon can be used
    min_order: Decimal = Decimal("0")

    def check(self, subtotal: Decimal, today: date) -> None:
        """Raise CouponError when the coupon cannot be used on an order of `subtotal` on `today`."""
        if self.valid_from is not None and today < self.valid_from:
            raise CouponError(f"{self.code} can be used from {self.valid_from:%d %B %Y}")
        if self.valid_until is not None and today >= self.valid_until:
            raise CouponError(f"{self.code} expired on {self.valid_until:%d %B %Y}")
        if subtotal < self.min_order:
            raise CouponError(f"{self.code} needs an order of at least {self.min_order}")

    def discount(self, subtotal: Decimal) -> Decimal:
        """The amount taken off `subtotal`, never more than the subtotal itself."""
        off = subtotal * self.percent_off / 100 + self.amount_off
        return min(off, subtotal).quantize(Decimal("0.01"))


def apply_coupon(subtotal: Decimal, coupon: Coupon, today: date) -> Decimal:
    """The order total once `coupon` is applied on `today`."""
    coupon.check(subtotal, today)
    return subtotal - coupon.discount(subtotal)
