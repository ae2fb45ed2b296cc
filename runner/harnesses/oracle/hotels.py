"""Oracle for Отели: the search form's city, dates and guests under every implementation,
the search itself, a hotel from the results and a room on its page."""

from __future__ import annotations

import json
from typing import Any

from runner.harnesses.oracle.ui import UI, choose_option, pick_date, set_guests
from services.verifier.matching import value_matches

CITY = "bench_hotel_select_city"
START, END = "bench_hotel_select_start_date", "bench_hotel_select_end_date"
GUESTS = "bench_hotel_select_guests"
HOTEL, ROOM = "bench_hotel_select_hotel", "bench_hotel_select_room"


def plain(value: Any) -> Any:
    """The value a plain or `{"value", "condition": "equal"}` parameter asks for."""
    if isinstance(value, dict) and "condition" in value:
        return value.get("value")
    return value


def rooms_for(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The rooms a guests condition asks for: given, or adults spread over the rooms."""
    if "rooms" in params:
        return [
            {"adults": r["adults"], "kids": list(r.get("kids") or [])}
            for r in plain(params["rooms"])
        ]
    count = int(plain(params.get("roomsCount", 1)))
    guests = int(plain(params.get("guestsCount", 2 * count)))
    return [{"adults": guests // count + (i < guests % count), "kids": []} for i in range(count)]


async def solve(ui: UI, conditions: list[dict[str, Any]]) -> None:
    wanted: dict[str, dict[str, Any]] = {}
    for condition in conditions:
        name = condition["event_name"]
        params = condition.get("parameters", {})
        if name == "state_changed" and params.get("new_state") not in (
            "bench_hotel_search",
            "state_hotels_main",
            "bench_hotel_item",
            "bench_hotel_booking",
        ):
            raise ValueError(f"the hotels oracle cannot reach screen {params.get('new_state')!r}")
        if name not in (CITY, START, END, GUESTS, HOTEL, ROOM, "state_changed"):
            raise ValueError(f"the hotels oracle cannot satisfy {name!r}")
        wanted[name if name != "state_changed" else "screen"] = params
    page = ui.page
    if CITY in wanted:
        root = page.locator("[data-wpb-combo=city]")
        options = json.loads(await root.locator("script.wpb-options").text_content() or "[]")
        keys = {"cityId": "id", "label": "label", "cityName": "name", "countryName": "country"}
        city = next(
            c
            for c in options
            if all(value_matches(v, c[keys[k]]) for k, v in wanted[CITY].items() if k in keys)
        )
        await choose_option(ui, root, city["label"])
    dates = page.locator("[data-wpb-date]")
    if START in wanted:
        await pick_date(ui, dates, 0, str(plain(wanted[START]["date"])))
    if END in wanted:
        await pick_date(ui, dates, 1, str(plain(wanted[END]["date"])))
    if GUESTS in wanted:
        await set_guests(ui, page.locator("[data-wpb-guests]"), rooms_for(wanted[GUESTS]))
    if not ({"screen", HOTEL, ROOM} & wanted.keys()):
        return
    await ui.click(page.get_by_role("button", name="Найти"))
    if HOTEL in wanted or ROOM in wanted:
        await open_hotel(ui, wanted.get(HOTEL, {}))
    if ROOM in wanted:
        rows = page.locator("tr.h-room")
        for index in range(await rows.count()):
            row = rows.nth(index)
            row_facts: dict[str, str | None] = {
                "roomType": await row.get_attribute("data-room-type"),
                "price": await row.get_attribute("data-price"),
            }
            if all(
                value_matches(v, row_facts[k]) for k, v in wanted[ROOM].items() if k in row_facts
            ):
                await ui.click(row.get_by_role("button"))
                return
        raise LookupError(f"no room matches {wanted[ROOM]}")


async def open_hotel(ui: UI, params: dict[str, Any]) -> None:
    cards = ui.page.locator("li.h-card")
    for index in range(await cards.count()):
        card = cards.nth(index)
        facts = {
            "hotelId": await card.get_attribute("data-hotel-id"),
            "name": await card.get_attribute("data-name"),
        }
        if all(value_matches(v, facts[k]) for k, v in params.items() if k in facts):
            await ui.click(card.locator("a.button"))
            return
    raise LookupError(f"no hotel in the results matches {params}")
