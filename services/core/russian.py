"""Russian words the hub and the sites share: month names and dates in words."""

from __future__ import annotations

from datetime import date

# «4 октября 2026»
MONTHS_GENITIVE: tuple[str, ...] = (
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
)
# «сентябрь 2026» (a calendar's title capitalises it)
MONTHS_NOMINATIVE: tuple[str, ...] = (
    "январь",
    "февраль",
    "март",
    "апрель",
    "май",
    "июнь",
    "июль",
    "август",
    "сентябрь",
    "октябрь",
    "ноябрь",
    "декабрь",
)


def date_in_words(day: date) -> str:
    """`9 мая 2024`."""
    return f"{day.day} {MONTHS_GENITIVE[day.month - 1]} {day.year}"


# Numeral and noun agreement: after 1 (21, 31, … but not 11) the singular, after 2–4 (22–24,
# … but not 12–14) the «few» form, else the «many» form. Each noun's three forms per case,
# as the generated prompts use them (tasks/families/, docs/tasks.md "Generated suites"):
# «1 гость», «2 гостя», «5 гостей»; «для 1 взрослого», «для 3 взрослых».
NOUNS: dict[str, dict[str, tuple[str, str, str]]] = {
    "гость": {"nom": ("гость", "гостя", "гостей"), "gen": ("гостя", "гостей", "гостей")},
    "взрослый": {
        "nom": ("взрослый", "взрослых", "взрослых"),
        "gen": ("взрослого", "взрослых", "взрослых"),
        "acc": ("взрослого", "взрослых", "взрослых"),
    },
    "пассажир": {
        "nom": ("пассажир", "пассажира", "пассажиров"),
        "gen": ("пассажира", "пассажиров", "пассажиров"),
        "acc": ("пассажира", "пассажиров", "пассажиров"),
    },
    "билет": {"nom": ("билет", "билета", "билетов"), "acc": ("билет", "билета", "билетов")},
    "место": {"nom": ("место", "места", "мест"), "acc": ("место", "места", "мест")},
    "нижнее место": {
        "nom": ("нижнее место", "нижних места", "нижних мест"),
        "acc": ("нижнее место", "нижних места", "нижних мест"),
    },
    "место у окна": {
        "nom": ("место у окна", "места у окна", "мест у окна"),
        "acc": ("место у окна", "места у окна", "мест у окна"),
    },
    "номер": {"nom": ("номер", "номера", "номеров"), "pre": ("номере", "номерах", "номерах")},
    "ночь": {"nom": ("ночь", "ночи", "ночей"), "acc": ("ночь", "ночи", "ночей")},
    "год": {"nom": ("год", "года", "лет"), "gen": ("года", "лет", "лет")},
    "товар": {
        "nom": ("товар", "товара", "товаров"),
        "gen": ("товара", "товаров", "товаров"),
        "acc": ("товар", "товара", "товаров"),
    },
    "штука": {"nom": ("штука", "штуки", "штук"), "acc": ("штуку", "штуки", "штук")},
    "упаковка": {
        "nom": ("упаковка", "упаковки", "упаковок"),
        "acc": ("упаковку", "упаковки", "упаковок"),
    },
    "бутылка": {"nom": ("бутылка", "бутылки", "бутылок"), "acc": ("бутылку", "бутылки", "бутылок")},
    "рубль": {"nom": ("рубль", "рубля", "рублей"), "gen": ("рубля", "рублей", "рублей")},
    "звезда": {"nom": ("звезда", "звезды", "звёзд")},
}


def plural_index(n: int) -> int:
    """0 (one), 1 (few) or 2 (many): which form of a noun follows the number `n`."""
    n = abs(n)
    if n % 10 == 1 and n % 100 != 11:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


def agree(n: int, noun: str, case: str = "nom") -> str:
    """`n` and the noun in the form the number asks for, in `case` (nom, gen, acc, pre):
    «2 гостя», «для 5 взрослых» (`agree(5, "взрослый", "gen")`). In an oblique case the
    noun after 2–4 takes the plural, as after 5: «для 2 гостей»."""
    forms = NOUNS[noun][case]
    return f"{n} {forms[plural_index(n)]}"
