"""Read-only access to the books catalog (``data/catalog.json``): items, authors with their
case forms, series; lists with filters and sort, a typo-tolerant search with author and title
suggestions, and the covers as local SVG."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"

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
    cases: dict[str, str] = field(hash=False, compare=False)


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


_WORD = re.compile(r"[0-9a-zа-я]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("ё", "е"))


def _distance(a: str, b: str, limit: int) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def word_matches(query: str, word: str) -> bool:
    """By prefix, by a shared stem (a case ending differs), or with a typo or two."""
    if word.startswith(query):
        return True
    if len(query) < 5:
        return False
    if word.startswith(query[: len(query) - 2]):
        return True
    allowed = 1 if len(query) < 8 else 2
    return any(
        _distance(query, word[:n], allowed) <= allowed
        for n in range(max(1, len(query) - allowed), len(query) + allowed + 1)
    )


def text_matches(query_words: list[str], haystack: list[str]) -> int:
    return sum(any(word_matches(q, w) for w in haystack) for q in query_words)


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
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        return cls(
            [Author(**a) for a in data["authors"]],
            [Series(**s) for s in data["series"]],
            [Item(**i) for i in data["items"]],
            data["languages"],
            data["formats"],
        )

    @classmethod
    def from_path(cls, path: Path) -> Catalog:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))

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
        query_words = words(query)[:12]
        if not query_words:
            return [], True
        scored = [(text_matches(query_words, self._haystack[i.id]), i) for i in self._items]
        exact = [i for n, i in scored if n == len(query_words)]
        if exact:
            return exact, True
        best = max(n for n, _ in scored)
        if best < max(1, len(query_words) // 2):
            return [], True
        return [i for n, i in scored if n == best], False

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
    keys: dict[str, Any] = {
        "price_asc": lambda i: (i.price, i.id),
        "price_desc": lambda i: (-i.price, i.id),
        "rating": lambda i: (-i.rating, -i.reviews, i.id),
        "new": lambda i: (-i.year, i.id),
    }
    return sorted(kept, key=keys.get(sort, lambda i: (-i.reviews, i.id)))


@functools.cache
def load_catalog() -> Catalog:
    return Catalog.from_path(CATALOG_PATH)


_COLOR_RE = re.compile(r"#[0-9a-fA-F]{6}")


def cover_svg(item: Item, author: Author) -> str:
    """A 160×240 cover: a coloured board, the title in lines, the author, an audio mark."""
    color = item.color if _COLOR_RE.fullmatch(item.color) else "#555555"
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
        '<circle cx="134" cy="26" r="14" fill="#ffffff" fill-opacity="0.9"/>'
        '<text x="134" y="31" font-size="14" text-anchor="middle">🎧</text>'
        if item.format == "audio"
        else ""
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="240" '
        f'viewBox="0 0 160 240" role="img" aria-label={quoteattr(item.title)}>'
        f"<title>{escape(item.title)}</title>"
        f'<rect width="160" height="240" rx="6" fill="{color}"/>'
        '<rect x="8" y="8" width="144" height="224" rx="4" fill="none" stroke="#ffffff" '
        'stroke-opacity="0.5"/>'
        f"{title}{mark}"
        '<text x="80" y="212" font-size="12" text-anchor="middle" font-family="sans-serif" '
        f'fill="#ffffff">{escape(author.name)}</text>'
        "</svg>"
    )
