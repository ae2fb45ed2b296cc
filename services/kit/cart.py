"""One cart for every site: the trajectory's `cart` state holds line items, each
`{"item_id", "title", "price", "amount", ...attributes}` (a shop's product line has none; a
rail ticket line carries its seats, passengers and what a payment names of it), in the order
they were added, and the lines paid for. These functions change that value in place (for
`SiteState.update`) or read it; the sites' routes write the events."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from services.kit.site import Slot


class PaidAs(TypedDict):
    """What a payment names of a rail ticket line (`submit_payment`'s `tickets`, the
    contract's `PaidTicket`)."""

    train_name: str
    from_city: str
    to_city: str
    date: str
    tarif_name: str
    amount: int


class Line(TypedDict):
    """One line of the cart; a price is for all of the line's units."""

    item_id: str
    title: str
    price: int
    amount: int
    # A rail ticket line: its seat numbers, its passengers' names, what a payment names.
    seats: NotRequired[list[int]]
    passengers: NotRequired[list[str]]
    paid_as: NotRequired[PaidAs]


class Cart(TypedDict, total=False):
    """The `cart` state: the lines by item id, in the order they were added, and the lines
    paid for."""

    items: dict[str, Line]
    paid: list[Line]


CART: Slot[Cart] = Slot("cart")


def lines(cart: Cart) -> dict[str, Line]:
    """The cart's lines by item id, in the order they were added."""
    return cart.get("items", {})


def amounts(cart: Cart) -> dict[str, int]:
    """How many of each item the cart holds (what a card's quantity control shows)."""
    return {item_id: int(line["amount"]) for item_id, line in lines(cart).items()}


def total(cart: Cart) -> int:
    """What the cart costs: every line's price (a line's price is for all of its units)."""
    return sum(int(line["price"]) for line in lines(cart).values())


def count(cart: Cart) -> int:
    return sum(int(line["amount"]) for line in lines(cart).values())


def put(cart: Cart, line: Line) -> None:
    """Add a line, or replace the line of the same item."""
    cart.setdefault("items", {})[line["item_id"]] = line


def set_amount(cart: Cart, item_id: str, title: str, unit_price: int, amount: int) -> int:
    """Hold `amount` units of an item (0 removes its line); the amount it held before."""
    items = cart.setdefault("items", {})
    held = items.get(item_id)
    before = int(held["amount"]) if held else 0
    if amount:
        items[item_id] = {
            "item_id": item_id,
            "title": title,
            "price": unit_price * amount,
            "amount": amount,
        }
    else:
        items.pop(item_id, None)
    return before


def remove(cart: Cart, item_id: str) -> Line | None:
    """Take a line out; the line, or None when the cart has no such item."""
    return cart.setdefault("items", {}).pop(item_id, None)


def settle(cart: Cart) -> list[Line]:
    """Pay for every line: they move to `paid` (kept for the receipt) and the cart empties."""
    paid = list(lines(cart).values())
    cart["paid"] = [*cart.get("paid", []), *paid]
    cart["items"] = {}
    return paid


def paid(cart: Cart) -> list[Line]:
    return cart.get("paid", [])
