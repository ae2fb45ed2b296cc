"""Read-only access to the hotels catalog (``data/catalog.json``, made by ``generate.py``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict
from xml.sax.saxutils import escape

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

    @property
    def min_price(self) -> int:
        return min(room.price for room in self.rooms)

    def room(self, room_type: str) -> Room | None:
        return next((room for room in self.rooms if room.type == room_type), None)


def _hotel(amenities: list[str], rooms: list[Row], **fields: Any) -> Hotel:
    """A hotel from its catalog row, whose amenities and rooms are JSON lists."""
    return Hotel(amenities=tuple(amenities), rooms=tuple(catalog_items(Room, rooms)), **fields)


class Catalog:
    def __init__(self, cities: list[City], hotels: list[Hotel]) -> None:
        self.cities = list(cities)
        self.hotels = list(hotels)
        self._cities = {c.id: c for c in self.cities}
        self._hotels = {h.id: h for h in self.hotels}

    @classmethod
    def from_dict(cls, data: CatalogData) -> Catalog:
        return cls(catalog_items(City, data["cities"]), catalog_items(_hotel, data["hotels"]))

    def city(self, city_id: str) -> City | None:
        return self._cities.get(city_id)

    def hotel(self, hotel_id: str) -> Hotel | None:
        return self._hotels.get(hotel_id)

    def hotels_in(self, city_id: str) -> list[Hotel]:
        return sorted(
            (h for h in self.hotels if h.city == city_id), key=lambda h: (-h.rating, h.name)
        )

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


def image_svg(hotel: Hotel) -> str:
    """A 240×150 façade: a building with windows, stars over the door."""
    windows = "".join(
        f'<rect x="{60 + col * 32}" y="{30 + row * 26}" width="18" height="16" rx="2" '
        'fill="#ffffff" opacity="0.85"/>'
        for row in range(3)
        for col in range(4)
    )
    stars = "★" * hotel.stars
    return svg_picture(
        240,
        150,
        hotel.name,
        f'<rect width="240" height="150" rx="14" fill="{escape(hotel.color)}"/>'
        '<rect x="48" y="18" width="144" height="120" rx="6" fill="#5a6a7a"/>'
        f"{windows}"
        '<rect x="106" y="110" width="28" height="28" fill="#3b4652"/>'
        '<text x="120" y="106" font-size="12" text-anchor="middle" fill="#ffe27a">'
        f"{stars}</text>",
    )


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    catalog = load_catalog()
    cities = list(catalog.cities)
    hotels = [hotel for city in cities for hotel in catalog.hotels_in(city.id)]
    return {
        "cityId": {c.id for c in cities},
        "label": {c.label for c in cities},
        "cityName": {c.name for c in cities},
        "countryName": {c.country for c in cities},
        "hotelId": {h.id for h in hotels},
        "name": {h.name for h in hotels},
        "roomType": {room.type for h in hotels for room in h.rooms},
    }


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
