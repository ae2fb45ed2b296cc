"""What the sites' search forms share: a date field checked as the forms check it, its
Russian message put in the form's errors by field (`FormError` carries them), a whole
number typed or sent in a form or query, and a list's price range."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from services.core.errors import FieldError


def form_date(
    value: str,
    today: date,
    field: str,
    errors: dict[str, str],
    required: str | None = None,
    past: str = "Эта дата уже прошла",
) -> date | None:
    """The date of a form field (`YYYY-MM-DD`), or None with the field's message in `errors`:
    `required` when it is empty (an optional field's emptiness is no error), «Такой даты
    нет» when it is no date, `past` when it lies before the stand's today."""
    if not value:
        if required is not None:
            errors[field] = required
        return None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        errors[field] = f"Такой даты нет: {value}"
        return None
    if day < today:
        errors[field] = past
        return None
    return day


def whole_number(text: str, max_digits: int = 9) -> int | None:
    """`text` (spaces around it aside) as a whole number when it is 1..`max_digits` ASCII
    digits; None otherwise: `²`, `٣`, `-1`, `+1`, `1_000` and a 5,000-digit string are no
    number here (`int()` takes some of them, and fails on others)."""
    text = text.strip()
    if not 0 < len(text) <= max_digits or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def price_range(query: Mapping[str, str]) -> tuple[int | None, int | None]:
    """A list's `price_min` and `price_max` (whole roubles, spaces allowed; either may be
    left empty), FieldError naming the field that is no price or a maximum below the
    minimum."""

    def money(name: str) -> int | None:
        raw = (query.get(name) or "").strip().replace(" ", "")
        if not raw:
            return None
        price = whole_number(raw)
        if price is None:
            raise FieldError(name, "цена — целое число рублей, не меньше нуля")
        return price

    low, high = money("price_min"), money("price_max")
    if low is not None and high is not None and low > high:
        raise FieldError("price_max", "верхняя граница цены меньше нижней")
    return low, high
