import pricing
from pages import product_page


def test_page_shows_the_price():
    assert "<p class=price>10.30 EUR</p>" in product_page("abc", "Mug")


def test_second_view_does_not_ask_the_pricing_service():
    pricing.PRICE_CACHE._entries.clear()
    pricing.SERVICE_CALLS.clear()
    product_page("kettle-2", "Kettle", currency="USD")
    product_page("kettle-2", "Kettle", currency="USD")
    assert pricing.SERVICE_CALLS == [("kettle-2", "USD")]
