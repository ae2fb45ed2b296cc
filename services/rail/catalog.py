"""Read-only access to the rail catalog (``data/catalog.json``, made by ``generate.py``)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, cast

from services.kit.catalog import Row, best_matches, catalog_items, exact_ids, words
from services.rail.chrome import CHROME

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"


# -- the catalog file (its JSON, as the generator writes it) -----------------------------


class CityData(TypedDict):
    city: str
    stations: list[str]


class CatalogData(TypedDict):
    cities: list[CityData]
    trains: list[Row]
    passengers: list[Row]


@dataclass(frozen=True)
class Seat:
    n: int
    label: str
    window: bool
    lower: bool | None  # None in a sitting car
    taken: bool

    @property
    def caption(self) -> str:
        parts = [f"Место {self.label}"]
        if self.lower is not None:
            parts.append("нижнее" if self.lower else "верхнее")
        parts.append("у окна" if self.window else "у прохода")
        return ", ".join(parts)


@dataclass(frozen=True)
class Car:
    car: int
    tariff: str
    kind: str  # sitting | berth
    price: int
    size: int
    taken: tuple[int, ...]

    def seats(self) -> list[Seat]:
        """Sitting cars: rows of A–D, A and D at the window. Berth cars: odd berths are
        lower; the first two berths of each four are at the window; plackart side berths
        (37–54) are at the window too."""
        seats = []
        for n in range(1, self.size + 1):
            if self.kind == "sitting":
                letter = "ABCD"[(n - 1) % 4]
                seat = Seat(n, f"{(n - 1) // 4 + 1}{letter}", letter in "AD", None, n in self.taken)
            else:
                window = (n - 1) % 4 < 2 or (self.size == 54 and n > 36)
                seat = Seat(n, str(n), window, n % 2 == 1, n in self.taken)
            seats.append(seat)
        return seats

    def seat(self, n: int) -> Seat | None:
        return self.seats()[n - 1] if 1 <= n <= self.size else None


def clock(start: str, minutes: int) -> str:
    """The time `minutes` after `start` ("HH:MM"), with the days it moves on («+1 д.»)."""
    hours, mins = map(int, start.split(":"))
    total = hours * 60 + mins + minutes
    days = total // (24 * 60)
    return f"{total // 60 % 24:02d}:{total % 60:02d}" + (f" (+{days} д.)" if days else "")


@dataclass(frozen=True)
class Tariff:
    """What a tariff is (the train page's tariff cards, the results' car classes): its code
    on the ticket, its car class and what the ticket includes."""

    code: str
    car_class: str
    about: str


TARIFF_FACTS = {
    "Эконом": Tariff("2С", "Сидячий", "Кресло в общем салоне, багаж до 36 кг, розетка у ряда"),
    "Эконом+": Tariff(
        "2В", "Сидячий", "Кресло с увеличенным шагом, набор в дорогу, выбор места без доплаты"
    ),
    "Бизнес": Tariff("1Р", "Сидячий", "Широкое кресло в салоне на 16 мест, горячее питание"),
    "Первый класс": Tariff(
        "1В", "Сидячий", "Кресло-диван в салоне на 12 мест, питание, пресса, трансфер"
    ),
    "Плацкартный": Tariff("3Э", "Плацкарт", "Полка в открытом вагоне, постельное бельё"),
    "Купе": Tariff("2Э", "Купе", "Полка в купе на четверых, постельное бельё, набор в дорогу"),
    "Купе (для инвалидов)": Tariff(
        "2Ш", "Купе", "Купе у входа, широкая дверь, подъёмник и кнопка вызова проводника"
    ),
    "СВ": Tariff("1Б", "СВ", "Купе на двоих, бельё, питание, индивидуальная розетка"),
    "Люкс": Tariff("1А", "Люкс", "Купе на двоих с душем и туалетом, питание, трансфер"),
}


@dataclass(frozen=True)
class Stop:
    """A station the train stops at between its first and last: minutes after the start,
    and how long it stands."""

    station: str
    after_min: int
    halt_min: int


@dataclass(frozen=True)
class Train:
    id: str
    number: str
    name: str
    from_city: str
    to_city: str
    from_station: str
    to_station: str
    departure: str
    duration_min: int
    cars: tuple[Car, ...]
    # What the results' filters and cards show (generated after the rest, its own RNG):
    # the train's type, its badges («Фирменный», «Двухэтажный»), on-board services, the
    # stops between, and the tariffs sold out on the day (a waiting list, never bookable).
    kind: str = "Скорый"
    badges: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    stops: tuple[Stop, ...] = ()
    sold_out: tuple[str, ...] = ()

    @property
    def arrival(self) -> str:
        return clock(self.departure, self.duration_min)

    @property
    def arrival_hour(self) -> int:
        hours, minutes = map(int, self.departure.split(":"))
        return (hours * 60 + minutes + self.duration_min) // 60 % 24

    @property
    def departure_hour(self) -> int:
        return int(self.departure.split(":")[0])

    @property
    def duration(self) -> str:
        return f"{self.duration_min // 60} ч {self.duration_min % 60:02d} мин"

    @property
    def min_price(self) -> int:
        return min(car.price for car in self.cars)

    @property
    def max_price(self) -> int:
        return max(car.price for car in self.cars)

    def car_for(self, tariff: str) -> Car | None:
        return next((car for car in self.cars if car.tariff == tariff), None)

    def price_for(self, tariff: str) -> int:
        """The lowest price, of `tariff`'s car when one is named and the train has it."""
        car = self.car_for(tariff) if tariff else None
        return car.price if car else self.min_price

    @functools.cached_property
    def car_classes(self) -> set[str]:
        return {TARIFF_FACTS[car.tariff].car_class for car in self.cars}

    def timetable(self) -> list[tuple[str, str, str, str]]:
        """Every station with its arrival, departure and halt (the card's «Маршрут»)."""
        rows = [(self.from_station, "", self.departure, "")]
        for stop in self.stops:
            rows.append((
                stop.station,
                clock(self.departure, stop.after_min),
                clock(self.departure, stop.after_min + stop.halt_min),
                f"{stop.halt_min} мин",
            ))  # fmt: skip
        return [*rows, (self.to_station, self.arrival, "", "")]


@dataclass(frozen=True)
class Passenger:
    name: str
    document: str
    kind: str


def _train_fields(train: Row) -> Row:
    """A train's fields as `Train` holds them: its cars built, their taken seats a tuple."""
    cars = cast("list[Row]", train["cars"])
    taken = ({**car, "taken": tuple(cast("list[int]", car["taken"]))} for car in cars)
    lists = {k: tuple(cast("list[str]", train[k])) for k in ("badges", "services", "sold_out")}
    stops = tuple(catalog_items(Stop, cast("list[Row]", train["stops"])))
    return {**train, **lists, "cars": tuple(catalog_items(Car, taken)), "stops": stops}


@dataclass(frozen=True)
class Route:
    """A route of the home page: its cities, how many trains, from what price, how long."""

    origin: str
    dest: str
    trains: int
    min_price: int
    fastest_min: int

    @property
    def fastest(self) -> str:
        return f"{self.fastest_min // 60} ч {self.fastest_min % 60:02d} мин"


class Catalog:
    def __init__(
        self, cities: list[CityData], trains: list[Train], passengers: list[Passenger]
    ) -> None:
        self.cities = {c["city"]: list(c["stations"]) for c in cities}
        self.trains = list(trains)
        self.passengers = list(passengers)
        self._trains = {t.id: t for t in self.trains}

    @classmethod
    def from_dict(cls, data: CatalogData) -> Catalog:
        trains = catalog_items(Train, map(_train_fields, data["trains"]))
        return cls(data["cities"], trains, catalog_items(Passenger, data["passengers"]))

    def train(self, train_id: str) -> Train | None:
        return self._trains.get(train_id)

    def trains_between(self, origin: str, dest: str) -> list[Train]:
        found = [t for t in self.trains if t.from_city == origin and t.to_city == dest]
        return sorted(found, key=lambda t: t.departure)

    def popular_routes(self, limit: int = 6) -> list[Route]:
        """The routes with the most trains (the home page's «Популярные направления»): each
        with its count of trains, its lowest price and its shortest time."""
        by_route: dict[tuple[str, str], list[Train]] = {}
        for train in self.trains:
            by_route.setdefault((train.from_city, train.to_city), []).append(train)
        routes = [
            Route(origin, dest, len(trains), min(t.min_price for t in trains),
                  min(t.duration_min for t in trains))
            for (origin, dest), trains in by_route.items()
        ]  # fmt: skip
        return sorted(routes, key=lambda r: (-r.trains, r.origin, r.dest))[:limit]

    def station_options(self) -> list[dict[str, str]]:
        return [
            {"id": city, "label": city, "hint": ", ".join(stations)}
            for city, stations in sorted(self.cities.items())
        ]

    def tariffs(self) -> list[str]:
        seen: dict[str, None] = {}
        for train in self.trains:
            for car in train.cars:
                seen.setdefault(car.tariff, None)
        return list(seen)


@functools.cache
def load_catalog() -> Catalog:
    return Catalog.from_dict(json.loads(CATALOG_PATH.read_text(encoding="utf-8")))


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    catalog = load_catalog()
    cities = set(catalog.cities)
    stations = {s for names in catalog.cities.values() for s in names}
    return {
        "name": cities,
        "city_from": cities,
        "city_to": cities,
        "from_city": cities,
        "to_city": cities,
        "from_station": stations,
        "to_station": stations,
        "train_name": {t.name for t in catalog.trains},
        "tarif_name": set(catalog.tariffs()),
    }


def search_ids(query: str, among: str = "") -> set[str]:
    """The ids its search finds with every word of `query` (the descriptor's `search`)."""
    trains = load_catalog().trains
    return exact_ids(
        best_matches(query, trains, lambda t: words(f"{t.name} {t.from_city} {t.to_city}")),
        lambda t: t.id,
    )


def states() -> set[str]:
    """The screens this site serves (`state_changed.new_state`)."""
    return {
        "bench_rail_main",
        "bench_rail_search",
        "bench_rail_train",
        "bench_rail_passengers",
        "bench_rail_basket",
        "bench_rail_checkout",
        "bench_rail_payment",
        "bench_rail_paid",
        CHROME.screen,
    }
