"""Oracle for Поезда: the search form (stations and dates under every implementation), the
results' filter and sort, a train, its tariff and seats, passengers, cart and payment."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Locator

from runner.harnesses.oracle.commerce import first_of_groups, pay_on_bank
from runner.harnesses.oracle.ui import (
    ATTRIBUTES,
    UI,
    choose_option,
    first_match,
    pick_date,
    plain,
    target_amount,
)
from services.core.matching import value_matches
from services.core.models.events import Condition, Parameters

SCREENS_AFTER_CART = ("bench_rail_basket", "bench_rail_checkout", "bench_rail_payment")


def wanted(conditions: list[Condition]) -> tuple[dict[str, Parameters], set[str]]:
    """The parameters each condition names, by event (cities by field, dates by direction;
    of a group of alternatives the first), and the screens to reach."""
    want: dict[str, Parameters] = {}
    screens: set[str] = set()
    for condition in first_of_groups(conditions):
        name, params = condition["event_name"], condition.get("parameters", {})
        if name == "state_changed":
            screens.add(str(params.get("new_state")))
        elif name == "select_city":
            want[f"city_{params.get('field', 'from')}"] = params
        elif name == "select_date":
            want[f"date_{params.get('direction', 'departure')}"] = params
        else:
            want[name] = params
    return want, screens


async def solve(ui: UI, conditions: list[Condition]) -> None:
    want, screens = wanted(conditions)
    await fill_form(ui, want)
    booking = {"select_train", "select_tariff", "select_seat", "select_passenger", "basket_add"}
    paying = {"select_pay_method", "submit_payment"}
    rest = want.keys() - {"city_from", "city_to", "date_departure", "date_return"}
    if not rest and not screens:
        return
    if ui.resumed and not rest - paying:  # tickets already in the cart: pay for those
        await pay(ui, want, screens)
        return
    await search(ui, want)
    if not (booking | paying) & rest and not set(SCREENS_AFTER_CART) & screens:
        return
    await book(ui, want)
    if not paying & rest and not ({"bench_rail_checkout", "bench_rail_payment"} & screens):
        return
    await pay(ui, want, screens)


async def fill_form(ui: UI, want: dict[str, Parameters]) -> None:
    """The stations and dates of the search form, under every implementation."""
    search = want.get("submit_search", {})
    origin = plain(search.get("city_from") or want.get("city_from", {}).get("name") or "")
    dest = plain(search.get("city_to") or want.get("city_to", {}).get("name") or "")
    day = plain(search.get("date_departure") or want.get("date_departure", {}).get("date") or "")
    for field, value in (("from", origin), ("to", dest)):
        if value:
            root = ui.page.locator(f'[data-wpb-combo=station][data-field="{field}"]')
            await choose_option(ui, root, str(value))
    dates = ui.page.locator("[data-wpb-date]")
    if day:
        await pick_date(ui, dates, 0, str(day))
    if "date_return" in want:
        await pick_date(ui, dates, 1, str(plain(want["date_return"]["date"])))


def party(want: dict[str, Parameters]) -> tuple[int, int]:
    """How many passengers (the search's, the cart line's, or the first ticket paid for),
    and how many of them children."""
    line = want.get("basket_add", {})
    paid = want.get("submit_payment", {}).get("tickets") or [{}]
    passengers = int(
        plain(want.get("submit_search", {}).get("passengers_amount"))
        or plain(paid[0].get("amount"))
        or target_amount(line.get("amount"))
    )
    return passengers, int(plain(line.get("children")) or 0)


async def search(ui: UI, want: dict[str, Parameters]) -> None:
    """The passengers' counts, the search, then the results' filter and sort."""
    passengers, children = party(want)
    adults = int(plain(want.get("basket_add", {}).get("adults")) or passengers - children)
    await set_passengers(ui, min(adults, 4), children)
    await ui.click(ui.page.get_by_role("button", name="Найти"))
    if "apply_filter" in want:
        await ui.page.locator("select[name=tariff]").select_option(
            str(plain(want["apply_filter"]["value"]))
        )
        await ui.click(ui.page.get_by_role("button", name="Показать"))
    if "apply_sort" in want:
        await ui.page.locator("select[name=sort]").select_option(
            str(plain(want["apply_sort"]["sort"]))
        )
        await ui.click(ui.page.get_by_role("button", name="Упорядочить"))


async def set_passengers(ui: UI, adults: int, children: int) -> None:
    """The search form's counts of adults and children, under either implementation
    (`passengers`): its two selects, or the dropdown's − and + per category, then «Готово»."""
    root = ui.page.locator("[data-r-passengers]")
    if await root.get_attribute("data-impl") == "dropdown":
        trigger = root.locator(".r-pax-trigger")
        for what, value in (("adults", adults), ("children", children)):
            counter = root.locator(f'[data-counter="{what}"]')
            while (current := int(await counter.get_attribute("data-value") or 0)) != value:
                if await trigger.get_attribute("aria-expanded") != "true":
                    await ui.click(trigger)
                step = "1" if current < value else "-1"
                await ui.click(counter.locator(f'button[data-step="{step}"]'))
        if await trigger.get_attribute("aria-expanded") == "true":
            await ui.click(root.locator(".r-pax-done"))
        return
    # The alternate path leaves the adults' count alone when its default is right.
    adults_field = root.locator("select[name=adults]")
    if not ui.alternate or await adults_field.input_value() != str(adults):
        await adults_field.select_option(str(adults))
        ui.steps += 1
    if children:
        await root.locator("select[name=children]").select_option(str(children))
        ui.steps += 1


async def book(ui: UI, want: dict[str, Parameters]) -> None:
    """The train, its tariff, the seats and the passengers, into the cart."""
    line = want.get("basket_add", {})
    passengers, children = party(want)
    await open_train(ui, want.get("select_train", {}).get("train_name", line.get("train_name")))
    tariff = want.get("select_tariff", {}).get("tarif_name", line.get("tarif_name"))
    await ui.click(
        await first_matching(ui.page.locator("button[data-tariff]"), "data-tariff", tariff)
    )
    await choose_seats(ui, passengers, want.get("select_seat") or seat_facts(line, passengers))
    await ui.click(ui.page.get_by_role("link", name="Далее: пассажиры"))
    for kind in ["child"] * children + ["adult"] * (passengers - children):
        person = ui.page.locator(f'li.r-person:not(.is-chosen)[data-kind="{kind}"]').first
        index = await person.get_attribute("data-index")
        await ui.click(person.get_by_role("button"))
        await ui.page.locator(f'li.r-person.is-chosen[data-index="{index}"]').wait_for()
    await ui.click(ui.page.get_by_role("button", name="Оформить"))


async def pay(ui: UI, want: dict[str, Parameters], screens: set[str]) -> None:
    """The checkout's pay method, then the payment where the task asks for it."""
    page = ui.page
    if not urlsplit(page.url).path.endswith("/checkout"):
        if not urlsplit(page.url).path.endswith("/cart"):
            await ui.click(page.locator("a.r-cart-link"))
        await ui.click(page.get_by_role("link", name="Оформить заказ"))
    method = plain(
        want.get("select_pay_method", {}).get("method")
        or want.get("submit_payment", {}).get("method")
        or "card"
    )
    await ui.click(ui.page.locator(f'button[data-method="{method}"]'))
    if "submit_payment" not in want and "bench_rail_payment" not in screens:
        return
    await ui.click(ui.page.get_by_role("link", name="Перейти к оплате"))
    if "submit_payment" in want:
        await ui.click(ui.page.get_by_role("button", name="Оплатить"))
        await pay_on_bank(ui)


async def first_matching(items: Locator, attribute: str, expected: Any) -> Locator:
    wanted = {} if expected is None else {attribute: expected}
    item = await first_match(items, {attribute: attribute}, wanted)
    if item is None:
        raise LookupError(f"nothing on the page has {attribute} = {expected!r}")
    return item


async def open_train(ui: UI, name: Any) -> None:
    card = await first_matching(ui.page.locator("li.r-train"), "data-name", name)
    await ui.click(card.get_by_role("link"))


def seat_facts(line: Parameters, count: int) -> dict[str, bool]:
    """The flag every seat must have for a basket line's counts of lower berths and
    window seats (all of the seats or none of them)."""
    facts = {}
    for counted, flag in (("lower_berths", "lower_berth"), ("window_seats", "near_window")):
        if counted in line:
            wanted = int(plain(line[counted]))
            if wanted not in (0, count):
                raise LookupError(f"{counted} = {wanted} of {count} seats is not supported")
            facts[flag] = wanted == count
    return facts


async def choose_seats(ui: UI, count: int, params: Parameters) -> None:
    """Free seats that satisfy near_window / lower_berth, one per passenger."""
    free = ui.page.locator("button.r-seat:not([disabled])")
    chosen = []
    for number, window, lower in await free.evaluate_all(
        ATTRIBUTES, ["data-seat", "data-window", "data-lower"]
    ):
        facts = {"near_window": window == "true", "lower_berth": lower == "true"}
        if all(value_matches(v, facts[k]) for k, v in params.items() if k in facts):
            chosen.append(number)
    if len(chosen) < count:
        raise LookupError(f"only {len(chosen)} free seats match {params}")
    for number in chosen[:count]:
        await ui.click(ui.page.locator(f'button.r-seat[data-seat="{number}"]'))
        await ui.page.locator(
            f'button.r-seat[data-seat="{number}"][aria-pressed="true"]'
        ).wait_for()
