"""Deterministic generator for the «Продукты» (grocery) catalog.

Run ``python -m services.grocery.generate`` to (re)write ``data/catalog.json``;
``python -m services.grocery.generate --check`` exits 1 if the committed file is stale.

Everything here is synthetic: producer names are invented, prices are plausible
Russian retail prices for 2026, and the whole catalog comes from one seeded RNG.
Only the standard library is used.
"""

from __future__ import annotations

import colorsys
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from services.grocery.catalog import CatalogData, Category, Product
from services.kit.catalog import rows
from services.kit.generate import dumps, write_or_check

SEED = 20260901
CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"

PRICE_MIN = 39
PRICE_MAX = 1490
STOCK_MIN = 5
STOCK_MAX = 60

# The site's five-item menu, in menu order.
CATEGORIES: list[Category] = [
    Category("produce", "Овощи и фрукты", "🍎"),
    Category("dairy", "Молоко, сыр, яйца", "🥛"),
    Category("bakery", "Хлеб и выпечка", "🍞"),
    Category("meat", "Мясо и рыба", "🥩"),
    Category("pantry", "Бакалея", "🌾"),
]

# How many products each category gets (sums to 277).
TARGETS: dict[str, int] = {"produce": 58, "dairy": 62, "bakery": 48, "meat": 52, "pantry": 57}

# Invented producers (23), grouped by what they make. ``None`` means a loose,
# unbranded item (imported fruit sold by weight).
PRODUCERS: dict[str, list[str | None]] = {
    "produce": ["Огород Ефимыча", "Зелёная межа", "Вишнёвый склон", "Солнечный косогор"],
    "imported": [None, "Тёплый берег"],
    "dairy": ["Берёзовый хутор", "Три ракиты", "Гусиный брод", "Ольхов луг"],
    "bakery": ["Калачёв и сыновья", "Коврижкин двор", "Тёплая горница", "Мельник Прохор"],
    "meat": ["Рябиновый посад", "Ковыльная балка", "Усадьба Полозова"],
    "fish": ["Студёная губа", "Северная верста", "Ершов улов"],
    "pantry": ["Крупяной ряд", "Сытый скворец", "Медовый овраг", "Ладная кладовая"],
}


@dataclass(frozen=True)
class Variant:
    text: str  # e.g. "пастеризованное 3,2%"; may be empty
    weight: str  # e.g. "930 мл"
    factor: float = 1.0  # price multiplier relative to the base price
    unit: str | None = None  # overrides the base unit


@dataclass(frozen=True)
class Base:
    name: str
    emoji: str
    unit: str
    price: int
    group: str  # key into PRODUCERS
    variants: tuple[Variant, ...]


def _b(name: str, emoji: str, unit: str, price: int, group: str, *variants: Variant) -> Base:
    return Base(name, emoji, unit, price, group, variants)


V = Variant

BASES: dict[str, list[Base]] = {
    "produce": [
        _b(
            "Яблоки Гала",
            "🍎",
            "кг",
            189,
            "produce",
            V("", "1 кг"),
            V("фасованные", "1,5 кг", 1.4, "уп"),
        ),
        _b("Яблоки Гренни Смит", "🍏", "кг", 219, "produce", V("", "1 кг")),
        _b("Яблоки Антоновка", "🍏", "кг", 129, "produce", V("", "1 кг")),
        _b("Груши Конференция", "🍐", "кг", 279, "imported", V("", "1 кг")),
        _b("Бананы", "🍌", "кг", 159, "imported", V("", "1 кг"), V("мини", "500 г", 1.1, "уп")),
        _b(
            "Апельсины",
            "🍊",
            "кг",
            179,
            "imported",
            V("", "1 кг"),
            V("для сока", "2 кг", 1.6, "уп"),
        ),
        _b("Мандарины", "🍊", "кг", 229, "imported", V("", "1 кг")),
        _b("Лимоны", "🍋", "уп", 119, "imported", V("", "3 шт")),
        _b("Киви", "🥝", "кг", 249, "imported", V("", "1 кг"), V("", "6 шт", 0.7, "уп")),
        _b("Авокадо Хасс", "🥑", "уп", 259, "imported", V("", "2 шт")),
        _b(
            "Виноград Кишмиш",
            "🍇",
            "уп",
            269,
            "imported",
            V("белый", "500 г"),
            V("розовый", "500 г", 1.1),
        ),
        _b(
            "Клубника",
            "🍓",
            "уп",
            349,
            "produce",
            V("садовая", "250 г"),
            V("садовая", "500 г", 1.8),
        ),
        _b("Голубика", "🫐", "уп", 299, "produce", V("", "125 г")),
        _b(
            "Томаты черри",
            "🍅",
            "уп",
            189,
            "produce",
            V("красные", "250 г"),
            V("жёлтые", "250 г", 1.1),
        ),
        _b("Томаты розовые", "🍅", "кг", 329, "produce", V("", "1 кг"), V("", "600 г", 0.65, "уп")),
        _b("Огурцы гладкие", "🥒", "кг", 199, "produce", V("", "1 кг"), V("", "450 г", 0.5, "уп")),
        _b("Огурцы короткоплодные", "🥒", "кг", 259, "produce", V("", "1 кг")),
        _b(
            "Картофель молодой",
            "🥔",
            "кг",
            79,
            "produce",
            V("", "1 кг"),
            V("мытый", "2,5 кг", 2.2, "уп"),
        ),
        _b("Морковь мытая", "🥕", "кг", 69, "produce", V("", "1 кг")),
        _b("Лук репчатый", "🧅", "кг", 55, "produce", V("", "1 кг"), V("", "3 кг", 2.6, "уп")),
        _b("Чеснок", "🧄", "уп", 89, "produce", V("", "100 г")),
        _b(
            "Перец сладкий",
            "🫑",
            "кг",
            349,
            "produce",
            V("красный", "1 кг"),
            V("жёлтый", "1 кг", 1.05),
        ),
        _b("Капуста белокочанная", "🥬", "кг", 49, "produce", V("", "1 кг")),
        _b("Брокколи", "🥦", "уп", 219, "produce", V("", "400 г")),
        _b(
            "Шампиньоны", "🍄", "уп", 189, "produce", V("", "400 г"), V("королевские", "400 г", 1.3)
        ),
        _b("Баклажаны", "🍆", "кг", 259, "produce", V("", "1 кг")),
        _b("Кукуруза в початках", "🌽", "уп", 159, "produce", V("", "2 шт")),
    ],
    "dairy": [
        _b(
            "Молоко",
            "🥛",
            "шт",
            95,
            "dairy",
            V("пастеризованное 1,5%", "930 мл", 0.95),
            V("пастеризованное 2,5%", "930 мл"),
            V("пастеризованное 3,2%", "930 мл", 1.08),
            V("пастеризованное 3,2%", "1,4 л", 1.45),
            V("ультрапастеризованное 3,2%", "1 л", 1.12, "л"),
        ),
        _b("Молоко топлёное", "🥛", "шт", 109, "dairy", V("4%", "500 мл")),
        _b(
            "Кефир",
            "🥛",
            "шт",
            99,
            "dairy",
            V("1%", "900 г", 0.95),
            V("2,5%", "900 г"),
            V("3,2%", "900 г", 1.06),
        ),
        _b("Ряженка", "🥛", "шт", 85, "dairy", V("4%", "500 г")),
        _b("Сметана", "🥣", "шт", 119, "dairy", V("15%", "300 г"), V("20%", "300 г", 1.1)),
        _b(
            "Творог",
            "🥣",
            "шт",
            139,
            "dairy",
            V("5%", "200 г"),
            V("9%", "200 г", 1.06),
            V("обезжиренный", "200 г", 0.95),
        ),
        _b("Творог зернёный", "🥣", "шт", 149, "dairy", V("5%", "300 г")),
        _b(
            "Йогурт питьевой",
            "🥛",
            "шт",
            75,
            "dairy",
            V("клубника 2,5%", "270 г"),
            V("персик 2,5%", "270 г"),
        ),
        _b(
            "Йогурт греческий",
            "🥣",
            "шт",
            89,
            "dairy",
            V("2%", "140 г"),
            V("черника 2%", "140 г", 1.05),
        ),
        _b("Сыр полутвёрдый", "🧀", "шт", 279, "dairy", V("45%", "200 г"), V("50%", "200 г", 1.06)),
        _b("Сыр Гауда", "🧀", "шт", 299, "dairy", V("45%", "200 г"), V("45%", "400 г", 1.85)),
        _b("Сыр Моцарелла", "🧀", "шт", 179, "dairy", V("45%", "125 г")),
        _b(
            "Сыр плавленый",
            "🧀",
            "шт",
            109,
            "dairy",
            V("сливочный", "150 г"),
            V("с грибами", "150 г"),
        ),
        _b("Брынза", "🧀", "шт", 239, "dairy", V("40%", "250 г")),
        _b(
            "Масло сливочное",
            "🧈",
            "шт",
            229,
            "dairy",
            V("72,5%", "180 г", 0.9),
            V("82,5%", "180 г"),
        ),
        _b(
            "Яйца куриные",
            "🥚",
            "уп",
            129,
            "dairy",
            V("С1", "10 шт"),
            V("С0", "10 шт", 1.15),
            V("С1", "20 шт", 1.9),
        ),
        _b("Яйца перепелиные", "🥚", "уп", 149, "dairy", V("", "20 шт")),
        _b("Сливки", "🥛", "шт", 199, "dairy", V("10%", "500 мл"), V("33%", "500 мл", 1.9)),
        _b(
            "Сырок глазированный",
            "🍫",
            "шт",
            49,
            "dairy",
            V("ванильный", "45 г"),
            V("с варёной сгущёнкой", "45 г", 1.1),
        ),
    ],
    "bakery": [
        _b(
            "Хлеб бородинский", "🍞", "шт", 75, "bakery", V("", "400 г"), V("нарезка", "300 г", 0.9)
        ),
        _b("Батон нарезной", "🥖", "шт", 59, "bakery", V("", "400 г")),
        _b("Хлеб белый формовой", "🍞", "шт", 62, "bakery", V("", "550 г")),
        _b(
            "Хлеб цельнозерновой",
            "🍞",
            "шт",
            109,
            "bakery",
            V("", "350 г"),
            V("с семенами льна", "350 г", 1.1),
        ),
        _b("Хлеб ржано-пшеничный", "🍞", "шт", 69, "bakery", V("", "500 г")),
        _b("Багет французский", "🥖", "шт", 85, "bakery", V("", "250 г")),
        _b("Лаваш армянский", "🫓", "уп", 65, "bakery", V("тонкий", "200 г")),
        _b(
            "Круассаны",
            "🥐",
            "уп",
            219,
            "bakery",
            V("классические", "4 шт"),
            V("с шоколадом", "4 шт", 1.15),
        ),
        _b("Баранки", "🥯", "уп", 89, "bakery", V("ванильные", "300 г"), V("с маком", "300 г")),
        _b("Булочки для бургеров", "🍔", "уп", 119, "bakery", V("с кунжутом", "4 шт")),
        _b("Пряники", "🍪", "уп", 119, "bakery", V("медовые", "350 г"), V("мятные", "350 г")),
        _b(
            "Печенье овсяное",
            "🍪",
            "уп",
            99,
            "bakery",
            V("", "300 г"),
            V("с изюмом", "300 г", 1.05),
        ),
        _b("Кекс", "🧁", "шт", 189, "bakery", V("с изюмом", "300 г")),
        _b(
            "Пирожки печёные",
            "🥟",
            "уп",
            99,
            "bakery",
            V("с капустой", "2 шт"),
            V("с яблоком", "2 шт"),
        ),
        _b(
            "Рулет бисквитный",
            "🍰",
            "шт",
            169,
            "bakery",
            V("вишнёвый", "300 г"),
            V("с варёной сгущёнкой", "300 г"),
        ),
        _b("Торт медовый", "🎂", "шт", 499, "bakery", V("", "500 г"), V("", "1 кг", 1.85)),
        _b("Хлебцы ржаные", "🌾", "уп", 85, "bakery", V("", "100 г")),
        _b("Ватрушка", "🥧", "уп", 109, "bakery", V("с творогом", "2 шт")),
        _b(
            "Пончики",
            "🍩",
            "уп",
            159,
            "bakery",
            V("сахарные", "4 шт"),
            V("с вареньем", "4 шт", 1.1),
        ),
    ],
    "meat": [
        _b(
            "Филе куриное",
            "🍗",
            "уп",
            279,
            "meat",
            V("охлаждённое", "500 г"),
            V("охлаждённое", "1 кг", 1.85),
        ),
        _b("Бёдра куриные", "🍗", "уп", 299, "meat", V("охлаждённые", "1 кг")),
        _b("Крылья куриные", "🍗", "уп", 249, "meat", V("охлаждённые", "800 г")),
        _b("Тушка цыплёнка-бройлера", "🍗", "шт", 449, "meat", V("охлаждённая", "1,6 кг")),
        _b("Филе грудки индейки", "🍗", "уп", 429, "meat", V("охлаждённое", "600 г")),
        _b("Вырезка говяжья", "🥩", "уп", 949, "meat", V("охлаждённая", "500 г")),
        _b("Фарш говяжий", "🥩", "уп", 349, "meat", V("", "400 г")),
        _b("Фарш домашний", "🥩", "уп", 319, "meat", V("свинина и говядина", "500 г")),
        _b("Шейка свиная", "🥩", "уп", 529, "meat", V("охлаждённая", "800 г")),
        _b("Рёбра свиные", "🍖", "уп", 449, "meat", V("для запекания", "1 кг")),
        _b("Сосиски молочные", "🌭", "уп", 279, "meat", V("", "450 г")),
        _b("Колбаса варёная Докторская", "🌭", "шт", 369, "meat", V("", "400 г")),
        _b("Бекон", "🥓", "уп", 219, "meat", V("сырокопчёный, нарезка", "150 г")),
        _b(
            "Пельмени",
            "🥟",
            "уп",
            449,
            "meat",
            V("говяжьи", "800 г"),
            V("из индейки", "800 г", 1.05),
        ),
        _b(
            "Сёмга",
            "🐟",
            "уп",
            549,
            "fish",
            V("слабосолёная, ломтики", "150 г"),
            V("филе-кусок охлаждённый", "300 г", 2.1),
        ),
        _b("Форель", "🐟", "уп", 589, "fish", V("слабосолёная, филе-кусок", "200 г")),
        _b("Филе минтая", "🐟", "уп", 399, "fish", V("замороженное", "1 кг")),
        _b("Филе трески", "🐟", "уп", 549, "fish", V("замороженное", "500 г")),
        _b(
            "Скумбрия",
            "🐟",
            "уп",
            299,
            "fish",
            V("холодного копчения", "300 г"),
            V("горячего копчения", "300 г", 1.05),
        ),
        _b("Сельдь", "🐟", "уп", 199, "fish", V("филе в масле", "250 г")),
        _b(
            "Креветки",
            "🍤",
            "уп",
            799,
            "fish",
            V("варёно-мороженые 70/90", "500 г"),
            V("варёно-мороженые 90/120", "500 г", 0.85),
        ),
        _b("Кальмар", "🦑", "уп", 449, "fish", V("тушка замороженная", "500 г")),
        _b("Крабовые палочки", "🦀", "уп", 139, "fish", V("", "200 г")),
    ],
    "pantry": [
        _b(
            "Крупа гречневая ядрица",
            "🌾",
            "уп",
            109,
            "pantry",
            V("", "900 г"),
            V("", "450 г", 0.58),
        ),
        _b("Рис круглозёрный", "🍚", "уп", 99, "pantry", V("", "900 г")),
        _b("Рис длиннозёрный", "🍚", "уп", 129, "pantry", V("пропаренный", "900 г")),
        _b("Рис басмати", "🍚", "уп", 189, "pantry", V("", "500 г")),
        _b(
            "Хлопья овсяные",
            "🥣",
            "уп",
            79,
            "pantry",
            V("", "500 г"),
            V("быстрого приготовления", "400 г"),
        ),
        _b("Пшено шлифованное", "🌾", "уп", 69, "pantry", V("", "800 г")),
        _b("Макароны спагетти", "🍝", "уп", 95, "pantry", V("", "450 г")),
        _b("Макароны перья", "🍝", "уп", 89, "pantry", V("", "450 г")),
        _b(
            "Мука пшеничная",
            "🌾",
            "уп",
            119,
            "pantry",
            V("высший сорт", "2 кг"),
            V("высший сорт", "1 кг", 0.55),
        ),
        _b("Сахар-песок", "🍬", "уп", 89, "pantry", V("", "1 кг")),
        _b(
            "Соль",
            "🧂",
            "уп",
            39,
            "pantry",
            V("поваренная йодированная", "1 кг"),
            V("морская мелкая", "500 г", 1.8),
        ),
        _b(
            "Масло подсолнечное",
            "🌻",
            "шт",
            149,
            "pantry",
            V("рафинированное", "1 л", 1.0, "л"),
            V("нерафинированное", "1 л", 1.05, "л"),
        ),
        _b("Масло оливковое", "🫒", "шт", 899, "pantry", V("первого холодного отжима", "500 мл")),
        _b("Мёд цветочный", "🍯", "шт", 449, "pantry", V("", "500 г")),
        _b("Мёд гречишный", "🍯", "шт", 339, "pantry", V("", "250 г")),
        _b("Кофе молотый", "☕", "уп", 549, "pantry", V("арабика", "250 г")),
        _b("Кофе в зёрнах", "☕", "уп", 1290, "pantry", V("арабика", "1 кг")),
        _b(
            "Чай чёрный",
            "🍵",
            "уп",
            169,
            "pantry",
            V("листовой", "100 г"),
            V("в пакетиках", "25 шт", 0.9),
        ),
        _b("Чай зелёный", "🍵", "уп", 199, "pantry", V("с жасмином", "100 г")),
        _b("Фасоль красная", "🫘", "шт", 119, "pantry", V("консервированная", "400 г")),
        _b("Горошек зелёный", "🥫", "шт", 99, "pantry", V("консервированный", "400 г")),
        _b("Кукуруза сладкая", "🥫", "шт", 109, "pantry", V("консервированная", "340 г")),
        _b("Томатная паста", "🥫", "шт", 89, "pantry", V("", "270 г")),
        _b("Шоколад горький", "🍫", "шт", 139, "pantry", V("72%", "90 г"), V("85%", "90 г", 1.1)),
        _b("Шоколад молочный", "🍫", "шт", 119, "pantry", V("с фундуком", "90 г")),
        _b("Арахис жареный", "🥜", "уп", 99, "pantry", V("солёный", "150 г")),
        _b("Варенье клубничное", "🍓", "шт", 229, "pantry", V("", "350 г")),
        _b("Сок яблочный", "🧃", "шт", 189, "pantry", V("прямого отжима", "1 л", 1.0, "л")),
    ],
}

# Look-alikes that are always in the catalog: same base and producer, differing
# only in fat percentage or pack size, so a task prompt must be read precisely.
# Each entry: (base name, producer, variant text, weight).
LOOKALIKES: list[tuple[str, str | None, str, str]] = [
    ("Молоко", "Берёзовый хутор", "пастеризованное 2,5%", "930 мл"),
    ("Молоко", "Берёзовый хутор", "пастеризованное 3,2%", "930 мл"),
    ("Молоко", "Берёзовый хутор", "пастеризованное 3,2%", "1,4 л"),
    ("Кефир", "Три ракиты", "1%", "900 г"),
    ("Кефир", "Три ракиты", "3,2%", "900 г"),
    ("Крупа гречневая ядрица", "Крупяной ряд", "", "900 г"),
    ("Крупа гречневая ядрица", "Крупяной ряд", "", "450 г"),
    ("Шоколад горький", "Сытый скворец", "72%", "90 г"),
    ("Шоколад горький", "Сытый скворец", "85%", "90 г"),
    ("Филе куриное", "Рябиновый посад", "охлаждённое", "500 г"),
    ("Филе куриное", "Рябиновый посад", "охлаждённое", "1 кг"),
    ("Киви", None, "", "1 кг"),
    ("Киви", None, "", "6 шт"),
]

# Per 100 g: kcal, protein, fat, carbohydrates (typical values of each base product; a dairy
# product's fat is its title's percentage where it states one).
NUTRITION: dict[str, tuple[int, float, float, float]] = {
    "Яблоки Гала": (52, 0.4, 0.4, 11.8),
    "Яблоки Гренни Смит": (48, 0.4, 0.2, 10.6),
    "Яблоки Антоновка": (47, 0.4, 0.4, 9.8),
    "Груши Конференция": (57, 0.4, 0.3, 10.9),
    "Бананы": (96, 1.5, 0.2, 21.8),
    "Апельсины": (43, 0.9, 0.2, 8.1),
    "Мандарины": (38, 0.8, 0.2, 7.5),
    "Лимоны": (34, 0.9, 0.1, 3.0),
    "Киви": (47, 0.8, 0.4, 8.1),
    "Авокадо Хасс": (160, 2.0, 14.7, 1.8),
    "Виноград Кишмиш": (72, 0.6, 0.2, 15.4),
    "Клубника": (41, 0.8, 0.4, 7.5),
    "Голубика": (39, 1.0, 0.5, 6.6),
    "Томаты розовые": (20, 1.1, 0.2, 3.7),
    "Томаты черри": (18, 0.8, 0.1, 2.8),
    "Огурцы гладкие": (14, 0.8, 0.1, 2.5),
    "Огурцы короткоплодные": (15, 0.8, 0.1, 2.8),
    "Перец сладкий": (27, 1.3, 0.1, 5.3),
    "Баклажаны": (24, 1.2, 0.1, 4.5),
    "Картофель молодой": (61, 2.4, 0.4, 12.4),
    "Морковь мытая": (35, 1.3, 0.1, 6.9),
    "Лук репчатый": (41, 1.4, 0.2, 8.2),
    "Чеснок": (143, 6.5, 0.5, 29.9),
    "Капуста белокочанная": (28, 1.8, 0.1, 4.7),
    "Брокколи": (28, 3.0, 0.4, 5.2),
    "Шампиньоны": (27, 4.3, 1.0, 0.1),
    "Кукуруза в початках": (101, 3.3, 1.2, 19.0),
    "Молоко": (59, 2.9, 3.2, 4.7),
    "Молоко топлёное": (67, 3.0, 4.0, 4.7),
    "Кефир": (53, 2.9, 2.5, 4.0),
    "Ряженка": (67, 2.8, 4.0, 4.2),
    "Йогурт питьевой": (71, 2.8, 1.5, 11.8),
    "Йогурт греческий": (66, 8.0, 2.0, 4.0),
    "Сливки": (119, 2.8, 10.0, 4.1),
    "Сметана": (206, 2.8, 20.0, 3.2),
    "Творог": (121, 17.0, 5.0, 1.8),
    "Творог зернёный": (105, 12.0, 5.0, 3.0),
    "Сыр Гауда": (356, 25.0, 27.0, 0.0),
    "Сыр Моцарелла": (240, 18.0, 17.0, 1.0),
    "Сыр полутвёрдый": (350, 24.0, 28.0, 0.0),
    "Сыр плавленый": (257, 10.0, 22.0, 4.0),
    "Брынза": (260, 17.9, 20.1, 0.4),
    "Масло сливочное": (748, 0.5, 82.5, 0.8),
    "Яйца куриные": (157, 12.7, 11.5, 0.7),
    "Яйца перепелиные": (168, 11.9, 13.1, 0.6),
    "Сырок глазированный": (407, 8.5, 27.8, 32.0),
    "Хлеб белый формовой": (242, 8.1, 1.0, 48.8),
    "Хлеб бородинский": (208, 6.8, 1.3, 40.7),
    "Хлеб ржано-пшеничный": (214, 6.6, 1.2, 42.2),
    "Хлеб цельнозерновой": (228, 9.0, 2.5, 41.0),
    "Батон нарезной": (262, 7.5, 2.9, 51.4),
    "Багет французский": (262, 7.5, 2.9, 51.4),
    "Лаваш армянский": (236, 7.9, 1.0, 47.6),
    "Хлебцы ржаные": (310, 11.0, 2.7, 58.0),
    "Булочки для бургеров": (289, 8.7, 4.3, 53.0),
    "Круассаны": (406, 8.2, 21.0, 45.8),
    "Пончики": (396, 5.8, 21.0, 46.0),
    "Баранки": (336, 10.4, 1.3, 69.9),
    "Печенье овсяное": (437, 6.5, 14.4, 71.8),
    "Пряники": (364, 5.6, 4.7, 75.4),
    "Кекс": (389, 5.9, 17.0, 53.6),
    "Рулет бисквитный": (352, 4.9, 12.0, 56.0),
    "Торт медовый": (422, 5.0, 20.0, 56.0),
    "Ватрушка": (305, 10.0, 9.0, 46.0),
    "Пирожки печёные": (290, 7.9, 8.0, 46.0),
    "Филе куриное": (113, 23.6, 1.9, 0.4),
    "Бёдра куриные": (185, 16.8, 13.2, 0.0),
    "Крылья куриные": (186, 19.2, 12.2, 0.0),
    "Тушка цыплёнка-бройлера": (219, 17.6, 16.1, 0.0),
    "Филе грудки индейки": (112, 25.0, 1.0, 0.0),
    "Вырезка говяжья": (158, 20.0, 8.3, 0.0),
    "Фарш говяжий": (254, 17.2, 20.0, 0.0),
    "Фарш домашний": (263, 15.0, 22.0, 0.0),
    "Шейка свиная": (267, 13.0, 24.0, 0.0),
    "Рёбра свиные": (321, 15.2, 29.0, 0.0),
    "Бекон": (500, 23.0, 45.0, 0.0),
    "Колбаса варёная Докторская": (257, 12.8, 22.2, 1.5),
    "Сосиски молочные": (266, 11.0, 23.9, 1.6),
    "Пельмени": (275, 11.9, 12.4, 29.0),
    "Сёмга": (202, 22.5, 12.5, 0.0),
    "Форель": (148, 19.9, 7.6, 0.0),
    "Скумбрия": (191, 18.0, 13.2, 0.0),
    "Сельдь": (217, 19.8, 15.4, 0.0),
    "Филе трески": (78, 17.7, 0.7, 0.0),
    "Филе минтая": (72, 15.9, 0.9, 0.0),
    "Креветки": (95, 18.9, 2.2, 0.0),
    "Кальмар": (98, 18.0, 2.2, 2.0),
    "Крабовые палочки": (88, 6.0, 1.0, 10.0),
    "Крупа гречневая ядрица": (313, 12.6, 3.3, 62.1),
    "Рис длиннозёрный": (344, 7.0, 0.6, 77.3),
    "Рис круглозёрный": (333, 7.0, 1.0, 74.0),
    "Рис басмати": (350, 7.5, 0.5, 78.0),
    "Пшено шлифованное": (342, 11.5, 3.3, 66.5),
    "Хлопья овсяные": (352, 12.3, 6.2, 61.8),
    "Макароны спагетти": (344, 10.4, 1.1, 71.5),
    "Макароны перья": (344, 10.4, 1.1, 71.5),
    "Мука пшеничная": (334, 10.3, 1.1, 68.9),
    "Сахар-песок": (399, 0.0, 0.0, 99.8),
    "Соль": (0, 0.0, 0.0, 0.0),
    "Масло подсолнечное": (899, 0.0, 99.9, 0.0),
    "Масло оливковое": (898, 0.0, 99.8, 0.0),
    "Мёд цветочный": (329, 0.8, 0.0, 81.5),
    "Мёд гречишный": (309, 0.5, 0.0, 76.4),
    "Варенье клубничное": (285, 0.3, 0.1, 74.0),
    "Чай чёрный": (0, 0.0, 0.0, 0.0),
    "Чай зелёный": (0, 0.0, 0.0, 0.0),
    "Кофе в зёрнах": (331, 13.9, 14.4, 4.1),
    "Кофе молотый": (331, 13.9, 14.4, 4.1),
    "Шоколад молочный": (547, 6.9, 35.7, 54.4),
    "Шоколад горький": (539, 6.2, 35.4, 48.2),
    "Арахис жареный": (626, 26.3, 52.0, 9.9),
    "Фасоль красная": (99, 6.7, 0.3, 13.0),
    "Горошек зелёный": (55, 3.6, 0.1, 9.8),
    "Кукуруза сладкая": (58, 2.2, 0.4, 11.2),
    "Томатная паста": (99, 4.8, 0.0, 19.0),
    "Сок яблочный": (46, 0.5, 0.1, 10.1),
}

# What the product page says of each category: how the goods are chosen and kept.
ABOUT: dict[str, tuple[str, str]] = {
    "produce": (
        "Отбираем на складе каждое утро: без вмятин и пятен.",
        "Хранить при +2…+8 °C.",
    ),
    "dairy": (
        "Привозим охлаждённым, не позже чем через сутки после розлива.",
        "Хранить при +2…+6 °C.",
    ),
    "bakery": (
        "Выпечка этого утра: пекарни привозят её к семи часам.",
        "Хранить при комнатной температуре в упаковке.",
    ),
    "meat": (
        "Везём в термобоксах, от склада до двери не больше часа.",
        "Хранить при 0…+4 °C или заморозить.",
    ),
    "pantry": (
        "Храним на сухом складе, проверяем сроки каждую неделю.",
        "Хранить в сухом месте при комнатной температуре.",
    ),
}

# Showcase ("Витрина") products per category: 12 in all, one base each.
SHOWCASE_PER_CATEGORY: dict[str, int] = {
    "produce": 3,
    "dairy": 3,
    "bakery": 2,
    "meat": 2,
    "pantry": 2,
}


class _Row(TypedDict):
    """A product before its id: what it shows, and its base product (for the showcase)."""

    title: str
    category: str
    price: int
    unit: str
    weight: str
    stock: int
    showcase: bool
    color: str
    emoji: str
    description: str
    storage: str
    nutrition: dict[str, float]
    _base: str


@dataclass(frozen=True)
class _Pick:
    base: Base
    producer: str | None
    variant: Variant

    @property
    def key(self) -> tuple[str, str | None, str, str]:
        return (self.base.name, self.producer, self.variant.text, self.variant.weight)


def _candidates(cat_id: str) -> list[_Pick]:
    return [
        _Pick(base, producer, variant)
        for base in BASES[cat_id]
        for variant in base.variants
        for producer in PRODUCERS[base.group]
    ]


def _select(rng: random.Random, cat_id: str) -> list[_Pick]:
    """Choose TARGETS[cat_id] products: forced look-alikes, one per base, then random fill."""
    cands = _candidates(cat_id)
    by_key = {c.key: c for c in cands}
    chosen: dict[tuple[str, str | None, str, str], _Pick] = {}
    for key in LOOKALIKES:
        if key[0] in {b.name for b in BASES[cat_id]}:
            chosen[key] = by_key[key]  # KeyError here means a typo in LOOKALIKES
    for base in BASES[cat_id]:
        if not any(p.base.name == base.name for p in chosen.values()):
            pick = rng.choice([c for c in cands if c.base.name == base.name])
            chosen[pick.key] = pick
    rest = [c for c in cands if c.key not in chosen]
    rng.shuffle(rest)
    need = TARGETS[cat_id] - len(chosen)
    if need < 0 or need > len(rest):
        raise ValueError(f"cannot pick {TARGETS[cat_id]} products for {cat_id!r}")
    for pick in rest[:need]:
        chosen[pick.key] = pick
    return list(chosen.values())


def _title(pick: _Pick, with_weight: bool) -> str:
    parts = [pick.base.name]
    if pick.producer:
        parts.append(f"«{pick.producer}»")
    if pick.variant.text:
        parts.append(pick.variant.text)
    title = " ".join(parts)
    if with_weight:
        title += f", {pick.variant.weight}"
    return title


def _nutrition(pick: _Pick, category: str) -> dict[str, float]:
    """Per 100 g: the base product's figures; a dairy product's fat from its percentage."""
    kcal, protein, fat, carbs = NUTRITION[pick.base.name]
    percent = re.search(r"([0-9]+(?:,[0-9])?)%", pick.variant.text)
    if category == "dairy" and percent:
        fat = float(percent[1].replace(",", "."))
        kcal = round(4 * protein + 9 * fat + 4 * carbs)
    return {"kcal": kcal, "protein": protein, "fat": fat, "carbs": carbs}


def _description(pick: _Pick, category: str) -> str:
    """What the product page says of it: what it is, who made it, how it is chosen."""
    what = " ".join(part for part in (pick.base.name, pick.variant.text) if part)
    maker = f"Производитель — «{pick.producer}»" if pick.producer else "Без бренда, фасуем сами"
    return f"{what}, {pick.variant.weight}. {maker}. {ABOUT[category][0]}"


def _nice_price(value: float) -> int:
    price = round(value / 10.0) * 10
    if value < 1000:
        price -= 1  # 129, 349, 989…; four-digit prices end in 0 (1260)
    return max(PRICE_MIN, min(PRICE_MAX, price))


def _pastel(rng: random.Random) -> str:
    hue = rng.random()
    light = rng.uniform(0.85, 0.91)
    sat = rng.uniform(0.45, 0.7)
    r, g, b = colorsys.hls_to_rgb(hue, light, sat)
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in (r, g, b)))


def build_catalog() -> CatalogData:
    """Return the whole catalog as plain JSON-ready data. Pure and deterministic."""
    rng = random.Random(SEED)

    producer_factor: dict[str | None, float] = {}
    for group in PRODUCERS.values():
        for producer in group:
            if producer not in producer_factor:
                producer_factor[producer] = round(rng.uniform(0.9, 1.15), 3)

    picks: list[tuple[str, _Pick]] = []
    for cat in CATEGORIES:
        picks.extend((cat.id, p) for p in _select(rng, cat.id))

    # Same base, producer and variant in two pack sizes: put the weight in both titles.
    stems: dict[tuple[str, str | None, str], int] = {}
    for _, p in picks:
        stem = (p.base.name, p.producer, p.variant.text)
        stems[stem] = stems.get(stem, 0) + 1

    drafts: list[_Row] = []
    for cat_id, p in picks:
        with_weight = stems[(p.base.name, p.producer, p.variant.text)] > 1
        price = p.base.price * p.variant.factor * producer_factor[p.producer]
        price *= rng.uniform(0.97, 1.03)
        drafts.append(
            {
                "title": _title(p, with_weight),
                "category": cat_id,
                "price": _nice_price(price),
                "unit": p.variant.unit or p.base.unit,
                "weight": p.variant.weight,
                "stock": rng.randint(STOCK_MIN, STOCK_MAX),
                "showcase": False,
                "color": _pastel(rng),
                "emoji": p.base.emoji,
                "description": _description(p, cat_id),
                "storage": ABOUT[cat_id][1],
                "nutrition": _nutrition(p, cat_id),
                "_base": p.base.name,
            }
        )

    titles = [r["title"].casefold() for r in drafts]
    if len(set(titles)) != len(titles):
        raise ValueError("duplicate product titles")

    # Showcase: a few products per category, each with a distinct base product.
    for cat in CATEGORIES:
        in_cat = [r for r in drafts if r["category"] == cat.id]
        bases = sorted({r["_base"] for r in in_cat})
        for base in rng.sample(bases, SHOWCASE_PER_CATEGORY[cat.id]):
            rng.choice([r for r in in_cat if r["_base"] == base])["showcase"] = True

    # Stable ids that do not follow the menu order.
    rng.shuffle(drafts)
    products = [
        Product(
            id=f"g-{n:04d}",
            title=row["title"],
            category=row["category"],
            price=row["price"],
            unit=row["unit"],
            weight=row["weight"],
            stock=row["stock"],
            showcase=row["showcase"],
            color=row["color"],
            emoji=row["emoji"],
            description=row["description"],
            storage=row["storage"],
            nutrition=row["nutrition"],
        )
        for n, row in enumerate(drafts, start=1)
    ]
    return {"categories": rows(CATEGORIES), "products": rows(products)}


def main(argv: list[str] | None = None) -> int:
    text = dumps(build_catalog()).encode()
    return write_or_check(
        CATALOG_PATH.parent, {CATALOG_PATH.name: text}, "services.grocery.generate", argv
    )


if __name__ == "__main__":
    raise SystemExit(main())
