"""Oracle for Отели: the search form's city, dates and guests under every implementation,
the search itself, a hotel from the results and a room on its page (under `hotel_rates=rates`
the room's first rate)."""

from __future__ import annotations

import json

from playwright.async_api import Locator

from runner.harnesses.oracle.ui import (
    UI,
    choose_option,
    first_match,
    pick_date,
    plain,
    set_guests,
)
from services.core.matching import value_matches
from services.core.models.events import Condition, Parameters

CITY = "bench_hotel_select_city"
START, END = "bench_hotel_select_start_date", "bench_hotel_select_end_date"
GUESTS = "bench_hotel_select_guests"
HOTEL, ROOM = "bench_hotel_select_hotel", "bench_hotel_select_room"
# A result's and a room's facts, by the attribute that holds each.
HOTEL_FACTS = {"hotelId": "data-hotel-id", "name": "data-name"}
ROOM_FACTS = {"roomType": "data-room-type", "price": "data-price"}


def rooms_for(params: Parameters) -> list[Parameters]:
    """The rooms a guests condition asks for: given, or adults spread over the rooms."""
    if "rooms" in params:
        return [
            {"adults": r["adults"], "kids": list(r.get("kids") or [])}
            for r in plain(params["rooms"])
        ]
    count = int(plain(params.get("roomsCount", 1)))
    guests = int(plain(params.get("guestsCount", 2 * count)))
    return [{"adults": guests // count + (i < guests % count), "kids": []} for i in range(count)]


def rooms_text(rooms: list[Parameters]) -> str:
    """The guests field's value for rooms: "2:7,5;1"."""
    return ";".join(
        str(r["adults"]) + (":" + ",".join(str(a) for a in r["kids"]) if r["kids"] else "")
        for r in rooms
    )


SEARCH_KEYS = ("cityId", "startDate", "endDate", "rooms", "roomsCount", "guestsCount")


async def solve(ui: UI, conditions: list[Condition]) -> None:
    if ui.resumed:  # a recovery task's booking: its room chosen again from the search form
        await ui.click(ui.page.locator("a.h-logo"))
    await search_and_choose(ui, conditions)


async def search_and_choose(ui: UI, conditions: list[Condition]) -> None:
    wanted: dict[str, Parameters] = {}
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
    # The values a search or a booking was made with stand for the widgets they name.
    made: Parameters = {}
    for key in ("screen", ROOM):
        made.update({k: v for k, v in wanted.get(key, {}).items() if k in SEARCH_KEYS})
    city_params = wanted.get(CITY) or ({"cityId": made["cityId"]} if "cityId" in made else None)
    start = wanted[START]["date"] if START in wanted else made.get("startDate")
    end = wanted[END]["date"] if END in wanted else made.get("endDate")
    guests = wanted.get(GUESTS) or {
        k: v for k, v in made.items() if k in ("rooms", "roomsCount", "guestsCount")
    }
    hotel = wanted.get(HOTEL) or (
        {"hotelId": wanted[ROOM]["hotelId"]} if "hotelId" in wanted.get(ROOM, {}) else None
    )
    if city_params is not None:
        root = ui.page.locator("[data-wpb-combo=city]")
        options = json.loads(await root.locator("script.wpb-options").text_content() or "[]")
        keys = {"cityId": "id", "label": "label", "cityName": "name", "countryName": "country"}
        city = next(
            c
            for c in options
            if all(value_matches(v, c[keys[k]]) for k, v in city_params.items() if k in keys)
        )
        await choose_option(ui, root, city["label"])
    dates = ui.page.locator("[data-wpb-date]")
    if start is not None:
        await pick_date(ui, dates, 0, str(plain(start)))
    if end is not None:
        await pick_date(ui, dates, 1, str(plain(end)))
    if guests:
        field = ui.page.locator("[data-wpb-guests]")
        rooms = rooms_for(guests)
        current = await field.locator("input[type=hidden]").first.input_value()
        # A guests widget event is needed only when a task names it; the reference leaves a
        # default that is already right alone, the alternate path confirms it.
        if GUESTS in wanted or current != rooms_text(rooms) or ui.alternate:
            await set_guests(ui, field, rooms)
    if not ({"screen", ROOM} & wanted.keys()) and hotel is None:
        return
    await ui.click(ui.page.get_by_role("button", name="Найти"))
    if hotel is not None or ROOM in wanted:
        await open_hotel(ui, hotel or {})
    if ROOM in wanted:
        room = await first_match(ui.page.locator("tr.h-room"), ROOM_FACTS, wanted[ROOM])
        if room is not None:
            await choose_room(ui, room)
            return
        raise LookupError(f"no room matches {wanted[ROOM]}")


async def choose_room(ui: UI, row: Locator) -> None:
    """The room's button books it; under `hotel_rates=rates` (the table's `data-impl`) it
    opens the room's rates, and its first rate (the room's own price) books it."""
    button = row.get_by_role("button")
    with_rates = await ui.page.locator("table.h-rooms").get_attribute("data-impl") == "rates"
    rates = await button.get_attribute("aria-controls")
    await ui.click(button)
    if with_rates:
        await ui.click(ui.page.locator(f"#{rates}").get_by_role("button").first)


async def open_hotel(ui: UI, params: Parameters) -> None:
    card = await first_match(ui.page.locator("li.h-card"), HOTEL_FACTS, params)
    if card is not None:
        await ui.click(card.locator("a.button"))
        return
    raise LookupError(f"no hotel in the results matches {params}")
