"""What the oracles of the sites built on the kit's shop controls share: one condition per
group, the `text_search` field, finding a card by its `data-*` facts, the cart and
favourite controls of `services/kit/templates/kit/commerce.html`, and the bank's page of
`payment=bank` (services/kit/bank.py, rail's too)."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.async_api import Locator, expect

from runner.harnesses.oracle.ui import LOADING_S, UI, first_match, press, target_amount
from services.core.models.events import Condition, Parameters
from services.kit.account import TEST_CARD

ITEM_EVENTS = ("basket_add", "basket_remove", "add_favorites", "remove_favorites")
# A sponsored result (the `search_result` injection carrier, kit/widgets/inject.html): its
# card is a real one, but no task asks for it, so the oracle never picks it.
SPONSORED = ".kit-sponsored"
PAY_METHOD = "select_pay_method"
# A control of commerce.html: its button, or under `clickables=divs` the div drawn instead.
CLICKABLE = "button, [data-click]"


def first_of_groups(conditions: list[Condition]) -> list[Condition]:
    """Every condition, but of a group of alternatives only the first."""
    seen: set[str | int] = set()
    chosen = []
    for condition in conditions:
        group = condition.get("group")
        if group is not None:
            if group in seen:
                continue
            seen.add(group)
        chosen.append(condition)
    return chosen


async def search(ui: UI, text: str) -> None:
    """Fill the `text_search` field and press Enter: the same under every implementation."""
    field = ui.page.locator("form[data-ts] input[name=q]").first
    await ui.fill(field, text)
    await press(ui, field, "Enter", navigates=True)


# A card's facts, by the attribute that holds each.
CARD_FACTS = {"item_id": "data-item-id", "price": "data-price", "title": "data-title"}


async def find_card(ui: UI, cards: str, params: Parameters, menu: Locator | None = None) -> Locator:
    """The first card (`cards`: its selector) on this page that matches the parameters,
    a sponsored one aside, else, with a `menu`, on each page it links to in turn."""
    links = await menu.count() if menu is not None else 0
    for attempt in range(1 + links):
        found = ui.page.locator(f"{cards}:not({SPONSORED} *)")
        card = await first_match(found, CARD_FACTS, params)
        if card is not None:
            return card
        if menu is None or attempt >= links:
            break
        await ui.click(menu.nth(attempt))
    raise LookupError(f"no card matches {params}")


async def set_quantity(
    ui: UI,
    card: Locator,
    params: Parameters,
    less: str = "Убрать одну штуку",
    more: str = "Добавить ещё одну",
) -> None:
    """Press «В корзину», then + or −, until the card holds the amount the condition wants."""
    box = card.locator("[data-qty]")
    target = target_amount(params.get("amount"))
    current = int(await box.get_attribute("data-amount") or 0)
    while current != target:
        if current == 0:
            button = box.locator("form[data-cart]").first.locator(CLICKABLE)
        else:
            op, name = ("inc", more) if current < target else ("dec", less)
            # `clickables=divs` draws − and + with no name: the div in the form of its op.
            button = box.get_by_role("button", name=name).or_(
                box.locator(f"form:has(input[name=op][value={op}]) [data-click]")
            )
        await ui.click(button)
        current += 1 if current < target else -1
        # A locator, not the element: after an expired session's login the page is new. The
        # answer may take as long as a page (a loaded machine), not expect's 5 s.
        await expect(box).to_have_attribute("data-amount", str(current), timeout=LOADING_S * 1000)


async def set_line(ui: UI, params: Parameters) -> bool:
    """On a cart page that lists the condition's item (`tr[data-item-id]`, a resumed
    recovery task's first screen), set its line to the amount wanted as the cart shows it:
    removed for none, else the amount typed and «Обновить». False where the page lists no
    such line (the item is then found by its card)."""
    item_id = params.get("item_id")
    row = ui.page.locator(f'tr[data-item-id="{item_id}"]')
    if not isinstance(item_id, str) or "*" in item_id or not await row.count():
        return False
    target = target_amount(params.get("amount"))
    field = row.locator("input[name=amount]")
    if int(await field.input_value() or 0) == target:
        return True
    if target == 0:
        await ui.click(row.get_by_role("button", name="Удалить:", exact=False))
    else:
        await ui.fill(field, str(target))
        await ui.click(row.get_by_role("button", name="Обновить"))
    return True


async def set_favorite(ui: UI, card: Locator, wanted: bool) -> None:
    button = card.locator("form[data-fav]").locator(CLICKABLE)
    expected = "true" if wanted else "false"
    # A `clickables=divs` heart has no state an agent can read: the page keeps it in data.
    state = "aria-pressed" if await button.evaluate("b => b.matches('button')") else "data-pressed"
    if await button.get_attribute(state) == expected:
        return
    await ui.click(button)
    await expect(button).to_have_attribute(state, expected, timeout=LOADING_S * 1000)


async def choose_sort(ui: UI, select: Locator, sort: str) -> None:
    """Pick a sort in a select that submits itself (`data-autosubmit`): the page reloads."""
    async with ui.page.expect_navigation():
        await select.select_option(sort)
    ui.steps += 1
    await ui.page.wait_for_load_state()


async def choose_pay_method(ui: UI, method: object) -> None:
    """Pick a payment method on the checkout screen (a radio of the kit's checkout): the page
    sends it to the server, which writes `select_pay_method`; wait for that answer."""
    radio = ui.page.locator(f'input[data-pay-method][value="{method}"]')
    async with ui.page.expect_response(lambda r: r.url.split("?")[0].endswith("/checkout/method")):
        await ui.click(radio)


async def pay_on_bank(ui: UI) -> None:
    """Where the site's pay button opened the bank's page (`payment=bank`): the test card the
    hub page shows, «Оплатить», and the site's answer once «Обрабатываем платёж…» is over."""
    if not urlsplit(ui.page.url).path.endswith("/bank"):
        return
    form = ui.page.locator("form[data-bank]")
    for label, text in zip(("Номер карты", "Срок действия", "CVC"), TEST_CARD, strict=True):
        await ui.fill(form.get_by_label(label, exact=True), text)
    async with ui.page.expect_navigation(timeout=LOADING_S * 1000):
        await ui.click(form.get_by_role("button", name="Оплатить"))
