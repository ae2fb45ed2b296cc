"""Oracle for Продукты: category navigation, finding a product card, setting its quantity."""

from __future__ import annotations

from runner.harnesses.oracle import commerce
from runner.harnesses.oracle.ui import UI
from services.core.matching import value_matches
from services.core.models.events import Condition, Parameters

SCREENS = {"bench_grocery_main": "main", "bench_grocery_basket": "cart"}


async def solve(ui: UI, conditions: list[Condition]) -> None:
    for condition in conditions:
        name, params = condition["event_name"], condition.get("parameters", {})
        if name == "state_changed":
            await go_to_screen(ui, params)
        elif name in ("basket_add", "basket_remove"):
            await set_quantity(ui, params)
        else:
            raise ValueError(f"the grocery oracle cannot satisfy {name!r}")


async def go_to_screen(ui: UI, params: Parameters) -> None:
    state = params.get("new_state")
    if state == "bench_grocery_category":
        links = ui.page.locator("nav.g-menu a")
        for index in range(await links.count()):
            link = links.nth(index)
            href = await link.get_attribute("href") or ""
            if value_matches(params.get("category", "*"), href.rsplit("/", 1)[-1]):
                await ui.click(link)
                return
        raise LookupError(f"no menu item for category {params.get('category')!r}")
    if SCREENS.get(str(state)) == "main":
        await ui.click(ui.page.locator("a.g-logo"))
    elif SCREENS.get(str(state)) == "cart":
        await ui.click(ui.page.locator("a.g-cart-link"))
    else:
        raise ValueError(f"unknown grocery screen {state!r}")


async def set_quantity(ui: UI, params: Parameters) -> None:
    menu = ui.page.locator("nav.g-menu a")
    card = await commerce.find_card(ui, "article.g-card", params, menu)
    await commerce.set_quantity(ui, card, params)
