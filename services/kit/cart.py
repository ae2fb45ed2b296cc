"""One cart for every site: the trajectory's `cart` state holds line items, each
`{"item_id", "title", "price", "amount", ...attributes}` (a shop's product line has none; a
rail ticket line carries its seats, passengers and what a payment names of it), in the order
they were added, the lines a person unselected (not ordered: a payment takes the selected lines
only, and a line added or changed is selected again), the lines paid for and the orders paid.
These functions change that value in place (for `SiteState.update`) or read it; the sites'
routes write the events."""

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


class Order(TypedDict):
    """One payment that went through: its lines, what it cost and the method's key."""

    lines: list[Line]
    total: int
    method: str


class Cart(TypedDict, total=False):
    """The `cart` state: the lines by item id, in the order they were added, the item ids
    unselected, the lines paid for and the orders paid, oldest first."""

    items: dict[str, Line]
    unselected: list[str]
    paid: list[Line]
    orders: list[Order]


CART: Slot[Cart] = Slot("cart")


def lines(cart: Cart) -> dict[str, Line]:
    """The cart's lines by item id, in the order they were added."""
    return cart.get("items", {})


def amounts(cart: Cart) -> dict[str, int]:
    """How many of each item the cart holds (what a card's quantity control shows)."""
    return {item_id: int(line["amount"]) for item_id, line in lines(cart).items()}


def selected(cart: Cart) -> dict[str, Line]:
    """The lines selected to be ordered (all of them unless a person unselected some)."""
    unselected = set(cart.get("unselected", []))
    return {item_id: line for item_id, line in lines(cart).items() if item_id not in unselected}


def summed(held: dict[str, Line]) -> tuple[int, int]:
    """How many units these lines hold and what they cost (a line's price is for all of
    its units)."""
    return sum(int(line["amount"]) for line in held.values()), sum(
        int(line["price"]) for line in held.values()
    )


def total(cart: Cart) -> int:
    """What the cart costs: every line's price."""
    return summed(lines(cart))[1]


def count(cart: Cart) -> int:
    return summed(lines(cart))[0]


def select(cart: Cart, item_ids: list[str] | None) -> dict[str, Line]:
    """Select these lines and unselect the others (None: every line); unknown ids are
    ignored. The lines selected after."""
    chosen = set(lines(cart)) if item_ids is None else set(item_ids)
    cart["unselected"] = [item_id for item_id in lines(cart) if item_id not in chosen]
    return selected(cart)


def _reselect(cart: Cart, item_id: str) -> None:
    """A line added, changed or removed is no longer unselected."""
    if item_id in cart.get("unselected", []):
        cart["unselected"] = [i for i in cart["unselected"] if i != item_id]


def put(cart: Cart, line: Line) -> None:
    """Add a line, or replace the line of the same item (selected)."""
    cart.setdefault("items", {})[line["item_id"]] = line
    _reselect(cart, line["item_id"])


def set_amount(cart: Cart, item_id: str, title: str, unit_price: int, amount: int) -> int:
    """Hold `amount` units of an item (0 removes its line; a line held is selected); the
    amount it held before."""
    items = cart.setdefault("items", {})
    held = items.get(item_id)
    before = int(held["amount"]) if held else 0
    if amount != before:
        _reselect(cart, item_id)
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
    _reselect(cart, item_id)
    return cart.setdefault("items", {}).pop(item_id, None)


def settle(cart: Cart, method: str = "") -> list[Line]:
    """Pay for the selected lines (paid with `method`): they move to `paid` (kept for the
    receipt) and make an order; the unselected lines stay in the cart, selected again."""
    chosen = selected(cart)
    paid = list(chosen.values())
    cart["paid"] = [*cart.get("paid", []), *paid]
    order: Order = {"lines": paid, "total": summed(chosen)[1], "method": method}
    cart["orders"] = [*cart.get("orders", []), order]
    cart["items"] = {i: line for i, line in lines(cart).items() if i not in chosen}
    cart["unselected"] = []
    return paid


def paid(cart: Cart) -> list[Line]:
    return cart.get("paid", [])


def orders(cart: Cart) -> list[Order]:
    """The orders paid in this trajectory, oldest first."""
    return cart.get("orders", [])
