"""Deterministic generator for the «Отели» (hotels) catalog.

Run ``python -m services.hotels.generate`` to (re)write ``data/catalog.json``;
``python -m services.hotels.generate --check`` exits 1 if the committed file is stale.

Cities are real places with stable ids (``ch-zrh`` is Цюрих, Швейцария); hotels, their
names, districts, ratings and prices are synthetic, from one seeded RNG.
"""

from __future__ import annotations

import random
from pathlib import Path

from services.hotels.catalog import CatalogData, City, Hotel, Room
from services.kit.catalog import rows
from services.kit.generate import dumps, write_or_check

SEED = 20260915
CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"
HOTELS_PER_CITY = 6

# (cityId, cityName, countryName, price tier 1..3); the label is «Город, Страна».
CITIES: list[tuple[str, str, str, int]] = [
    ("ru-mow", "Москва", "Россия", 2),
    ("ru-led", "Санкт-Петербург", "Россия", 2),
    ("ru-kzn", "Казань", "Россия", 1),
    ("ru-aer", "Сочи", "Россия", 2),
    ("ru-kgd", "Калининград", "Россия", 1),
    ("ru-svx", "Екатеринбург", "Россия", 1),
    ("ru-ovb", "Новосибирск", "Россия", 1),
    ("ru-vvo", "Владивосток", "Россия", 1),
    ("ru-krr", "Краснодар", "Россия", 1),
    ("ru-nnv", "Нижний Новгород", "Россия", 1),
    ("by-msq", "Минск", "Беларусь", 1),
    ("kz-ala", "Алматы", "Казахстан", 1),
    ("uz-skd", "Самарканд", "Узбекистан", 1),
    ("ge-tbs", "Тбилиси", "Грузия", 1),
    ("am-evn", "Ереван", "Армения", 1),
    ("az-bak", "Баку", "Азербайджан", 2),
    ("tr-ist", "Стамбул", "Турция", 2),
    ("tr-ayt", "Анталья", "Турция", 2),
    ("ae-dxb", "Дубай", "ОАЭ", 3),
    ("ae-auh", "Абу-Даби", "ОАЭ", 3),
    ("eg-hrg", "Хургада", "Египет", 1),
    ("ch-zrh", "Цюрих", "Швейцария", 3),
    ("ch-gva", "Женева", "Швейцария", 3),
    ("at-vie", "Вена", "Австрия", 2),
    ("cz-prg", "Прага", "Чехия", 2),
    ("hu-bud", "Будапешт", "Венгрия", 1),
    ("rs-beg", "Белград", "Сербия", 1),
    ("de-ber", "Берлин", "Германия", 2),
    ("de-muc", "Мюнхен", "Германия", 2),
    ("fr-par", "Париж", "Франция", 3),
    ("fr-nce", "Ницца", "Франция", 3),
    ("it-rom", "Рим", "Италия", 2),
    ("it-mil", "Милан", "Италия", 2),
    ("it-vce", "Венеция", "Италия", 3),
    ("es-bcn", "Барселона", "Испания", 2),
    ("es-mad", "Мадрид", "Испания", 2),
    ("pt-lis", "Лиссабон", "Португалия", 2),
    ("nl-ams", "Амстердам", "Нидерланды", 3),
    ("gb-lon", "Лондон", "Великобритания", 3),
    ("gr-ath", "Афины", "Греция", 2),
    ("th-bkk", "Бангкок", "Таиланд", 1),
    ("th-hkt", "Пхукет", "Таиланд", 2),
    ("vn-han", "Ханой", "Вьетнам", 1),
    ("cn-pek", "Пекин", "Китай", 2),
    ("cn-sha", "Шанхай", "Китай", 2),
    ("kr-sel", "Сеул", "Южная Корея", 2),
    ("kr-pus", "Пусан", "Южная Корея", 2),
    ("jp-tyo", "Токио", "Япония", 3),
    ("jp-kyo", "Киото", "Япония", 3),
    ("sg-sin", "Сингапур", "Сингапур", 3),
    ("mv-mle", "Мале", "Мальдивы", 3),
]

# Invented hotel names: «<kind> «<adjective> <noun>»».
KINDS = ["Отель", "Гостиница", "Апарт-отель", "Гостевой дом", "Резиденция", "Бутик-отель"]
ADJECTIVES = [
    "Серебряный",
    "Тихий",
    "Северный",
    "Янтарный",
    "Лазурный",
    "Старый",
    "Белый",
    "Кленовый",
    "Звёздный",
    "Солнечный",
    "Дальний",
    "Медный",
    "Зелёный",
    "Уютный",
]
NOUNS = [
    "причал",
    "двор",
    "маяк",
    "сад",
    "квартал",
    "берег",
    "мост",
    "фонарь",
    "пассаж",
    "холм",
    "парус",
    "ключ",
    "бульвар",
    "флигель",
]
DISTRICTS = ["Центр", "Старый город", "Набережная", "Деловой квартал", "У вокзала", "Парковая зона"]
AMENITIES = ["Завтрак", "Бассейн", "Парковка", "Фитнес", "Спа", "Трансфер", "Wi‑Fi", "Кухня"]

# Room types: (roomType, adults it sleeps, kids it sleeps, price factor).
ROOM_TYPES: list[tuple[str, int, int, float]] = [
    ("Стандартный", 2, 1, 1.0),
    ("Улучшенный", 2, 2, 1.3),
    ("Семейный", 4, 3, 1.7),
    ("Полулюкс", 3, 2, 2.1),
    ("Люкс", 4, 2, 3.0),
]
BASE_PRICE = {1: 4200, 2: 7800, 3: 16500}  # a standard room, per night, ₽
COLORS = ["#f4c7a1", "#a8d5e2", "#c9e4ca", "#e6c9f2", "#f7e3a3", "#b8c6f5", "#f2b5b5"]


def _price(value: float) -> int:
    return round(value / 100.0) * 100


def build_catalog() -> CatalogData:
    rng = random.Random(SEED)
    cities = [City(cid, name, country, f"{name}, {country}") for cid, name, country, _ in CITIES]
    hotels: list[Hotel] = []
    for cid, _name, _country, tier in CITIES:
        used: set[str] = set()
        for n in range(1, HOTELS_PER_CITY + 1):
            while True:
                title = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
                if title not in used:
                    used.add(title)
                    break
            stars = rng.choice([2, 3, 3, 4, 4, 4, 5, 5])
            factor = (0.6 + 0.18 * stars) * rng.uniform(0.9, 1.15)
            count = rng.randint(3, 5)
            chosen = [
                ROOM_TYPES[0],
                *sorted(rng.sample(ROOM_TYPES[1:], count - 1), key=ROOM_TYPES.index),
            ]
            rooms = tuple(
                Room(rtype, adults, kids, _price(BASE_PRICE[tier] * factor * rfactor))
                for rtype, adults, kids, rfactor in chosen
            )
            hotels.append(
                Hotel(
                    id=f"h-{cid}-{n}",
                    city=cid,
                    name=f"{rng.choice(KINDS)} «{title}»",
                    stars=stars,
                    rating=round(rng.uniform(7.0, 9.8), 1),
                    district=rng.choice(DISTRICTS),
                    amenities=tuple(sorted(rng.sample(AMENITIES, 3), key=AMENITIES.index)),
                    color=rng.choice(COLORS),
                    rooms=rooms,
                )
            )
    return {"cities": rows(cities), "hotels": rows(hotels)}


def main(argv: list[str] | None = None) -> int:
    text = dumps(build_catalog()).encode()
    return write_or_check(
        CATALOG_PATH.parent, {CATALOG_PATH.name: text}, "services.hotels.generate", argv
    )


if __name__ == "__main__":
    raise SystemExit(main())
