"""Read-only access to the books catalog (``data/catalog.json``): items, authors with their
case forms, series; lists with filters and sort, a typo-tolerant search with author and title
suggestions, and the covers as local SVG."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict
from xml.sax.saxutils import escape

from services.books.chrome import CHROME
from services.kit.catalog import (
    Row,
    best_matches,
    catalog_items,
    color_or,
    exact_ids,
    fold,
    read_json,
    svg_picture,
    text_matches,
    words,
)

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"


# -- the catalog file (its JSON, as the generator writes it) -----------------------------


class CatalogData(TypedDict):
    languages: dict[str, str]  # code -> caption
    formats: dict[str, str]  # format -> caption
    authors: list[Row]
    series: list[Row]
    items: list[Row]


SORTS: dict[str, str] = {
    "popular": "Сначала популярные",
    "price_asc": "Сначала дешевле",
    "price_desc": "Сначала дороже",
    "rating": "С высоким рейтингом",
    "new": "Сначала новые",
}


@dataclass(frozen=True)
class Author:
    id: str
    first: str
    last: str
    name: str
    gender: str
    cases: dict[str, str] = field(hash=False, compare=False)  # grammatical case -> name


@dataclass(frozen=True)
class Series:
    id: str
    name: str
    author_id: str


@dataclass(frozen=True)
class Item:
    id: str
    work_id: str
    title: str
    author_id: str
    series_id: str
    series_index: int
    format: str
    language: str
    genre: str
    year: int
    price: int
    rating: float
    reviews: int
    pages: int | None
    duration: str | None
    narrator: str | None
    color: str


@dataclass(frozen=True)
class Filters:
    format: str | None = None
    language: str | None = None
    author: str | None = None  # author id

    def keep(self, item: Item) -> bool:
        return (
            (self.format is None or item.format == self.format)
            and (self.language is None or item.language == self.language)
            and (self.author is None or item.author_id == self.author)
        )


class Catalog:
    def __init__(
        self,
        authors: list[Author],
        series: list[Series],
        items: list[Item],
        languages: dict[str, str],
        formats: dict[str, str],
    ) -> None:
        self.authors = list(authors)
        self.series = list(series)
        self._items = list(items)
        self.languages = dict(languages)
        self.formats = dict(formats)
        self._authors = {a.id: a for a in self.authors}
        self._series = {s.id: s for s in self.series}
        self._items_by_id = {i.id: i for i in self._items}
        self._haystack = {
            i.id: words(
                f"{i.title} {self._authors[i.author_id].name} {self._series[i.series_id].name} "
                + " ".join(self._authors[i.author_id].cases.values())
            )
            for i in self._items
        }

    @classmethod
    def from_dict(cls, data: CatalogData) -> Catalog:
        return cls(
            catalog_items(Author, data["authors"]),
            catalog_items(Series, data["series"]),
            catalog_items(Item, data["items"]),
            data["languages"],
            data["formats"],
        )

    def all(self) -> list[Item]:
        return list(self._items)

    def item(self, item_id: str) -> Item | None:
        return self._items_by_id.get(item_id)

    def author(self, author_id: str) -> Author | None:
        return self._authors.get(author_id)

    def series_of(self, item: Item) -> Series:
        return self._series[item.series_id]

    def by_author(self, author_id: str) -> list[Item]:
        return [i for i in self._items if i.author_id == author_id]

    def in_series(self, series_id: str) -> list[Item]:
        return sorted(
            (i for i in self._items if i.series_id == series_id),
            key=lambda i: (i.series_index, i.format),
        )

    def editions(self, item: Item) -> list[Item]:
        return [i for i in self._items if i.work_id == item.work_id and i.id != item.id]

    def newest(self, limit: int = 8) -> list[Item]:
        texts = [i for i in self._items if i.format == "text"]
        return sorted(texts, key=lambda i: (-i.year, -i.reviews, i.id))[:limit]

    def popular_audio(self, limit: int = 8) -> list[Item]:
        audio = [i for i in self._items if i.format == "audio"]
        return sorted(audio, key=lambda i: (-i.reviews, i.id))[:limit]

    def search(self, query: str) -> tuple[list[Item], bool]:
        return best_matches(query, self._items, lambda i: self._haystack[i.id])

    def suggest(self, query: str, limit: int = 8) -> list[dict[str, str]]:
        """Authors first, then titles (each once), then series."""
        query_words = words(query)[:8]
        if not query_words or len("".join(query_words)) < 2:
            return []
        full = len(query_words)
        out: list[dict[str, str]] = []
        for a in self.authors:
            if text_matches(query_words, words(a.name)) == full:
                out.append({"text": a.name, "hint": "автор"})
        seen: set[str] = set()
        for i in sorted(self._items, key=lambda i: -i.reviews):
            author = self._authors[i.author_id]
            if i.work_id in seen:
                continue
            if text_matches(query_words, words(f"{i.title} {author.name}")) == full:
                seen.add(i.work_id)
                out.append({"text": i.title, "hint": author.name})
        for s in self.series:
            if text_matches(query_words, words(s.name)) == full:
                out.append({"text": s.name, "hint": "серия"})
        return out[:limit]


def arrange(items: list[Item], filters: Filters, sort: str) -> list[Item]:
    kept = [i for i in items if filters.keep(i)]
    keys: dict[str, Callable[[Item], tuple[float | str, ...]]] = {
        "price_asc": lambda i: (i.price, i.id),
        "price_desc": lambda i: (-i.price, i.id),
        "rating": lambda i: (-i.rating, -i.reviews, i.id),
        "new": lambda i: (-i.year, i.id),
    }
    return sorted(kept, key=keys.get(sort, lambda i: (-i.reviews, i.id)))


@functools.cache
def load_catalog() -> Catalog:
    return Catalog.from_dict(read_json(CATALOG_PATH))


def cover_svg(item: Item, author: Author) -> str:
    """A 160×240 cover: a coloured board, the title in lines, the author, an audio mark."""
    lines: list[str] = []
    for word in item.title.split():
        if lines and len(lines[-1]) + len(word) < 14:
            lines[-1] += " " + word
        else:
            lines.append(word)
    title = "".join(
        f'<text x="80" y="{70 + 24 * n}" font-size="18" font-weight="700" text-anchor="middle" '
        f'font-family="serif" fill="#ffffff">{escape(line)}</text>'
        for n, line in enumerate(lines[:4])
    )
    mark = (
        '<circle cx="26" cy="26" r="14" fill="#ffffff" fill-opacity="0.9"/>'
        '<text x="26" y="31" font-size="14" text-anchor="middle">🎧</text>'
        if item.format == "audio"
        else ""
    )
    return svg_picture(
        160,
        240,
        item.title,
        f'<rect width="160" height="240" rx="6" fill="{color_or(item.color, "#555555")}"/>'
        '<rect x="8" y="8" width="144" height="224" rx="4" fill="none" stroke="#ffffff" '
        'stroke-opacity="0.5"/>'
        f"{title}{mark}"
        '<text x="80" y="212" font-size="12" text-anchor="middle" font-family="sans-serif" '
        f'fill="#ffffff">{escape(author.name)}</text>',
    )


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    catalog = load_catalog()
    return {
        "item_id": {i.id for i in catalog.all()},
        "title": {i.title for i in catalog.all()},
        "filter_type": {"format", "language", "author"},
        "sort": set(SORTS),
    }


def search_ids(query: str, among: str = "") -> set[str]:
    """The ids its search finds with every word of `query` (the descriptor's `search`)."""
    return exact_ids(load_catalog().search(query), lambda i: i.id)


def states() -> set[str]:
    """The screens this site serves (`state_changed.new_state`)."""
    return {
        f"bench_books_{screen}"
        for screen in ("main", "search", "item", "favorites", "basket", "checkout")
    } | {CHROME.screen}


_EXTREME = re.compile(r"\bсам\w* (дешев|дорог)")


def task_problems(test_data: dict[str, Any]) -> list[str]:
    """A task asking for an author's cheapest or most expensive book must have one answer in
    the catalog, and its item conditions must name that book."""
    text = fold(str(test_data.get("task", "")))
    extreme = _EXTREME.search(text)
    if extreme is None:
        return []
    which = "cheapest" if extreme[1] == "дешев" else "most expensive"
    catalog = load_catalog()
    named = [
        a for a in catalog.authors if any(fold(n) in text for n in (a.name, *a.cases.values()))
    ]
    if len(named) != 1:
        return [f"test_data.task: asks for the {which} book but names {len(named)} authors"]
    author = named[0]
    items = catalog.by_author(author.id)
    price = (min if which == "cheapest" else max)(i.price for i in items)
    answers = sorted(i.id for i in items if i.price == price)
    if len(answers) > 1:
        return [
            f"test_data.task: {author.name} has {len(answers)} {which} books at {price} ₽ "
            f"({', '.join(answers)}); the answer is not unique"
        ]
    problems = []
    for index, condition in enumerate(test_data.get("conditions") or []):
        if condition.get("forbidden"):
            continue  # names what must not be bought, not the answer
        item_id = (condition.get("parameters") or {}).get("item_id")
        if isinstance(item_id, str) and "*" not in item_id and item_id != answers[0]:
            problems.append(
                f"test_data.conditions[{index}].parameters.item_id: {item_id!r} is not the "
                f"{which} book of {author.name} ({answers[0]}, {price} ₽)"
            )
    return problems
