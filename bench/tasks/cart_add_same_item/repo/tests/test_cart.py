import pytest

from shop.cart import Cart


def test_total_of_different_products():
    cart = Cart()
    cart.add("mug", 8.0)
    cart.add("tea", 4.5, quantity=2)
    assert cart.total() == 17.0


def test_adding_twice_adds_up():
    cart = Cart()
    cart.add("tea", unit_price=4.5)
    cart.add("tea", unit_price=4.5, quantity=2)
    assert cart.quantity("tea") == 3
    assert cart.total() == 13.5


def test_remove_last_unit_drops_the_line():
    cart = Cart()
    cart.add("mug", 8.0, quantity=2)
    cart.remove("mug")
    assert cart.quantity("mug") == 1
    cart.remove("mug")
    assert "mug" not in cart.lines and cart.total() == 0


def test_quantity_must_be_positive():
    with pytest.raises(ValueError):
        Cart().add("mug", 8.0, quantity=0)
