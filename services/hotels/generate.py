"""Deterministic generator for the «Отели» (hotels) catalog.

Run ``python -m services.hotels.generate`` to (re)write ``data/catalog.json``;
``python -m services.hotels.generate --check`` exits 1 if the committed file is stale.

Cities are real places with stable ids (``ch-zrh`` is Цюрих, Швейцария); hotels, their
names, districts, ratings and prices are synthetic, from one seeded RNG.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

from services.hotels.catalog import KINDS as PROPERTY_KINDS
from services.hotels.catalog import CatalogData, City, Hotel, Opinion, Room
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
# The facts the results' filters and the hotel page show, drawn per hotel from an RNG of its
# own (so the names, ratings and rooms above stay what they were): a district's direction
# from the centre on the map (degrees) and its distance to the centre (km, lowest, highest).
DISTRICT_PLACE = {
    "Центр": (200, 0.2, 1.2),
    "Старый город": (300, 0.6, 2.0),
    "Набережная": (90, 1.0, 3.2),
    "Деловой квартал": (20, 2.0, 5.0),
    "У вокзала": (150, 1.4, 4.0),
    "Парковая зона": (240, 3.0, 6.8),
}
MEALS = ["Без питания", "Завтрак включён", "Полупансион", "Всё включено"]
PAYMENTS = ["Оплата на месте", "Предоплата онлайн"]
BEDS = ["Двуспальная кровать", "Две отдельные кровати"]
BADGES = ["", "", "Хороший вариант", "Скидка 10%", "Новинка", "Часто бронируют", "Лучшая цена"]
CHECKIN = ["13:00", "14:00", "14:00", "15:00"]
CHECKOUT = ["11:00", "12:00", "12:00"]
PLACES = [
    "Главная площадь",
    "Городской музей",
    "Центральный парк",
    "Театр оперы и балета",
    "Железнодорожный вокзал",
    "Торговый центр",
    "Набережная реки",
    "Старый рынок",
    "Ботанический сад",
    "Станция метро",
    "Кафедральный собор",
    "Аэроэкспресс",
]
GUESTS = ["Марина", "Алексей", "Ольга", "Дмитрий", "Ирина", "Сергей", "Наталья", "Павел"]
TRIPS = ["Пара", "Семья с детьми", "Деловая поездка", "Один путешественник", "Друзья"]
LIKED = [
    "Чистый номер и удобная кровать.",
    "Очень вежливый персонал, помогли с такси.",
    "Отличное расположение, всё рядом.",
    "Вкусный завтрак, большой выбор.",
    "Тихо, хорошо выспались.",
    "Красивый вид из окна.",
]
DISLIKED = [
    "Слабый напор воды в душе.",
    "Маленький лифт.",
    "Шумно по вечерам со стороны улицы.",
    "Заселили на полчаса позже.",
    "Мало розеток у кровати.",
    "Ничего, всё понравилось.",
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
            name = f"{rng.choice(KINDS)} «{title}»"
            rating = round(rng.uniform(7.0, 9.8), 1)
            district = rng.choice(DISTRICTS)
            amenities = tuple(sorted(rng.sample(AMENITIES, 3), key=AMENITIES.index))
            hotels.append(
                Hotel(
                    id=f"h-{cid}-{n}",
                    city=cid,
                    name=name,
                    stars=stars,
                    rating=rating,
                    district=district,
                    amenities=amenities,
                    color=rng.choice(COLORS),
                    rooms=rooms,
                    **_facts(f"h-{cid}-{n}", name, rating, district, amenities),
                )
            )
    return {"cities": rows(cities), "hotels": rows(hotels)}


def _facts(
    hotel_id: str, name: str, rating: float, district: str, amenities: tuple[str, ...]
) -> dict[str, Any]:
    """A hotel's facts beyond its name, stars, rating and rooms, from an RNG of its own: its
    kind (from its name), where it stands (km to the centre, a point of the city's map in
    per cent), meals, reviews, cancellation and payment, beds, a badge, check-in and -out,
    the places nearby and three guests' reviews."""
    rng = random.Random(f"{SEED}/{hotel_id}")
    angle, low, high = DISTRICT_PLACE[district]
    distance = round(rng.uniform(low, high), 1)
    turn = math.radians(angle + rng.uniform(-25, 25))
    meals = ["Без питания"] + (["Завтрак включён"] if "Завтрак" in amenities else [])
    meals += [m for m in MEALS[2:] if rng.random() < 0.2]
    payment = [p for p in PAYMENTS if rng.random() < 0.7] or [rng.choice(PAYMENTS)]
    beds = [b for b in BEDS if rng.random() < 0.7] or [BEDS[0]]
    places = sorted(rng.sample(PLACES, 4), key=PLACES.index)
    return {
        "kind": next(k for k, prefixes in PROPERTY_KINDS.items() if name.startswith(prefixes)),
        "distance": distance,
        "x": round(50 + 6.5 * distance * math.cos(turn), 1),
        "y": round(50 + 6.5 * distance * math.sin(turn), 1),
        "meals": tuple(meals),
        "reviews": rng.randint(12, 2400),
        "free_cancel": rng.random() < 0.6,
        "payment": tuple(payment),
        "beds": tuple(beds),
        "badge": rng.choice(BADGES),
        "checkin": rng.choice(CHECKIN),
        "checkout": rng.choice(CHECKOUT),
        "nearby": tuple((place, round(rng.uniform(0.2, 3.5), 1)) for place in places),
        "opinions": tuple(
            Opinion(
                author=rng.choice(GUESTS),
                trip=rng.choice(TRIPS),
                score=rng.randint(max(5, round(rating) - 2), 10),
                liked=rng.choice(LIKED),
                disliked=rng.choice(DISLIKED),
            )
            for _ in range(3)
        ),
    }


def main(argv: list[str] | None = None) -> int:
    text = dumps(build_catalog()).encode()
    return write_or_check(
        CATALOG_PATH.parent, {CATALOG_PATH.name: text}, "services.hotels.generate", argv
    )


if __name__ == "__main__":
    raise SystemExit(main())
