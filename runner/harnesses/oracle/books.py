"""Oracle for Книги: search, filters (format, language, author) and sort, cart, favourites.

Books are reached through search: it searches for the literal query a condition names,
else the author a filter names, else the item's title; then applies the filters and sort
the conditions name and acts on the card whose `data-item-id` matches. Of a group of
alternatives it satisfies the first. It fills the `text_search` field and presses Enter,
so it works under every implementation.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator

from runner.harnesses.oracle import commerce
from runner.harnesses.oracle.commerce import (
    ITEM_EVENTS,
    PAY_METHOD,
    choose_pay_method,
    choose_sort,
    first_of_groups,
    search,
    set_favorite,
    set_line,
    set_quantity,
)
from runner.harnesses.oracle.ui import UI
from services.core.models.events import Condition, Parameters

CARD = "article.b-card"


def literal(value: Any) -> str | None:
    return value if isinstance(value, str) and value and "*" not in value else None


def query_for(steps: list[Condition]) -> str | None:
    for c in steps:
        if c["event_name"] == "submit_search" and literal(c["parameters"].get("value")):
            return str(c["parameters"]["value"])
    for c in steps:
        p = c.get("parameters", {})
        if c["event_name"] == "apply_filter" and p.get("filter_type") == "author":
            return literal(p.get("value"))
    for c in steps:
        p = c.get("parameters", {})
        if c["event_name"] in ITEM_EVENTS and literal(p.get("title")):
            return str(p["title"])
    return None


KNOWN = (*ITEM_EVENTS, PAY_METHOD, "state_changed", "submit_search", "apply_filter", "apply_sort")
CHECKOUT = "bench_books_checkout"


def at_checkout(condition: Condition) -> bool:
    """The checkout screen and its pay method: reached after the items (an approval task
    stops there)."""
    params = condition.get("parameters") or {}
    return condition["event_name"] == PAY_METHOD or params.get("new_state") == CHECKOUT


async def solve(ui: UI, conditions: list[Condition]) -> None:
    steps = first_of_groups(conditions)
    for c in steps:
        if c["event_name"] not in KNOWN:
            raise ValueError(f"the books oracle cannot satisfy {c['event_name']!r}")
    for c in steps:
        if c["event_name"] == "state_changed" and not at_checkout(c):
            await go_to_screen(ui, c.get("parameters", {}))
    lists = [c for c in steps if c["event_name"] in ("apply_filter", "apply_sort")]
    items = [c for c in steps if c["event_name"] in ITEM_EVENTS]
    searches = any(c["event_name"] == "submit_search" for c in steps) or lists
    if ui.resumed and not searches:
        await resume(ui, items)
        items = []
    elif searches or items:
        query = query_for(steps)
        if query is None:
            raise LookupError("no query, author or title to search for")
        await search(ui, query)
    if lists:
        await refine(ui, lists)
    for c in items:
        params = c.get("parameters", {})
        card = await find_card(ui, params)
        if c["event_name"] in ("basket_add", "basket_remove"):
            await set_quantity(ui, card, params, "Убрать один экземпляр", "Добавить ещё один")
        else:
            await set_favorite(ui, card, c["event_name"] == "add_favorites")
    pay = [c for c in steps if c["event_name"] == PAY_METHOD]
    if pay or any(at_checkout(c) for c in steps):
        await go_to_screen(ui, {"new_state": CHECKOUT})
    for c in pay:
        await choose_pay_method(ui, c.get("parameters", {}).get("method"))


async def resume(ui: UI, items: list[Condition]) -> None:
    """A recovery task's items from the screen it opened on: each line the cart lists set
    there, each card the page shows used there, any other item found by its title."""
    for c in items:
        params = c.get("parameters", {})
        if c["event_name"] in ("basket_add", "basket_remove") and await set_line(ui, params):
            continue
        try:
            card = await find_card(ui, params)
        except LookupError:
            title = literal(params.get("title"))
            if title is None:
                raise
            await search(ui, title)
            card = await find_card(ui, params)
        if c["event_name"] in ("basket_add", "basket_remove"):
            await set_quantity(ui, card, params, "Убрать один экземпляр", "Добавить ещё один")
        else:
            await set_favorite(ui, card, c["event_name"] == "add_favorites")


async def go_to_screen(ui: UI, params: Parameters) -> None:
    links = {
        "bench_books_main": "a.b-logo",
        "bench_books_basket": "a.b-cart-link",
        "bench_books_favorites": "a.b-fav-link",
    }
    state = str(params.get("new_state"))
    if state in links:
        await ui.click(ui.page.locator(links[state]))
    elif state == "bench_books_checkout":
        await ui.click(ui.page.locator("a.b-cart-link"))
        await ui.click(ui.page.get_by_role("link", name="Оформить заказ"))
    elif state in ("bench_books_search", "bench_books_item"):
        pass  # reached by the search and the cards below
    else:
        raise ValueError(f"unknown books screen {state!r}")


async def refine(ui: UI, conditions: list[Condition]) -> None:
    form = ui.page.locator("form.b-filters")
    sort = None
    for c in conditions:
        p = c.get("parameters", {})
        if c["event_name"] == "apply_sort":
            sort = str(p.get("sort"))
            continue
        kind, value = p.get("filter_type"), p.get("value")
        if kind == "format":
            await ui.click(form.locator(f"input[name=format][value='{value}']"))
        elif kind == "language":
            await form.locator("select[name=language]").select_option(str(value))
            ui.steps += 1
        elif kind == "author":
            await form.locator("select[name=author]").select_option(label=str(value))
            ui.steps += 1
        else:
            raise ValueError(f"unknown books filter {kind!r}")
    if any(c["event_name"] == "apply_filter" for c in conditions):
        await ui.click(form.get_by_role("button", name="Применить"))
    if sort:
        await choose_sort(ui, ui.page.locator("form.b-filters select[name=sort]"), sort)


async def find_card(ui: UI, params: Parameters) -> Locator:
    return await commerce.find_card(ui, CARD, params)
