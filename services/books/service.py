"""Книги's rules, without HTTP: the list's filters and sort, the filters as events name
them, the order check."""

from __future__ import annotations

import re
from typing import Any

from services.books.catalog import SORTS, Catalog, Filters
from services.core.errors import FieldError
from services.kit.catalog import FilterParams

PAY_METHODS: dict[str, str] = {"card": "Банковская карта", "sbp": "Система быстрых платежей"}
LIST_KEYS = ("format", "language", "author", "sort")
# The order form a start state's payment is placed with (services/kit/replay.py).
SETUP_ORDER = {"email": "reader@example.ru", "card_number": "4111 1111 1111 1111"}
MAX_COPIES = 10  # e-books and audiobooks: at most ten copies (gifts) of one item


def parse_list(query: Any, catalog: Catalog) -> tuple[Filters, str, bool]:
    """Filters and sort from the query string, and whether any list key was sent."""
    fmt = query.get("format") or None
    if fmt is not None and fmt not in catalog.formats:
        raise FieldError("format", f"формат — одно из: {', '.join(catalog.formats)}")
    language = query.get("language") or None
    if language is not None and language not in catalog.languages:
        raise FieldError("language", f"язык — одно из: {', '.join(catalog.languages)}")
    author = query.get("author") or None
    if author is not None and catalog.author(author) is None:
        raise FieldError("author", "нет такого автора")
    sort = query.get("sort") or "popular"
    if sort not in SORTS:
        raise FieldError("sort", f"сортировка — одна из: {', '.join(SORTS)}")
    list_changed = any(key in query for key in LIST_KEYS)
    return Filters(fmt, language, author), sort, list_changed


def filter_params(catalog: Catalog, filters: Filters) -> FilterParams:
    """The filters as `apply_filter` writes them: the author by name."""
    out: FilterParams = {}
    if filters.format:
        out["format"] = filters.format
    if filters.language:
        out["language"] = filters.language
    if filters.author and (author := catalog.author(filters.author)):
        out["author"] = author.name
    return out


def check_order(form: dict[str, str]) -> None:
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", form.get("email", "").strip()):
        raise FieldError("email", "укажите почту, на неё придёт ссылка на книги")
