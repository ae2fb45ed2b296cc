"""Oracle for Продукты: the menu, the search, a product's page, quantities, login, checkout.

It plans from the conditions: the login first (it returns to the page it left), then screens
and the search, then the items (found on the page in view, else through the menu), then the
checkout. Of a group of alternatives it satisfies the first. The checkout is filled with
`ORDER_FORM`: no condition checks an address or a card's number.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.async_api import Locator

from runner.harnesses.oracle import commerce
from runner.harnesses.oracle.commerce import PAY_METHOD, choose_pay_method, first_of_groups
from runner.harnesses.oracle.ui import UI, plain
from services.core.matching import value_matches
from services.core.models.events import Condition, Parameters

CARD = "article.g-card"
LOGIN = "bench_grocery_login"
PAYMENT = "submit_payment"
ORDER = {LOGIN: 0, "state_changed": 1, "submit_search": 2, PAY_METHOD: 11, PAYMENT: 12}
# A password the login form takes: the stand checks its length, not its letters.
PASSWORD = "свежесть"
# The checkout's fields by label: the address, and a card's for a card.
ORDER_FORM = {"Адрес доставки": "ул. Липовая, 7, кв. 12"}
CARD_FORM = {
    "Номер карты": "4111 1111 1111 1111",
    "Срок действия": "12/39",
    "CVC": "123",
    "Владелец карты": "IVAN PETROV",
}
SCREENS = {
    "bench_grocery_main": "a.g-logo",
    "bench_grocery_basket": "a.g-cart-link",
}


def rank(condition: Condition) -> int:
    """The login, screens and the search first, the items next, the checkout last (its
    screen with it: a task that pays opens it after the cart is filled)."""
    if (condition.get("parameters") or {}).get("new_state") == "bench_grocery_checkout":
        return 10
    return ORDER.get(condition["event_name"], 9)


async def solve(ui: UI, conditions: list[Condition]) -> None:
    steps = sorted(first_of_groups(conditions), key=rank)
    must_search = any(c["event_name"] == "submit_search" for c in steps)
    for condition in steps:
        name, params = condition["event_name"], condition.get("parameters", {})
        if name == LOGIN:
            await log_in(ui, params)
        elif name == "state_changed":
            await go_to_screen(ui, params)
        elif name == "submit_search":
            value = params.get("value")
            if isinstance(value, str) and "*" not in value.strip("*"):
                await commerce.search(ui, value.strip("*"))
        elif name in ("basket_add", "basket_remove"):
            if ui.resumed and await commerce.set_line(ui, params):
                continue
            if must_search and "/search" not in urlsplit(ui.page.url).path:
                raise LookupError(f"the task searches, but its query is a pattern: {params}")
            await commerce.set_quantity(ui, await find_card(ui, params), params)
        elif name == PAY_METHOD:
            await open_checkout(ui)
            await choose_pay_method(ui, params.get("method"))
        elif name == PAYMENT:
            await pay(ui, params)
        else:
            raise ValueError(f"the grocery oracle cannot satisfy {name!r}")


def menu(ui: UI) -> Locator:
    return ui.page.get_by_role("navigation", name="Каталог").get_by_role("link")


async def find_card(ui: UI, params: Parameters) -> Locator:
    """The item's card on this page, else on each menu section's page in turn."""
    return await commerce.find_card(ui, CARD, params, menu(ui))


async def go_to_screen(ui: UI, params: Parameters) -> None:
    state = params.get("new_state")
    if state == "bench_grocery_category":
        links = menu(ui)
        for index in range(await links.count()):
            link = links.nth(index)
            href = await link.get_attribute("href") or ""
            if value_matches(params.get("category", "*"), href.rsplit("/", 1)[-1]):
                await ui.click(link)
                return
        raise LookupError(f"no menu item for category {params.get('category')!r}")
    if state == "bench_grocery_item":
        card = await find_card(ui, {"item_id": params.get("item_id", "*")})
        await ui.click(card.locator("a.g-card-link"))
    elif state == "bench_grocery_search":
        await commerce.search(ui, str(params.get("value", "")).strip("*"))
    elif state == "bench_grocery_checkout":
        await open_checkout(ui)
    elif state == LOGIN:
        await ui.click(ui.page.locator("a.g-login"))
    elif state in SCREENS:
        await ui.click(ui.page.locator(SCREENS[str(state)]))
    else:
        raise ValueError(f"unknown grocery screen {state!r}")


async def log_in(ui: UI, params: Parameters) -> None:
    """The header's «Войти», the phone the condition names, any password; back where it was."""
    await ui.click(ui.page.locator("a.g-login"))
    form = ui.page.locator("form.g-login-form")
    await ui.fill(form.get_by_label("Телефон"), str(plain(params.get("phone"))))
    await ui.fill(form.get_by_label("Пароль"), PASSWORD)
    await ui.click(form.get_by_role("button", name="Войти", exact=True))


async def open_checkout(ui: UI) -> None:
    if urlsplit(ui.page.url).path.endswith("/checkout"):
        return
    if not urlsplit(ui.page.url).path.endswith("/cart"):
        await ui.click(ui.page.locator("a.g-cart-link"))
    await ui.click(ui.page.get_by_role("link", name="Оформить заказ"))


async def pay(ui: UI, params: Parameters) -> None:
    """The order form filled (the card's fields for a card, unless the bank's page takes
    them), the method chosen, «Оплатить»."""
    await open_checkout(ui)
    form = ui.page.locator("form.g-checkout")
    method = plain(params.get("method")) or "card"
    await choose_pay_method(ui, method)
    on_form = method == "card" and await form.locator("input[name=card_number]").count()
    for label, text in (ORDER_FORM | (CARD_FORM if on_form else {})).items():
        await ui.fill(form.get_by_label(label, exact=True), text)
    await ui.click(form.get_by_role("button", name="Оплатить"))
    await commerce.pay_on_bank(ui)
