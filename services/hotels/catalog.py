"""Read-only access to the hotels catalog (``data/catalog.json``, made by ``generate.py``)."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from services.hotels.chrome import CHROME
from services.kit.catalog import (
    Row,
    best_matches,
    catalog_items,
    exact_ids,
    read_json,
    svg_picture,
    words,
)
from services.kit.pictures import circle, ellipse, path, rect, seeded, shade, stroke, text

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"


# -- the catalog file (its JSON, as the generator writes it) -----------------------------


class CatalogData(TypedDict):
    cities: list[Row]
    hotels: list[Row]  # amenities and rooms as JSON lists


@dataclass(frozen=True)
class City:
    id: str
    name: str
    country: str
    label: str

    def as_option(self) -> dict[str, str]:
        """What the city widgets need: the id, the label and its two halves."""
        return {"id": self.id, "label": self.label, "name": self.name, "country": self.country}


@dataclass(frozen=True)
class Destination:
    """A city of the home page: how many hotels it has, from what price a night."""

    city: City
    hotels: int
    min_price: int


@dataclass(frozen=True)
class Room:
    type: str
    adults: int
    kids: int
    price: int

    def fits(self, adults: int, kids: int) -> bool:
        return adults <= self.adults and adults + kids <= self.adults + self.kids


# A property's kind (the results' tabs and «Тип жилья») by how its name begins.
KINDS: dict[str, tuple[str, ...]] = {
    "Отель": ("Отель", "Гостиница", "Бутик-отель"),
    "Апартаменты": ("Апарт-отель", "Резиденция"),
    "Гостевой дом": ("Гостевой дом",),
}


@dataclass(frozen=True)
class Opinion:
    """A guest's review: who, what trip, the score out of 10, what they liked and did not."""

    author: str
    trip: str
    score: int
    liked: str
    disliked: str


@dataclass(frozen=True)
class Hotel:
    id: str
    city: str
    name: str
    stars: int
    rating: float
    district: str
    amenities: tuple[str, ...]
    color: str
    rooms: tuple[Room, ...]
    kind: str  # a key of KINDS
    distance: float  # km to the centre
    x: float  # where it stands on the city's map, per cent of its width and height
    y: float
    meals: tuple[str, ...]  # the meals its rates offer, «Без питания» first
    reviews: int  # how many reviews its rating is made of
    free_cancel: bool
    payment: tuple[str, ...]  # «Оплата на месте», «Предоплата онлайн»
    beds: tuple[str, ...]
    badge: str  # "" for none
    checkin: str  # from, "14:00"
    checkout: str  # until, "12:00"
    nearby: tuple[tuple[str, float], ...]  # (place, km)
    opinions: tuple[Opinion, ...]

    @property
    def min_price(self) -> int:
        return min(room.price for room in self.rooms)

    @property
    def title(self) -> str:
        """Its name, as the favourites' events carry it (services/kit/commerce.py `Goods`)."""
        return self.name

    @property
    def price(self) -> int:
        return self.min_price

    def room(self, room_type: str) -> Room | None:
        return next((room for room in self.rooms if room.type == room_type), None)


def _hotel(
    amenities: list[str],
    rooms: list[Row],
    meals: list[str],
    payment: list[str],
    beds: list[str],
    nearby: list[list[Any]],
    opinions: list[Row],
    **fields: Any,
) -> Hotel:
    """A hotel from its catalog row, whose lists are JSON lists."""
    return Hotel(
        amenities=tuple(amenities),
        rooms=tuple(catalog_items(Room, rooms)),
        meals=tuple(meals),
        payment=tuple(payment),
        beds=tuple(beds),
        nearby=tuple((place, km) for place, km in nearby),
        opinions=tuple(catalog_items(Opinion, opinions)),
        **fields,
    )


class Catalog:
    def __init__(self, cities: list[City], hotels: list[Hotel]) -> None:
        self.cities = list(cities)
        self.hotels = list(hotels)
        self._cities = {c.id: c for c in self.cities}
        self._hotels = {h.id: h for h in self.hotels}
        self._in_city: dict[str, list[Hotel]] = {}  # the best rated first, once
        for hotel in sorted(self.hotels, key=lambda h: (-h.rating, h.name)):
            self._in_city.setdefault(hotel.city, []).append(hotel)

    @classmethod
    def from_dict(cls, data: CatalogData) -> Catalog:
        return cls(catalog_items(City, data["cities"]), catalog_items(_hotel, data["hotels"]))

    def city(self, city_id: str) -> City | None:
        return self._cities.get(city_id)

    def hotel(self, hotel_id: str) -> Hotel | None:
        return self._hotels.get(hotel_id)

    def hotels_in(self, city_id: str) -> list[Hotel]:
        return list(self._in_city.get(city_id, ()))

    def popular_cities(self, limit: int = 8) -> list[Destination]:
        """The cities with the most hotels (the home page's «Популярные направления»), each
        with its count of hotels and its lowest price a night."""
        destinations = [
            Destination(city, len(found), min(h.min_price for h in found))
            for city in self.cities
            if (found := self.hotels_in(city.id))
        ]
        return sorted(destinations, key=lambda d: (-d.hotels, d.city.name))[:limit]

    def city_options(self) -> list[dict[str, str]]:
        return [c.as_option() for c in sorted(self.cities, key=lambda c: c.label)]


@functools.cache
def load_catalog() -> Catalog:
    return Catalog.from_dict(read_json(CATALOG_PATH))


def _facade(hotel: Hotel, rng: random.Random) -> str:
    """The hotel from the street: sky, its building (a floor a star, windows lit at random),
    a door under the stars, trees."""
    floors = hotel.stars + 2
    top = 138 - 18 * floors
    lit = ("#cfe3f2", "#ffe9a8")
    windows = "".join(
        rect(62 + col * 24, top + 10 + row * 18, 14, 10, lit[rng.random() < 0.4], 1.5)
        for row in range(floors - 1)
        for col in range(5)
    )  # fmt: skip
    trees = "".join(
        rect(x - 2, 122, 4, 16, "#6b4f2e") + circle(x, 116, 12, "#4f8a3a") for x in (26, 214)
    )
    return (
        rect(0, 0, 240, 150, "#bfe0f5")
        + circle(200, 30, 14, "#fff2b0")
        + rect(0, 136, 240, 14, "#9aa3ad")
        + rect(50, top, 140, 138 - top, hotel.color)
        + rect(46, top - 6, 148, 8, shade(hotel.color, 0.6), 2)
        + windows
        + rect(106, 114, 28, 24, "#3b4652", 2)
        + rect(90, 100, 60, 12, "#3b4652", 2)
        + text(120, 110, "★" * hotel.stars, 10, "#ffe27a")
        + trees
    )


def _room(hotel: Hotel, room_type: str, rng: random.Random) -> str:
    """A room of `room_type`: a window, its beds (two for a family, a wide one above the
    standard), an armchair or a sofa, a lamp, the type's name on a plate."""
    wall = shade(hotel.color, 1.5)
    wide = room_type in ("Полулюкс", "Люкс")
    bed_x, bed_w = (70, 110) if wide else (80, 90)
    beds = rect(bed_x, 88, bed_w, 34, "#ffffff", 6) + rect(bed_x, 80, bed_w, 12, "#e8e2d8", 4)
    beds += rect(bed_x - 6, 70, 8, 54, "#7a5a3a", 2)
    beds += "".join(rect(bed_x + 8 + 34 * i, 82, 28, 10, "#f4f6f8", 4) for i in range(bed_w // 40))
    beds += rect(bed_x + bed_w * 0.45, 90, bed_w * 0.55, 32, shade(hotel.color, 0.8), 4)
    if room_type == "Семейный":
        beds += rect(196, 98, 36, 24, "#ffffff", 4) + rect(
            196, 112, 36, 10, shade(hotel.color, 0.8), 2
        )
    if room_type != "Стандартный" and room_type != "Семейный":
        beds += rect(14, 100, 44, 24, shade(hotel.color, 0.6), 6) + rect(
            10, 94, 10, 30, shade(hotel.color, 0.5), 4
        )
    if room_type == "Люкс":
        beds += path("M120 0 v10", "none", stroke("#c9a14a", 2)) + ellipse(
            120, 16, 16, 6, "#f2d27a"
        )
    return (
        rect(0, 0, 240, 150, wall)
        + rect(0, 122, 240, 28, "#c9a67a")
        + rect(20, 20, 60, 50, "#8fc3e8", 2)
        + rect(20, 50 - rng.uniform(0, 14), 60, 20, "#6e8fa8")
        + rect(20, 20, 60, 50, "none", 2, stroke("#ffffff", 4))
        + rect(200, 56, 4, 26, "#5f6b7a")
        + path("M190 56 L214 56 L208 44 L196 44 Z", "#f2d27a")
        + beds
        + rect(150, 18, 76, 18, "#ffffff", 4, ' fill-opacity="0.85"')
        + text(188, 31, room_type, 10, "#33383f")
    )


def _bath(hotel: Hotel, rng: random.Random) -> str:
    """The bathroom: tiles, a bath, a basin under a mirror, towels."""
    tile = shade(hotel.color, 1.6)
    tiles = "".join(path(f"M0 {y} H240", "none", stroke("#ffffff", 1)) for y in range(12, 120, 16))
    return (
        rect(0, 0, 240, 150, tile)
        + tiles
        + rect(0, 120, 240, 30, "#9aa3ad")
        + rect(20, 84, 120, 40, "#ffffff", 12)
        + rect(26, 80, 108, 8, "#e8eef3", 4)
        + path("M34 84 v-26 h12", "none", stroke("#9aa3ad", 3))
        + rect(170, 26, 46, 40, "#d8ecf7", 4, stroke("#9aa3ad", 2))
        + rect(164, 80, 58, 10, "#ffffff", 4)
        + rect(184, 90, 18, 34, "#e8eef3")
        + rect(146, 30, 16, 40 + rng.uniform(0, 10), shade(hotel.color, 0.8), 3)
    )


def image_svg(hotel: Hotel, view: int = 1) -> str:
    """Picture `view` (1..`VIEWS`) of a hotel's gallery, 240×150: 1 the façade, 2 its
    cheapest room, 3 the bathroom, 4 its dearest room (services/kit/pictures.py)."""
    rng = seeded(f"{hotel.id}/{view}")
    rooms = sorted(hotel.rooms, key=lambda room: room.price)
    if view == 1:
        body = _facade(hotel, rng)
    elif view == 3:
        body = _bath(hotel, rng)
    else:
        body = _room(hotel, rooms[0 if view == 2 else -1].type, rng)
    return svg_picture(240, 150, hotel.name, body)


def _cities_and_hotels() -> tuple[list[City], list[Hotel]]:
    catalog = load_catalog()
    cities = list(catalog.cities)
    return cities, [hotel for city in cities for hotel in catalog.hotels_in(city.id)]


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    cities, hotels = _cities_and_hotels()
    return {
        "cityId": {c.id for c in cities},
        "label": {c.label for c in cities},
        "cityName": {c.name for c in cities},
        "countryName": {c.country for c in cities},
        "hotelId": {h.id for h in hotels},
        "name": {h.name for h in hotels},
        "roomType": {room.type for h in hotels for room in h.rooms},
    }


def names() -> dict[str, str]:
    """Id -> what a person calls it: the cities and the hotels (the descriptor's `names`)."""
    cities, hotels = _cities_and_hotels()
    return {c.id: c.label for c in cities} | {h.id: h.name for h in hotels}


def search_ids(query: str, among: str = "") -> set[str]:
    """The ids its search finds with every word of `query` (the descriptor's `search`): among
    the cities with `among="cities"`, else among the hotels."""
    stays = load_catalog()
    if among == "cities":
        return exact_ids(
            best_matches(query, stays.cities, lambda c: words(c.label)), lambda c: c.id
        )
    return exact_ids(
        best_matches(
            query,
            stays.hotels,
            lambda h: words(f"{h.name} {getattr(stays.city(h.city), 'name', '')}"),
        ),
        lambda h: h.id,
    )


def states() -> set[str]:
    """The screens this site serves (`state_changed.new_state`)."""
    return {
        "state_hotels_main",
        "bench_hotel_search",
        "bench_hotel_item",
        "bench_hotel_booking",
        CHROME.screen,
    }
