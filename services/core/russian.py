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
