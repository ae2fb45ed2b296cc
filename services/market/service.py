"""Маркет's rules, without HTTP: the list's filters and sort, the order's checks, and the
page events a page may write."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from services.core.errors import FieldError
from services.core.models.events import Parameters
from services.kit.catalog import without
from services.kit.forms import price_range
from services.kit.site import Context
from services.kit.trajectory import Trajectory
from services.market.catalog import (
    DELIVERY,
    FILTER_TYPES,
    RATINGS,
    SORTS,
    Catalog,
    Filters,
    Product,
)

PAGE_EVENT_TYPES = frozenset({"dialog_opened"})
# payment method -> caption
PAY_METHODS: dict[str, str] = {
    "card": "Банковская карта",
    "sbp": "Система быстрых платежей",
    "on_delivery": "При получении",
}
DIALOGS = frozenset({"login"})
# The order form a start state's payment is placed with (services/kit/replay.py).
SETUP_ORDER = {
    "address": "ул. Садовая, 12, кв. 5",
    "card_number": "4111 1111 1111 1111",
    "card_expiry": "12/39",
    "card_cvc": "123",
    "card_holder": "IVAN PETROV",
}
LIST_KEYS = (*FILTER_TYPES, "sort")


def parse_list(query: Any, catalog: Catalog) -> tuple[Filters, str, bool]:
    """Filters and sort from the query string, and whether any list key was sent (the
    filter or sort form, not only the list opened)."""
    brands = tuple(b for b in query.getlist("brand") if b)
    known = set(catalog.all_brands())
    for brand in brands:
        if brand not in known:
            raise FieldError("brand", f"нет такого производителя: «{brand[:60]}»")

    price_min, price_max = price_range(query)
    rating = query.get("rating") or None
    if rating is not None and rating not in RATINGS:
        raise FieldError("rating", f"рейтинг — одно из: {', '.join(RATINGS)}")
    sellers = []
    for seller_id in dict.fromkeys(s for s in query.getlist("seller") if s):
        if seller_id not in catalog.sellers:
            raise FieldError("seller", f"нет такого продавца: «{seller_id[:60]}»")
        sellers.append(catalog.sellers[seller_id])
    delivery = query.get("delivery") or None
    if delivery is not None and delivery not in DELIVERY:
        raise FieldError("delivery", f"срок доставки — одно из: {', '.join(DELIVERY)} дн.")
    discount = query.get("discount") or ""
    if discount not in ("", "1"):
        raise FieldError("discount", "скидка — 1 или ничего")
    sort = query.get("sort") or "popular"
    if sort not in SORTS:
        raise FieldError("sort", f"сортировка — одна из: {', '.join(SORTS)}")
    list_changed = any(key in query for key in LIST_KEYS)
    filters = Filters(
        tuple(dict.fromkeys(brands)),
        price_min,
        price_max,
        rating,
        tuple(sellers),
        delivery,
        discount == "1",
    )
    return filters, sort, list_changed


def facets(catalog: Catalog, items: list[Product], filters: Filters, query: Any) -> Context:
    """What a list's filter form and chips show: each facet's options (value, caption) and
    live counts, the applied filters' chips."""
    sellers = sorted({catalog.seller(p) for p in items}, key=lambda s: s.name)
    options = {
        "brand": [(b, b) for b in sorted({p.brand for p in items})],
        "rating": [("4", "от 4 ★"), ("4.5", "от 4,5 ★")],
        "delivery": list(DELIVERY.items()),
        "discount": [("1", "Со скидкой")],
        "seller": [(s.id, s.name) for s in sellers],
    }
    return {
        "options": options,
        "counts": filters.counts(items),
        "chips": chips(filters, query),
        **around(catalog, items),
    }


def around(catalog: Catalog, items: list[Product]) -> Context:
    """What a list shows below itself: searches of its departments' kinds and what is searched
    in them, every maker (its department's list by it), the most reviewed products it does
    not hold and the discounts (each product on one shelf)."""
    departments = list(dict.fromkeys(p.category for p in items)) or [catalog.categories[0].id]
    searches = [s for d in departments for s in catalog.popular_searches(d)]
    searches += [kind for d in departments for kind in catalog.kinds(d)]
    makers = [(p.category, p.brand) for p in catalog.all()]
    held = {p.id for p in items}
    deals = [p for p in catalog.deals() if p.id not in held][:8]
    popular = sorted(
        (p for p in catalog.all() if p.id not in held and p not in deals),
        key=lambda p: (-p.reviews, p.id),
    )[:16]
    return {
        "searches": [("/search?" + urlencode({"q": s}), s) for s in dict.fromkeys(searches)][:14],
        "makers": [
            (f"/c/{category}?" + urlencode({"brand": brand}), brand)
            for category, brand in dict.fromkeys(makers)
        ],
        "popular": popular,
        "deals": deals,
    }


def chips(filters: Filters, query: Any) -> list[tuple[str, str]]:
    """The applied filters as chips: (caption, the list's query string without it)."""
    items = list(query.multi_items())
    out = [(f"Производитель: {b}", without(items, "brand", b)) for b in filters.brands]
    if filters.price_min is not None:
        out.append((f"Цена от {filters.price_min} ₽", without(items, "price_min")))
    if filters.price_max is not None:
        out.append((f"Цена до {filters.price_max} ₽", without(items, "price_max")))
    if filters.rating is not None:
        out.append((f"Рейтинг от {filters.rating.replace('.', ',')} ★", without(items, "rating")))
    out += [(f"Продавец: {s.name}", without(items, "seller", s.id)) for s in filters.sellers]
    if filters.delivery is not None:
        out.append((f"Доставка: {DELIVERY[filters.delivery].lower()}", without(items, "delivery")))
    if filters.discount:
        out.append(("Со скидкой", without(items, "discount")))
    return out


def check_order(form: dict[str, str]) -> None:
    """The address (the card's fields are the kit's: `Checkout.card`)."""
    if len(form.get("address", "").strip()) < 5:
        raise FieldError("address", "укажите адрес доставки")


def receipt(form: dict[str, str], trajectory: Trajectory) -> Context:
    return {"order": f"{int(trajectory.id[:8], 16) % 900000 + 100000}"}


def check_page_event(event_type: str, params: Parameters, _: Trajectory) -> None:
    if event_type == "dialog_opened" and params["dialog"] not in DIALOGS:
        raise FieldError("params.dialog", f"expected one of {sorted(DIALOGS)}")
