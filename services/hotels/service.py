"""Отели's rules, without HTTP: the guests field, the search form, which hotels fit the
rooms, the values a search was made with, and the page events the form's widgets may write.
The routes (`routes.py`) call these."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypedDict
from urllib.parse import urlencode

from services.core.contract import GUEST_LIMITS
from services.core.errors import FieldError, FormError
from services.core.models.events import Parameters
from services.core.russian import agree
from services.hotels.catalog import KINDS, Catalog, City, Hotel, Room
from services.hotels.generate import AMENITIES, BEDS, DISTRICTS, MEALS, PAYMENTS
from services.kit.catalog import FilterParams
from services.kit.forms import form_date, price_range
from services.kit.pictures import seeded
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
    """The `booking` state: the hotel and room chosen, its rate (`hotel_rates=rates`; "" for
    none), and the search (as the form sent it) they were chosen with; once the guest's form
    is sent, its confirmation number."""

    hotel: str
    room: str
    rate: str
    start: str
    end: str
    rooms: str
    confirmation: str


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


# -- the results' filters and sort -------------------------------------------------------

SORTS = {
    "popular": "По популярности",
    "price": "Сначала дешевле",
    "price_desc": "Сначала дороже",
    "rating": "По оценке гостей",
    "distance": "Ближе к центру",
}
PRICE_FOR = {"night": "за ночь", "stay": "за весь период"}
# The review score's words, highest first (a card's «Превосходно 9,2», the filter's options).
RATING_WORDS = ((9, "Превосходно"), (8, "Очень хорошо"), (7, "Хорошо"), (0, "Неплохо"))


def rating_word(score: float) -> str:
    return next(word for low, word in RATING_WORDS if score >= low)


@dataclass(frozen=True)
class Group:
    """A section of the results' filters: its query key (also `apply_filter`'s
    `filter_type`), heading, options (value, caption) and whether a hotel passes an option.
    `multi`: boxes to tick (a hotel passes any ticked option, or with `every` all of them);
    else one choice of the options (none: any)."""

    key: str
    title: str
    options: tuple[tuple[str, str], ...]
    passes: Callable[[Hotel, str], bool]
    multi: bool = True
    every: bool = False


GROUPS: tuple[Group, ...] = (
    Group(
        "type",
        "Тип жилья",
        tuple((kind, kind) for kind in KINDS),
        lambda h, v: h.kind == v,
    ),
    Group(
        "distance",
        "Расстояние до центра",
        (("1", "до 1 км"), ("3", "до 3 км"), ("5", "до 5 км")),
        lambda h, v: h.distance <= int(v),
        multi=False,
    ),
    Group(
        "amenity",
        "Удобства",
        tuple((a, a) for a in AMENITIES),
        lambda h, v: v in h.amenities,
        every=True,
    ),
    Group("meals", "Питание", tuple((m, m) for m in MEALS), lambda h, v: v in h.meals),
    Group(
        "stars",
        "Звёзды",
        tuple((str(n), agree(n, "звезда")) for n in (5, 4, 3, 2)),
        lambda h, v: h.stars == int(v),
    ),
    Group(
        "rating",
        "Оценка гостей",
        tuple((str(low), f"{word}: от {low}") for low, word in RATING_WORDS[:-1]),
        lambda h, v: h.rating >= int(v),
        multi=False,
    ),
    Group(
        "cancellation",
        "Условия отмены",
        (("free", "Бесплатная отмена"),),
        lambda h, v: h.free_cancel,
    ),
    Group("payment", "Оплата", tuple((p, p) for p in PAYMENTS), lambda h, v: v in h.payment),
    Group("beds", "Кровати", tuple((b, b) for b in BEDS), lambda h, v: v in h.beds),
    Group("district", "Район", tuple((d, d) for d in DISTRICTS), lambda h, v: h.district == v),
)
LIST_KEYS = (*(g.key for g in GROUPS), "price_min", "price_max", "price_for", "sort")


@dataclass(frozen=True)
class Filters:
    """The results' filters as the query sent them: the ticked options by group, the price
    range (whole roubles, None for open) a night or for the stay, and the sort."""

    chosen: dict[str, tuple[str, ...]] = field(default_factory=dict)
    price_min: int | None = None
    price_max: int | None = None
    price_for: str = "night"
    sort: str = "popular"

    def price(self, hotel: Hotel, found: Search) -> int:
        """What the price range is about: the hotel's lowest price a night, or for the stay."""
        per_night = hotel.min_price
        if self.price_for == "stay":
            return per_night * found["nights"] * len(found["rooms"])
        return per_night

    def passes(self, hotel: Hotel, found: Search, but: str = "") -> bool:
        """Whether `hotel` passes every group (except `but`) and the price range."""
        price = self.price(hotel, found)
        if self.price_min is not None and price < self.price_min:
            return False
        if self.price_max is not None and price > self.price_max:
            return False
        for group in GROUPS:
            values = self.chosen.get(group.key, ())
            if group.key == but or not values:
                continue
            check = all if group.every else any
            if not check(group.passes(hotel, value) for value in values):
                return False
        return True

    def counts(self, hotels: list[Hotel], found: Search) -> dict[str, dict[str, int]]:
        """The live counts: for each group's option, how many of `hotels` it would leave
        with the other groups as they are (an `every` group: with its own ticks too)."""
        result: dict[str, dict[str, int]] = {}
        for group in GROUPS:
            rest = [h for h in hotels if self.passes(h, found, but=group.key)]
            own = self.chosen.get(group.key, ()) if group.every else ()
            result[group.key] = {
                value: sum(all(group.passes(h, v) for v in (*own, value)) for h in rest)
                for value, _ in group.options
            }
        return result

    def arrange(self, hotels: list[Hotel], found: Search) -> list[Hotel]:
        """The hotels that pass, in the sort's order (popular: as given)."""
        kept = [h for h in hotels if self.passes(h, found)]
        keys: dict[str, Callable[[Hotel], Any]] = {
            "price": lambda h: h.min_price,
            "price_desc": lambda h: -h.min_price,
            "rating": lambda h: (-h.rating, -h.reviews),
            "distance": lambda h: h.distance,
        }
        return sorted(kept, key=keys[self.sort]) if self.sort in keys else kept

    def as_params(self) -> FilterParams:
        """The filters as `apply_filter` writes them (services/kit/commerce.py
        `list_events`): a ticked option `type:Отель` -> "Отель" (the stars and the
        distance and score as numbers), the price bounds and what they are about."""
        params: FilterParams = {}
        for group in GROUPS:
            for value in self.chosen.get(group.key, ()):
                key = f"{group.key}:{value}" if group.multi else group.key
                params[key] = int(value) if value.isdigit() else value
        for name, bound in (("price_min", self.price_min), ("price_max", self.price_max)):
            if bound is not None:
                params[name] = bound
        if self.price_min is not None or self.price_max is not None:
            params["price_for"] = self.price_for
        return params

    def query(self, **changed: Any) -> str:
        """The filters and sort as a query string, with `changed` keys replaced (a list of
        values for a group, None to leave a key out)."""
        pairs: dict[str, Any] = {
            **self.chosen,
            "price_min": self.price_min,
            "price_max": self.price_max,
            "price_for": self.price_for if self.price_for != "night" else None,
            "sort": self.sort if self.sort != "popular" else None,
            **changed,
        }
        return urlencode(
            [
                (key, value)
                for key, values in pairs.items()
                if values is not None
                for value in (values if isinstance(values, (list, tuple)) else (values,))
            ]
        )


def parse_filters(query: Any) -> tuple[Filters, bool]:
    """The filters and sort from the results' query string (FieldError naming a bad key),
    and whether any of their keys was sent (the filter form, a tab or a sort, not only the
    search)."""
    chosen: dict[str, tuple[str, ...]] = {}
    for group in GROUPS:
        known = dict(group.options)
        values = tuple(dict.fromkeys(v for v in query.getlist(group.key) if v))
        for value in values:
            if value not in known:
                raise FieldError(group.key, f"нет такого варианта: «{value[:60]}»")
        if len(values) > 1 and not group.multi:
            raise FieldError(group.key, "здесь выбирается один вариант")
        if values:
            chosen[group.key] = values

    price_min, price_max = price_range(query)
    price_for = query.get("price_for") or "night"
    if price_for not in PRICE_FOR:
        raise FieldError("price_for", f"цена — одно из: {', '.join(PRICE_FOR)}")
    sort = query.get("sort") or "popular"
    if sort not in SORTS:
        raise FieldError("sort", f"сортировка — одна из: {', '.join(SORTS)}")
    changed = any(key in query for key in LIST_KEYS)
    return Filters(chosen, price_min, price_max, price_for, sort), changed


# -- a room's rates (`hotel_rates=rates`) and the booking's confirmation ---------------------


@dataclass(frozen=True)
class Rate:
    """One rate of a room: its key, what it includes, whether it can be cancelled for free,
    its price a night."""

    key: str
    meal: str
    refundable: bool
    price: int

    @property
    def caption(self) -> str:
        return f"{self.meal}, {'бесплатная отмена' if self.refundable else 'без возврата'}"


def rates(hotel: Hotel, room: Room) -> list[Rate]:
    """A room's rates: without meals and not refundable at the room's price; with breakfast
    and free cancellation; the hotel's best meal (half board, all inclusive) when it has one."""
    found = [
        Rate("basic", "Без питания", False, room.price),
        Rate("breakfast", "Завтрак включён", True, _hundreds(room.price * 1.15)),
    ]
    best = hotel.meals[-1]
    if best in ("Полупансион", "Всё включено"):
        found.append(Rate("board", best, True, _hundreds(room.price * 1.4)))
    return found


def _hundreds(value: float) -> int:
    return round(value / 100) * 100


GUEST_FIELDS = {
    "first_name": "Укажите имя",
    "last_name": "Укажите фамилию",
    "email": "Укажите почту: адрес с @",
    "phone": "Укажите телефон",
}
# The guest's form as the booking page fills it in (the cabinet's traveller).
GUEST = {
    "first_name": "Анна",
    "last_name": "Смирнова",
    "email": "anna.smirnova@example.ru",
    "phone": "+7 912 345-67-89",
}


def check_guest(form: dict[str, str]) -> dict[str, str]:
    """The booking form's guest fields, trimmed; FormError naming each empty or bad one."""
    guest = {key: " ".join(form.get(key, "").split())[:100] for key in GUEST_FIELDS}
    errors = {
        key: message
        for key, message in GUEST_FIELDS.items()
        if not guest[key] or (key == "email" and "@" not in guest[key])
    }
    if errors:
        raise FormError(errors)
    return guest


def confirmation(trajectory_id: str, booking: Booking) -> str:
    """The booking's confirmation number, the same for the same trajectory and booking."""
    seed = "/".join([trajectory_id, *(str(booking.get(k, "")) for k in ("hotel", "room", "start"))])
    digest = hashlib.sha256(seed.encode()).hexdigest()
    return f"ОТ-{int(digest[:8], 16) % 9000000 + 1000000}"


ASPECTS = ("Чистота", "Комфорт", "Расположение", "Персонал", "Цена и качество")


def aspects(hotel: Hotel) -> list[tuple[str, float]]:
    """The hotel's scores by aspect: each within a point of its rating, the same each time."""
    rng = seeded(f"{hotel.id}/aspects")
    return [
        (a, round(min(10.0, max(5.0, hotel.rating + rng.uniform(-1, 0.8))), 1)) for a in ASPECTS
    ]


# A pin's size on the results' map, in per cent of its width and height (the map is 5:3; a
# pin 26 px on a phone's 360 px map): pins closer than this are moved apart.
PIN = (7.5, 12.5)


def map_pins(hotels: list[Hotel]) -> list[tuple[Hotel, float, float]]:
    """Each hotel with where its pin stands on the map (per cent): its place, moved apart
    from the others' so that no pin covers another, kept inside the map."""
    spots = [[h.x, h.y] for h in hotels]
    for _ in range(50):
        moved = False
        for i, a in enumerate(spots):
            for b in spots[i + 1 :]:
                dx, dy = b[0] - a[0], b[1] - a[1]
                if abs(dx) < PIN[0] and abs(dy) < PIN[1]:
                    # apart along the axis where less is missing, half each
                    axis = 0 if PIN[0] - abs(dx) < PIN[1] - abs(dy) else 1
                    push = (PIN[axis] - abs((dx, dy)[axis])) / 2 + 0.1
                    sign = 1 if (dx, dy)[axis] >= 0 else -1
                    a[axis] -= sign * push
                    b[axis] += sign * push
                    moved = True
        for spot in spots:
            spot[0] = min(100 - PIN[0] / 2, max(PIN[0] / 2, spot[0]))
            spot[1] = min(100 - PIN[1] / 2, max(PIN[1] / 2, spot[1]))
        if not moved:
            break
    return [(h, round(x, 1), round(y, 1)) for h, (x, y) in zip(hotels, spots, strict=True)]
