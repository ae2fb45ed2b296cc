"""Oracle for Продукты: category navigation, finding a product card, setting its quantity."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator

from runner.harnesses.oracle.ui import UI, target_amount
from services.verifier.matching import value_matches

SCREENS = {"bench_grocery_main": "main", "bench_grocery_basket": "cart"}


async def solve(ui: UI, conditions: list[dict[str, Any]]) -> None:
    for condition in conditions:
        name, params = condition["event_name"], condition.get("parameters", {})
        if name == "state_changed":
            await go_to_screen(ui, params)
        elif name in ("basket_add", "basket_remove"):
            await set_quantity(ui, params)
        else:
            raise ValueError(f"the grocery oracle cannot satisfy {name!r}")


async def go_to_screen(ui: UI, params: dict[str, Any]) -> None:
    state = params.get("new_state")
    page = ui.page
    if state == "bench_grocery_category":
        links = page.locator("nav.g-menu a")
        for index in range(await links.count()):
            link = links.nth(index)
            href = await link.get_attribute("href") or ""
            if value_matches(params.get("category", "*"), href.rsplit("/", 1)[-1]):
                await ui.click(link)
                return
        raise LookupError(f"no menu item for category {params.get('category')!r}")
    if SCREENS.get(str(state)) == "main":
        await ui.click(page.locator("a.g-logo"))
    elif SCREENS.get(str(state)) == "cart":
        await ui.click(page.locator("a.g-cart-link"))
    else:
        raise ValueError(f"unknown grocery screen {state!r}")


async def card_matches(card: Locator, params: dict[str, Any]) -> bool:
    facts = {
        "item_id": await card.get_attribute("data-item-id"),
        "price": await card.get_attribute("data-price"),
        "title": (await card.locator(".g-title").inner_text()).strip(),
    }
    return all(value_matches(params[key], facts[key]) for key in facts if key in params)


async def find_card(ui: UI, params: dict[str, Any]) -> Locator:
    """The first card on this page matching the parameters, else on each category page."""
    for attempt in range(6):
        cards = ui.page.locator("article.g-card")
        for index in range(await cards.count()):
            if await card_matches(cards.nth(index), params):
                return cards.nth(index)
        menu = ui.page.locator("nav.g-menu a")
        if attempt >= await menu.count():
            break
        await ui.click(menu.nth(attempt))
    raise LookupError(f"no product matches {params}")


async def set_quantity(ui: UI, params: dict[str, Any]) -> None:
    card = await find_card(ui, params)
    box = card.locator(".g-qty")
    target = target_amount(params.get("amount"))
    current = int(await box.get_attribute("data-amount") or 0)
    while current != target:
        if current == 0:
            button = card.locator(".g-add button")
        elif current < target:
            button = card.get_by_role("button", name="Добавить ещё одну")
        else:
            button = card.get_by_role("button", name="Убрать одну штуку")
        await ui.click(button)
        current += 1 if current < target else -1
        await ui.page.wait_for_function(
            "([el, n]) => el.dataset.amount === String(n)",
            arg=[await box.element_handle(), current],
        )
