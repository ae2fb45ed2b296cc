"""The cart's selection (services/kit/cart.py): every line selected until unselected, a line
added or changed selected again, a payment settles the selected lines only and records them
as an order."""

from __future__ import annotations

from services.kit import cart as carts
from services.kit.cart import Cart


def filled() -> Cart:
    cart: Cart = {}
    carts.set_amount(cart, "a", "A", 100, 2)
    carts.set_amount(cart, "b", "B", 30, 1)
    carts.set_amount(cart, "c", "C", 5, 4)
    return cart


def test_every_line_is_selected_until_one_is_unselected() -> None:
    cart = filled()
    assert list(carts.selected(cart)) == ["a", "b", "c"]
    assert list(carts.select(cart, ["c", "a", "nope"])) == ["a", "c"]
    assert carts.summed(carts.selected(cart)) == (6, 220)
    assert list(carts.select(cart, None)) == ["a", "b", "c"]
    assert carts.select(cart, []) == {}


def test_a_line_added_or_changed_is_selected_again() -> None:
    cart = filled()
    carts.select(cart, ["a"])
    carts.set_amount(cart, "b", "B", 30, 2)  # changed
    carts.set_amount(cart, "c", "C", 5, 4)  # the same amount: left as it was
    assert list(carts.selected(cart)) == ["a", "b"]
    carts.remove(cart, "c")
    carts.set_amount(cart, "c", "C", 5, 1)  # added anew
    assert list(carts.selected(cart)) == ["a", "b", "c"]


def test_settle_pays_the_selected_lines_and_keeps_the_others() -> None:
    cart = filled()
    carts.select(cart, ["b"])
    paid = carts.settle(cart, "card")
    assert [line["item_id"] for line in paid] == ["b"]
    assert list(carts.lines(cart)) == ["a", "c"]
    assert list(carts.selected(cart)) == ["a", "c"]  # what stayed is selected again
    assert carts.orders(cart) == [{"lines": paid, "total": 30, "method": "card"}]
    carts.settle(cart)
    assert carts.lines(cart) == {} and [o["total"] for o in carts.orders(cart)] == [30, 220]
    assert [line["item_id"] for line in carts.paid(cart)] == ["b", "a", "c"]
