"""Книги's rules, without HTTP: the list's filters and sort, the filters as events name
them, the order check."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from services.books.catalog import RATINGS, SORTS, YEARS, Catalog, Filters, Item
from services.core.errors import FieldError
from services.kit.catalog import FilterParams, without
from services.kit.site import Context

PAY_METHODS: dict[str, str] = {"card": "Банковская карта", "sbp": "Система быстрых платежей"}
LIST_KEYS = ("format", "language", "author", "genre", "year", "rating", "tag", "sort")
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
    genre = query.get("genre") or None
    if genre is not None and genre not in catalog.genre_names():
        raise FieldError("genre", "нет такого жанра")
    year = query.get("year") or None
    if year is not None and year not in YEARS:
        raise FieldError("year", f"год издания — с одного из: {', '.join(YEARS)}")
    rating = query.get("rating") or None
    if rating is not None and rating not in RATINGS:
        raise FieldError("rating", f"рейтинг — одно из: {', '.join(RATINGS)}")
    tag = query.get("tag") or None
    tagged = catalog.tagged(tag) if tag is not None else frozenset()
    if tag is not None and not tagged:
        raise FieldError("tag", "нет такого тега")
    sort = query.get("sort") or "popular"
    if sort not in SORTS:
        raise FieldError("sort", f"сортировка — одна из: {', '.join(SORTS)}")
    list_changed = any(key in query for key in LIST_KEYS)
    filters = Filters(fmt, language, author, genre, year, rating, tag, tagged)
    return filters, sort, list_changed


def filter_params(catalog: Catalog, filters: Filters) -> FilterParams:
    """The filters as `apply_filter` writes them: the author by name."""
    out: FilterParams = {}
    if filters.format:
        out["format"] = filters.format
    if filters.language:
        out["language"] = filters.language
    if filters.author and (author := catalog.author(filters.author)):
        out["author"] = author.name
    if filters.genre:
        out["genre"] = filters.genre
    if filters.year:
        out["year"] = int(filters.year)
    if filters.rating:
        out["rating"] = filters.rating
    if filters.tag:
        out["tag"] = filters.tag
    return out


def options(items: list[Item]) -> dict[str, list[tuple[str, str]]]:
    """The facets' options below the filter form: (value, caption) per facet."""
    return {
        "genre": [(g, g) for g in sorted({i.genre for i in items})],
        "year": list(YEARS.items()),
        "rating": [(r, f"от {r.replace('.', ',')} ★") for r in RATINGS],
    }


def around(catalog: Catalog, items: list[Item]) -> Context:
    """What a list shows below itself: the tags most used and the authors most read (their
    lists), the most read books it does not hold and the newest (each book on one shelf)."""
    held = {i.id for i in items}
    read: dict[str, int] = {}
    for item in catalog.all():
        read[item.author_id] = read.get(item.author_id, 0) + item.reviews
    authors = sorted(read, key=lambda a: (-read[a], a))[:12]
    popular = sorted(
        (i for i in catalog.all() if i.id not in held and i.format == "text"),
        key=lambda i: (-i.reviews, i.id),
    )[:22]
    return {
        "tags": [("/search?" + urlencode({"tag": t}), t) for t in catalog.tag_list()[:20]],
        "read_authors": [
            (f"/search?author={a}", catalog.author(a).name)  # type: ignore[union-attr]
            for a in authors
        ],
        "popular": popular,
        "newest": [i for i in catalog.newest() if i.id not in held and i not in popular],
    }


def chips(catalog: Catalog, filters: Filters, query: Any) -> list[tuple[str, str]]:
    """The applied filters as chips: (caption, the list's query string without it)."""
    items = list(query.multi_items())
    out = []
    if filters.format:
        out.append((f"Формат: {catalog.formats[filters.format].lower()}", without(items, "format")))
    if filters.language:
        language = catalog.languages[filters.language].lower()
        out.append((f"Язык: {language}", without(items, "language")))
    if filters.author and (author := catalog.author(filters.author)):
        out.append((f"Автор: {author.name}", without(items, "author")))
    if filters.genre:
        out.append((f"Жанр: {filters.genre.lower()}", without(items, "genre")))
    if filters.year:
        out.append((YEARS[filters.year], without(items, "year")))
    if filters.rating:
        out.append((f"Рейтинг от {filters.rating.replace('.', ',')} ★", without(items, "rating")))
    if filters.tag:
        out.append((f"Тег: {filters.tag}", without(items, "tag")))
    return out


def check_order(form: dict[str, str]) -> None:
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", form.get("email", "").strip()):
        raise FieldError("email", "укажите почту, на неё придёт ссылка на книги")
