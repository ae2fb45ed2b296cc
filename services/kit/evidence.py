"""The UI-class evidence of the kit's shared shop controls (services/kit/commerce.py), for
the descriptors of the sites that offer them (docs/tasks.md, "UI classes")."""

from __future__ import annotations

from services.core.sites import Evidence

# The cart: a line added or removed; a line of two or more is the quantity stepper's (and
# only that: the people a ticket line books are not the line's stepper).
BASKET = (
    Evidence("BASKET", "basket_add"),
    Evidence("BASKET", "basket_remove"),
    Evidence("COUNTER", "basket_remove"),
    Evidence("COUNTER", "basket_add", having="amount", at_least=2, alone=True),
)
FAVORITES = (Evidence("FAV", "add_favorites"), Evidence("FAV", "remove_favorites"))
CHECKOUT = (Evidence("PAY", "select_pay_method"), Evidence("PAY", "submit_payment"))
# A sort or filter list chosen by click; a category menu (a screen served for a category).
LISTS = (Evidence("SELECT_LIST", "apply_sort"), Evidence("SELECT_LIST", "apply_filter"))
CATEGORY = Evidence("SELECT_LIST", "state_changed", having="category")
# What the kit's shop routers write (cart, favourites, checkout, search with filters).
BASKET_EVENTS = frozenset({"basket_add", "basket_remove"})
SHOP_EVENTS = BASKET_EVENTS | {
    "add_favorites",
    "remove_favorites",
    "select_pay_method",
    "submit_payment",
    "submit_search",
    "apply_filter",
    "apply_sort",
}


def shop_writers(
    prefix: str, cards: tuple[str, ...], lists: tuple[str, ...], every: tuple[str, ...]
) -> dict[str, tuple[str, ...]]:
    """The screens whose controls write each event of the kit's shop routers (a
    descriptor's `writers`): the cards' cart and favourite buttons, the cart's steppers, the
    lists' filters and sorts, the checkout, and the search field of every screen (`every`),
    each screen named `<prefix>_<name>`."""

    def screens(*names: str) -> tuple[str, ...]:
        return tuple(f"{prefix}_{name}" for name in names)

    return {
        **dict.fromkeys(BASKET_EVENTS, screens(*cards, "basket")),
        **dict.fromkeys(("add_favorites", "remove_favorites"), screens(*cards)),
        **dict.fromkeys(("apply_filter", "apply_sort"), screens(*lists)),
        **dict.fromkeys(("select_pay_method", "submit_payment"), screens("checkout")),
        "submit_search": screens(*every),
    }
