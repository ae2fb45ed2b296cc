"""Маркет's rules, without HTTP: the list's filters and sort, the order's checks, and the
page events a page may write."""

from __future__ import annotations

from datetime import date
from typing import Any

from services.core.errors import FieldError
from services.core.models.events import Parameters
from services.kit.account import check_card
from services.kit.forms import whole_number
from services.kit.site import Context
from services.kit.trajectory import Trajectory
from services.market.catalog import RATINGS, SORTS, Catalog, Filters

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
LIST_KEYS = ("brand", "price_min", "price_max", "rating", "sort")


def parse_list(query: Any, catalog: Catalog) -> tuple[Filters, str, bool]:
    """Filters and sort from the query string, and whether any list key was sent (the
    filter or sort form, not only the list opened)."""
    brands = tuple(b for b in query.getlist("brand") if b)
    known = set(catalog.all_brands())
    for brand in brands:
        if brand not in known:
            raise FieldError("brand", f"нет такого производителя: «{brand[:60]}»")

    def money(name: str) -> int | None:
        raw = (query.get(name) or "").strip().replace(" ", "")
        if not raw:
            return None
        price = whole_number(raw)
        if price is None:
            raise FieldError(name, "цена — целое число рублей, не меньше нуля")
        return price

    price_min, price_max = money("price_min"), money("price_max")
    if price_min is not None and price_max is not None and price_min > price_max:
        raise FieldError("price_max", "верхняя граница цены меньше нижней")
    rating = query.get("rating") or None
    if rating is not None and rating not in RATINGS:
        raise FieldError("rating", f"рейтинг — одно из: {', '.join(RATINGS)}")
    sort = query.get("sort") or "popular"
    if sort not in SORTS:
        raise FieldError("sort", f"сортировка — одна из: {', '.join(SORTS)}")
    list_changed = any(key in query for key in LIST_KEYS)
    filters = Filters(tuple(dict.fromkeys(brands)), price_min, price_max, rating)
    return filters, sort, list_changed


def check_order(form: dict[str, str], today: date) -> None:
    if len(form.get("address", "").strip()) < 5:
        raise FieldError("address", "укажите адрес доставки")
    if form.get("method") == "card":
        check_card(form, today)


def receipt(form: dict[str, str], trajectory: Trajectory) -> Context:
    return {"order": f"{int(trajectory.id[:8], 16) % 900000 + 100000}"}


def check_page_event(event_type: str, params: Parameters, _: Trajectory) -> None:
    if event_type == "dialog_opened" and params["dialog"] not in DIALOGS:
        raise FieldError("params.dialog", f"expected one of {sorted(DIALOGS)}")
