"""The shopping cart."""

from dataclasses import dataclass


@dataclass
class Line:
    """One product in the cart."""

    sku: str
    unit_price: float
    quantity: int

    @property
    def amount(self) -> float:
        return self.unit_price * self.quantity


class Cart:
    """Products a customer is about to buy, by SKU."""

    def __init__(self) -> None:
        self.lines: dict[str, Line] = {}

    def add(self, sku: str, unit_price: float, quantity: int = 1) -> None:
        """Put `quantity` more of `sku` in the cart."""
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        self.lines[sku] = Line(sku, unit_price, quantity)

    def remove(self, sku: str, quantity: int = 1) -> None:
        """Take `quantity` of `sku` out; the line goes when none is left."""
        line = self.lines[sku]
        line.quantity -= quantity
        if line.quantity <= 0:
            del self.lines[sku]

    def quantity(self, sku: str) -> int:
        """How many of `sku` the cart holds."""
        line = self.lines.get(sku)
        return line.quantity if line else 0

    def total(self) -> float:
        """What the cart costs."""
        return round(sum(line.amount for line in self.lines.values()), 2)
