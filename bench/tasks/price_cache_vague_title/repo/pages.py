"""The product page."""

from pricing import price_of


def product_page(sku: str, name: str, currency: str = "EUR") -> str:
    """The product page's HTML for `sku`."""
    price = price_of(sku, currency=currency)
    return f"<h1>{name}</h1><p class=price>{price:.2f} {currency}</p>"
