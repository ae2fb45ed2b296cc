"""Deterministic generator for the «Поезда» (rail) catalog.

Run ``python -m services.rail.generate`` to (re)write ``data/catalog.json``;
``python -m services.rail.generate --check`` exits 1 if the committed file is stale.

Cities are real; station names, train names, numbers, timetables, cars, seats and prices are
synthetic, from one seeded RNG. Trains run every day on their timetable.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from services.kit.catalog import rows
from services.kit.generate import dumps, write_or_check
from services.rail.catalog import TARIFF_FACTS, Car, CatalogData, CityData, Passenger, Stop, Train

SEED = 20260904
# The facts added later (train type, badges, services, stops, sold-out tariffs) come from an
# RNG of their own, so that every train keeps the id, name, times, cars and prices it had.
FACTS_SEED = 20261207
CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"

# city -> its stations (invented neutral names); the city is what the search form picks.
CITIES: dict[str, list[str]] = {
    "Москва": ["Северный вокзал", "Восточный вокзал", "Южный вокзал"],
    "Санкт-Петербург": ["Центральный вокзал", "Морской вокзал"],
    "Казань": ["Вокзал Казань-Пассажирская"],
    "Нижний Новгород": ["Вокзал на Стрелке"],
    "Ярославль": ["Волжский вокзал"],
    "Тверь": ["Вокзал Тверь"],
    "Великий Новгород": ["Вокзал Великий Новгород"],
    "Псков": ["Вокзал Псков"],
    "Петрозаводск": ["Онежский вокзал"],
    "Мурманск": ["Вокзал Мурманск"],
    "Архангельск": ["Вокзал Архангельск"],
    "Владимир": ["Вокзал Владимир"],
    "Кострома": ["Вокзал Кострома"],
    "Смоленск": ["Вокзал Смоленск"],
    "Тула": ["Вокзал Тула"],
    "Рязань": ["Вокзал Рязань"],
    "Воронеж": ["Вокзал Воронеж"],
    "Ростов-на-Дону": ["Донской вокзал"],
    "Краснодар": ["Кубанский вокзал"],
    "Сочи": ["Приморский вокзал"],
    "Самара": ["Вокзал Самара"],
    "Екатеринбург": ["Уральский вокзал"],
}

# tariff -> (car kind, seats in the car, price factor)
TARIFFS: dict[str, tuple[str, int, float]] = {
    "Эконом": ("sitting", 24, 1.0),
    "Эконом+": ("sitting", 24, 1.25),
    "Бизнес": ("sitting", 16, 2.1),
    "Первый класс": ("sitting", 12, 3.0),
    "Плацкартный": ("berth", 54, 0.6),
    "Купе": ("berth", 36, 1.2),
    "Купе (для инвалидов)": ("berth", 4, 1.2),
    "СВ": ("berth", 18, 2.4),
    "Люкс": ("berth", 8, 3.6),
}

# Routes: (from, to, base price of the cheapest seat, hours) and the trains on them, each as
# (name, tariffs). Every route runs both ways. Names are invented.
ROUTES: list[tuple[str, str, int, float, list[tuple[str, list[str]]]]] = [
    (
        "Москва",
        "Санкт-Петербург",
        2400,
        4.0,
        [
            ("Ясный сокол", ["Эконом", "Эконом+", "Бизнес", "Первый класс"]),
            ("Серебряный путь", ["Эконом", "Эконом+", "Бизнес"]),
            ("Балтийский бриз", ["Эконом", "Бизнес", "Первый класс"]),
            ("Ночная звезда", ["Купе", "СВ", "Люкс"]),
            ("Речная цапля", ["Плацкартный", "Купе", "Купе (для инвалидов)"]),
            ("Утренний курьер", ["Эконом", "Эконом+"]),
            ("Два берега", ["Плацкартный", "Купе", "СВ"]),
            ("Тихий перрон", ["Купе", "СВ", "Купе (для инвалидов)"]),
        ],
    ),
    (
        "Москва",
        "Казань",
        2100,
        12.0,
        [
            ("Волжская заря", ["Плацкартный", "Купе", "СВ"]),
            ("Зелёный огонёк", ["Эконом", "Эконом+", "Бизнес"]),
            ("Ночной караван", ["Плацкартный", "Купе", "Люкс"]),
        ],
    ),
    (
        "Москва",
        "Нижний Новгород",
        1500,
        4.5,
        [
            ("Верхняя набережная", ["Эконом", "Эконом+", "Бизнес"]),
            ("Кремлёвский холм", ["Эконом", "Эконом+", "Первый класс"]),
            ("Ранняя пташка", ["Плацкартный", "Купе"]),
        ],
    ),
    (
        "Москва",
        "Сочи",
        4600,
        24.0,
        [
            ("Южный берег", ["Плацкартный", "Купе", "СВ", "Люкс"]),
            ("Тёплое море", ["Плацкартный", "Купе", "СВ"]),
        ],
    ),
    ("Москва", "Ярославль", 900, 3.5, [("Золотое кольцо", ["Эконом", "Эконом+"])]),
    ("Москва", "Тверь", 700, 2.0, [("Тверской бульвар", ["Эконом", "Эконом+", "Бизнес"])]),
    ("Москва", "Владимир", 800, 2.0, [("Клязьма", ["Эконом", "Бизнес"])]),
    ("Москва", "Смоленск", 1300, 5.0, [("Днепровская даль", ["Эконом", "Купе"])]),
    ("Москва", "Воронеж", 2100, 8.5, [("Чернозёмный край", ["Плацкартный", "Купе", "СВ"])]),
    ("Москва", "Екатеринбург", 4200, 26.0, [("Уральский самоцвет", ["Плацкартный", "Купе", "СВ"])]),
    ("Санкт-Петербург", "Петрозаводск", 1200, 5.5, [("Карельский лес", ["Эконом", "Купе"])]),
    (
        "Санкт-Петербург",
        "Мурманск",
        3100,
        26.0,
        [("Полярный курьер", ["Плацкартный", "Купе", "СВ"])],
    ),
    ("Санкт-Петербург", "Псков", 1000, 4.0, [("Старый кремль", ["Эконом", "Плацкартный"])]),
    ("Санкт-Петербург", "Великий Новгород", 700, 3.0, [("Волховский мост", ["Эконом", "Эконом+"])]),
    ("Казань", "Самара", 1600, 11.0, [("Две реки", ["Плацкартный", "Купе"])]),
    ("Ростов-на-Дону", "Краснодар", 900, 4.0, [("Кубанская степь", ["Эконом", "Плацкартный"])]),
]


# The towns between each route's cities, in order from its first city (real towns, stops
# and times invented): a train stops at some of them, a fast one at fewer.
ROUTE_TOWNS: dict[tuple[str, str], list[str]] = {
    ("Москва", "Санкт-Петербург"): ["Клин", "Тверь", "Вышний Волочёк", "Бологое", "Окуловка",
                                    "Малая Вишера", "Чудово"],
    ("Москва", "Казань"): ["Владимир", "Ковров", "Муром", "Арзамас", "Шумерля", "Канаш",
                           "Зеленодольск"],
    ("Москва", "Нижний Новгород"): ["Петушки", "Владимир", "Ковров", "Вязники", "Дзержинск"],
    ("Москва", "Сочи"): ["Тула", "Елец", "Воронеж", "Лиски", "Россошь", "Каменская",
                         "Ростов-на-Дону", "Краснодар", "Туапсе", "Лазаревская"],
    ("Москва", "Ярославль"): ["Сергиев Посад", "Александров", "Ростов Великий"],
    ("Москва", "Тверь"): ["Зеленоград", "Клин", "Редкино"],
    ("Москва", "Владимир"): ["Орехово-Зуево", "Покров", "Петушки"],
    ("Москва", "Смоленск"): ["Голицыно", "Можайск", "Гагарин", "Вязьма", "Сафоново"],
    ("Москва", "Воронеж"): ["Ожерелье", "Узловая", "Ефремов", "Елец", "Грязи"],
    ("Москва", "Екатеринбург"): ["Владимир", "Нижний Новгород", "Киров", "Глазов", "Пермь",
                                 "Кунгур"],
    ("Санкт-Петербург", "Петрозаводск"): ["Волховстрой", "Лодейное Поле", "Свирь"],
    ("Санкт-Петербург", "Мурманск"): ["Волховстрой", "Петрозаводск", "Медвежья Гора", "Сегежа",
                                      "Кемь", "Беломорск", "Кандалакша", "Апатиты"],
    ("Санкт-Петербург", "Псков"): ["Гатчина", "Луга", "Струги Красные"],
    ("Санкт-Петербург", "Великий Новгород"): ["Тосно", "Чудово"],
    ("Казань", "Самара"): ["Свияжск", "Буинск", "Ульяновск", "Димитровград", "Сызрань"],
    ("Ростов-на-Дону", "Краснодар"): ["Батайск", "Кущёвская", "Тимашёвская"],
}  # fmt: skip
SERVICES = [
    "Кондиционер", "Биотуалет", "Wi-Fi", "Розетки у мест", "Вагон-ресторан",
    "Перевозка животных", "Питание в пути", "Места для багажа", "Детские места",
]  # fmt: skip
# A sold-out tariff the train might have had, by the kind of its cars.
SOLD_OUT = {"sitting": ["Бизнес", "Первый класс", "Эконом+"], "berth": ["СВ", "Люкс", "Купе"]}


def train_facts(train: Train, rng: random.Random) -> Train:
    """The train with its type, badges, services, stops and sold-out tariffs."""
    sitting = all(car.kind == "sitting" for car in train.cars)
    fast = sitting and train.duration_min <= 6 * 60
    kind = "Скоростной" if fast else rng.choice(["Скорый", "Скорый", "Пассажирский"])
    badges = [badge for badge, share in (("Фирменный", 0.4), ("Двухэтажный", 0.25))
              if rng.random() < share and (badge != "Двухэтажный" or not sitting)]  # fmt: skip
    services = ["Кондиционер", "Биотуалет"] + [s for s in SERVICES[2:] if rng.random() < 0.5]
    towns = ROUTE_TOWNS.get((train.from_city, train.to_city))
    if towns is None:
        towns = ROUTE_TOWNS[train.to_city, train.from_city][::-1]
    moments = range(30, train.duration_min - 30, 25)  # a halt is shorter than 25 minutes
    halts = min(rng.randint(1, 3) if fast else rng.randint(3, 6), len(moments), len(towns))
    afters = sorted(rng.sample(moments, halts))
    picked = [towns[i] for i in sorted(rng.sample(range(len(towns)), halts))]
    stops = [Stop(town, after, rng.choice([1, 2, 2, 5, 10, 20]))
             for town, after in zip(picked, afters, strict=True)]  # fmt: skip
    kinds = {car.kind for car in train.cars}
    had = {car.tariff for car in train.cars}
    missing = [t for kind in sorted(kinds) for t in SOLD_OUT[kind] if t not in had]
    sold_out = [rng.choice(missing)] if missing and rng.random() < 0.5 else []
    return dataclasses.replace(
        train,
        kind=kind,
        badges=tuple(badges),
        services=tuple(services),
        stops=tuple(stops),
        sold_out=tuple(t for t in sold_out if t in TARIFF_FACTS),
    )


def taken_seats(size: int, rng: random.Random) -> tuple[int, ...]:
    """About a third of the car is sold; seats 1 and 2 stay free so a car never sells out."""
    return tuple(n for n in range(3, size + 1) if rng.random() < 0.3)


def build_catalog() -> CatalogData:
    rng = random.Random(SEED)
    stations: list[CityData] = [{"city": city, "stations": names} for city, names in CITIES.items()]
    trains: list[Train] = []
    number = 100
    for origin, dest, base, hours, named in ROUTES:
        for direction, (a, b) in enumerate(((origin, dest), (dest, origin))):
            for name, tariffs in named:
                number += rng.randint(2, 9)
                hour = (
                    rng.choice([5, 6, 7, 9, 12, 14, 17, 19])
                    if hours < 8
                    else rng.choice([18, 20, 21, 22, 23])
                )
                minutes = rng.choice([0, 10, 15, 25, 30, 40, 45, 55])
                duration = int(hours * 60 * rng.uniform(0.85, 1.15)) // 5 * 5
                cars: list[Car] = []
                for car_number, tariff in enumerate(tariffs, start=1):
                    kind, size, factor = TARIFFS[tariff]
                    price = int(base * factor * rng.uniform(0.9, 1.2)) // 10 * 10
                    cars.append(Car(car_number, tariff, kind, price, size, taken_seats(size, rng)))
                trains.append(
                    Train(
                        id=f"t-{len(trains) + 1:03d}",
                        number=f"{number}{'АБВГ'[direction * 2 + number % 2]}",
                        name=name,
                        from_city=a,
                        to_city=b,
                        from_station=f"{a}, {rng.choice(CITIES[a])}",
                        to_station=f"{b}, {rng.choice(CITIES[b])}",
                        departure=f"{hour:02d}:{minutes:02d}",
                        duration_min=duration,
                        cars=tuple(cars),
                    )
                )
    facts = random.Random(FACTS_SEED)
    trains = [train_facts(train, facts) for train in trains]
    passengers = [
        Passenger("Смирнова Анна Петровна", "Паспорт РФ 45 10 123456", "взрослый"),
        Passenger("Смирнов Игорь Олегович", "Паспорт РФ 45 11 654321", "взрослый"),
        Passenger("Смирнова Полина Игоревна", "Свидетельство о рождении V-МЮ 123456", "детский"),
        Passenger("Кравцова Лидия Семёновна", "Паспорт РФ 40 09 777888", "взрослый"),
    ]
    return {"cities": stations, "trains": rows(trains), "passengers": rows(passengers)}


def main(argv: list[str] | None = None) -> int:
    text = dumps(build_catalog()).encode()
    return write_or_check(
        CATALOG_PATH.parent, {CATALOG_PATH.name: text}, "services.rail.generate", argv
    )


if __name__ == "__main__":
    raise SystemExit(main())
