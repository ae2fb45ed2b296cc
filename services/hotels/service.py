"""Отели's rules, without HTTP: the guests field, the search form, which hotels fit the
rooms, the values a search was made with, and the page events the form's widgets may write.
The routes (`routes.py`) call these."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import TypedDict
from urllib.parse import urlencode

from services.core.contract import GUEST_LIMITS
from services.core.errors import FieldError, FormError
from services.core.models.events import Parameters
from services.hotels.catalog import Catalog, City, Hotel
from services.kit.forms import form_date
from services.kit.site import Slot
from services.kit.trajectory import Trajectory

PAGE_EVENT_TYPES = frozenset(
    {
        "bench_hotel_select_city",
        "bench_hotel_select_start_date",
        "bench_hotel_select_end_date",
        "bench_hotel_select_guests",
    }
)
MAIN_STATE = "state_hotels_main"  # the name task files use as bench_first_state
MAX_NIGHTS = 30
# The messages of the search form's required fields: the server answers an empty one with
# them, and the page (`data-required`, services/kit/static/required.js) shows the same.
REQUIRED = {
    "city": "Выберите город из списка",
    "start": "Укажите дату заезда",
    "end": "Укажите дату выезда",
}
ROOMS_RE = re.compile(
    r"\d{1,2}(:(\d{1,2})?(,\d{1,2})*)?(;\d{1,2}(:(\d{1,2})?(,\d{1,2})*)?)*", re.ASCII
)


class GuestRoom(TypedDict):
    """One room of the guests field (the contract's `Room`): its adults, its children's ages."""

    adults: int
    kids: list[int]


Rooms = list[GuestRoom]


class Search(TypedDict):
    """The checked search: the city, the dates and nights, the rooms (and the field's text),
    how many guests, and the results' query string."""

    city: City
    start: date
    end: date
    nights: int
    rooms: Rooms
    rooms_text: str
    guests: int
    query: str


class Booking(TypedDict, total=False):
    """The `booking` state: the hotel and room chosen, and the search (as the form sent it)
    they were chosen with."""

    hotel: str
    room: str
    start: str
    end: str
    rooms: str


BOOKING: Slot[Booking] = Slot("booking")


def parse_rooms(text: str) -> Rooms:
    """ "2:7,5;1" -> [{"adults": 2, "kids": [7, 5]}, {"adults": 1, "kids": []}]."""
    if not ROOMS_RE.fullmatch(text or ""):
        raise ValueError("Укажите гостей: взрослых и детей по номерам")
    rooms: Rooms = []
    for part in text.split(";"):
        adults, _, kids = part.partition(":")
        ages = [int(a) for a in kids.split(",") if a != ""] if kids else []
        rooms.append({"adults": int(adults), "kids": ages})
    (rooms_low, rooms_high), (adults_low, adults_high), (_, kids_high), (age_low, age_high) = (
        GUEST_LIMITS[key] for key in ("rooms", "adults", "kids", "age")
    )
    if not rooms_low <= len(rooms) <= rooms_high:
        raise ValueError(f"Номеров можно выбрать от {rooms_low} до {rooms_high}")
    for room in rooms:
        if not adults_low <= room["adults"] <= adults_high:
            raise ValueError(f"В номере от {adults_low} до {adults_high} взрослых")
        if len(room["kids"]) > kids_high:
            raise ValueError(f"В номере не больше {kids_high} детей")
        if any(not age_low <= age <= age_high for age in room["kids"]):
            raise ValueError(f"Возраст ребёнка — от {age_low} до {age_high} лет")
    return rooms


def rooms_text(rooms: object) -> str:
    """The form's spelling of rooms as events carry them (`[{"adults": 2, "kids": [7]}]` ->
    "2:7"), checked as the form's is (ValueError saying why)."""
    if not isinstance(rooms, list) or not all(
        isinstance(room, dict) and isinstance(room.get("adults"), int) for room in rooms
    ):
        raise ValueError('rooms: a list of {"adults": n, "kids": [ages]}')
    parts = []
    for room in rooms:
        kids = room.get("kids", [])
        if not isinstance(kids, list) or not all(isinstance(age, int) for age in kids):
            raise ValueError("kids: a list of ages")
        parts.append(
            f"{room['adults']}:{','.join(map(str, kids))}" if kids else f"{room['adults']}"
        )
    text = ";".join(parts)
    parse_rooms(text)
    return text


def guests_count(rooms: Rooms) -> int:
    return sum(r["adults"] + len(r["kids"]) for r in rooms)


def parse_search(
    catalog: Catalog, today: date, city: str, start: str, end: str, rooms: str
) -> Search:
    """The checked search, or FormError naming each bad field in Russian."""
    errors: dict[str, str] = {}
    found = catalog.city(city) if city else None
    if not city:
        errors["city"] = REQUIRED["city"]
    elif found is None:
        errors["city"] = "Такого города нет в списке"
    dates: dict[str, date] = {}
    for name, value, caption in (("start", start, "заезда"), ("end", end, "выезда")):
        day = form_date(value, today, name, errors, REQUIRED[name], f"Дата {caption} уже прошла")
        if day is not None:
            dates[name] = day
    if "start" in dates and "end" in dates and "end" not in errors:
        nights = (dates["end"] - dates["start"]).days
        if nights < 1:
            errors["end"] = "Дата выезда должна быть позже даты заезда"
        elif nights > MAX_NIGHTS:
            errors["end"] = f"Не больше {MAX_NIGHTS} ночей"
    try:
        parsed = parse_rooms(rooms)
    except ValueError as exc:
        errors["rooms"] = str(exc)
        parsed = []
    if errors:
        raise FormError(errors)
    assert found is not None
    return {
        "city": found,
        "start": dates["start"],
        "end": dates["end"],
        "nights": (dates["end"] - dates["start"]).days,
        "rooms": parsed,
        "rooms_text": rooms,
        "guests": guests_count(parsed),
        "query": urlencode({"city": city, "start": start, "end": end, "rooms": rooms}),
    }


def search_facts(found: Search) -> Parameters:
    """The values a search was made with, as the search and booking events carry them."""
    return {
        "cityId": found["city"].id,
        "startDate": found["start"].isoformat(),
        "endDate": found["end"].isoformat(),
        "rooms": found["rooms"],
        "roomsCount": len(found["rooms"]),
        "guestsCount": found["guests"],
    }


def hotel_fits(hotel: Hotel, rooms: Rooms) -> bool:
    return all(any(room.fits(r["adults"], len(r["kids"])) for room in hotel.rooms) for r in rooms)


def page_event_check(catalog: Catalog) -> Callable[[str, Parameters, Trajectory], None]:
    """The check of the form widgets' page events: a known city with its own names, a date
    not past, guests that add up."""

    def check(event_type: str, params: Parameters, trajectory: Trajectory) -> None:
        if event_type == "bench_hotel_select_city":
            city = catalog.city(params["cityId"])
            if city is None:
                raise FieldError("params.cityId", f"no city {params['cityId']!r}")
            for key, value in (
                ("label", city.label),
                ("cityName", city.name),
                ("countryName", city.country),
            ):
                if params[key] != value:
                    raise FieldError(f"params.{key}", f"expected {value!r} for {city.id}")
        elif event_type in ("bench_hotel_select_start_date", "bench_hotel_select_end_date"):
            if date.fromisoformat(params["date"]) < trajectory.today:
                raise FieldError("params.date", "a date in the past cannot be picked")
        elif event_type == "bench_hotel_select_guests":
            rooms = params["rooms"]
            if params["roomsCount"] != len(rooms):
                raise FieldError("params.roomsCount", "must equal the number of rooms")
            if params["guestsCount"] != guests_count(rooms):
                raise FieldError("params.guestsCount", "must equal adults plus children")

    return check


def search_or_errors(
    catalog: Catalog, today: date, city: str, start: str, end: str, rooms: str
) -> tuple[Search | None, dict[str, str]]:
    """The checked search and no errors, or None and the errors by field."""
    try:
        return parse_search(catalog, today, city, start, end, rooms), {}
    except FormError as exc:
        return None, exc.errors
