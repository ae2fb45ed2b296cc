"""Oracle for Маркет: search, categories, filters and sort, cart quantities, favourites.

It plans from the conditions: screens first, then the search (when one is required, it
searches for the item's title), filters and sort on the list, then the items. Of a group of
alternatives it satisfies the first. It reads cards from the DOM (`data-item-id`,
`data-title`, `data-price`) and works under every `text_search` implementation: it fills
the field and presses Enter.
"""

from __future__ import annotations

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
from services.core.matching import value_matches
from services.core.models.events import Condition, Parameters

ORDER = {"state_changed": 0, "submit_search": 1, "apply_filter": 2, "apply_sort": 3}
CHECKOUT = "bench_catalog_checkout"
CARD = "article.m-card"


def rank(condition: Condition) -> int:
    """Screens, the search and the list first, then the items; the checkout screen and its
    pay method after them (an approval task stops there)."""
    if condition["event_name"] == PAY_METHOD:
        return 11
    if (condition.get("parameters") or {}).get("new_state") == CHECKOUT:
        return 10
    return ORDER.get(condition["event_name"], 9)


def plan(conditions: list[Condition]) -> list[Condition]:
    """One condition per group (the first), in the order a person would act."""
    return sorted(first_of_groups(conditions), key=rank)


async def solve(ui: UI, conditions: list[Condition]) -> None:
    steps = plan(conditions)
    must_search = any(c["event_name"] == "submit_search" for c in steps)
    # The alternate path searches for an item's title where the reference browses, unless
    # the task narrows a list (a search would start the list afresh).
    may_search = ui.alternate and not any(
        c["event_name"] in ("apply_filter", "apply_sort") for c in steps
    )
    searched = False
    for condition in steps:
        name, params = condition["event_name"], condition.get("parameters", {})
        if name == "state_changed":
            await go_to_screen(ui, params)
        elif name == "submit_search":
            value = params.get("value")
            if isinstance(value, str) and "*" not in value:
                await search(ui, value)
                searched = True
        elif name == "apply_filter":
            await apply_filter(ui, params)
        elif name == "apply_sort":
            await apply_sort(ui, params)
        elif name == PAY_METHOD:
            await choose_pay_method(ui, params.get("method"))
        elif name in ITEM_EVENTS:
            basket = name in ("basket_add", "basket_remove")
            if ui.resumed and basket and await set_line(ui, params):
                continue
            if not searched and (must_search or (may_search and has_title(params))):
                await search(ui, search_text(params))
                searched = True
            card = await find_card(ui, params)
            if name in ("basket_add", "basket_remove"):
                await set_quantity(ui, card, params)
            else:
                await set_favorite(ui, card, name == "add_favorites")
        else:
            raise ValueError(f"the shop oracle cannot satisfy {name!r}")


def has_title(params: Parameters) -> bool:
    return isinstance(params.get("title"), str) and bool(params["title"].strip("*"))


def search_text(params: Parameters) -> str:
    if has_title(params):
        return str(params["title"]).replace("*", " ").strip()
    raise LookupError(f"cannot search without a title: {params}")


async def go_to_screen(ui: UI, params: Parameters) -> None:
    state = params.get("new_state")
    if state == "bench_catalog_category":
        menu = catalog_menu(ui)
        for index in range(await menu.count()):
            link = menu.nth(index)
            href = await link.get_attribute("href") or ""
            if value_matches(params.get("category", "*"), href.rsplit("/", 1)[-1]):
                await ui.click(link)
                return
        raise LookupError(f"no menu item for category {params.get('category')!r}")
    if state == "bench_catalog_item":
        card = await find_card(ui, {"item_id": params.get("item_id", "*")})
        await ui.click(card.locator("a.m-card-link"))
        return
    links = {
        "bench_catalog_main": "a.m-logo",
        "bench_catalog_basket": "a.m-cart-link",
        "bench_catalog_favorites": "a.m-fav-link",
    }
    if state in links:
        await ui.click(ui.page.locator(links[str(state)]))
    elif state == "bench_catalog_checkout":
        await ui.click(ui.page.locator("a.m-cart-link"))
        await ui.click(ui.page.get_by_role("link", name="Оформить заказ"))
    elif state == "bench_catalog_search":
        await search(ui, str(params.get("value", "")))
    else:
        raise ValueError(f"unknown shop screen {state!r}")


async def apply_filter(ui: UI, params: Parameters) -> None:
    form = ui.page.locator("form.m-filters")
    kind, value = params.get("filter_type"), params.get("value")
    if isinstance(value, dict):
        value = value["value"]
    if kind == "brand":
        await ui.click(form.get_by_role("checkbox", name=str(value)))
    elif kind in ("price_min", "price_max"):
        await ui.fill(form.locator(f"input[name={kind}]"), str(int(float(str(value)))))
    elif kind == "rating":
        await ui.click(form.locator(f"input[name=rating][value='{value}']"))
    else:
        raise ValueError(f"unknown shop filter {kind!r}")
    await ui.click(form.get_by_role("button", name="Применить"))


async def apply_sort(ui: UI, params: Parameters) -> None:
    select = ui.page.locator("form.m-filters select[name=sort]")
    await choose_sort(ui, select, str(params.get("sort")))


def catalog_menu(ui: UI) -> Locator:
    return ui.page.get_by_role("navigation", name="Каталог").get_by_role("link")


async def find_card(ui: UI, params: Parameters) -> Locator:
    """The first card on this page that matches, else on each category page in turn."""
    return await commerce.find_card(ui, CARD, params, catalog_menu(ui))
