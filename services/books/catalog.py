"""Read-only access to the books catalog (``data/catalog.json``): items, authors with their
case forms, series; lists with filters and sort, a typo-tolerant search with author and title
suggestions, and the covers as local SVG."""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from services.books.chrome import CHROME
from services.kit.catalog import (
    Question,
    Review,
    Row,
    best_matches,
    catalog_items,
    color_or,
    exact_ids,
    facet_counts,
    fold,
    read_json,
    svg_picture,
    text_matches,
    words,
)
from services.kit.pictures import (
    LIGHT,
    SOFT,
    circle,
    ellipse,
    path,
    place,
    rect,
    seeded,
    shade,
    stroke,
    text,
)

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"


# -- the catalog file (its JSON, as the generator writes it) -----------------------------


class CatalogData(TypedDict):
    languages: dict[str, str]  # code -> caption
    formats: dict[str, str]  # format -> caption
    authors: list[Row]
    series: list[Row]
    items: list[Row]
    works: dict[str, Row]  # work id -> its texts (a `Work`)
    stars: dict[str, list[int]]  # item id -> its ratings by stars, one star first


SORTS: dict[str, str] = {
    "popular": "Сначала популярные",
    "price_asc": "Сначала дешевле",
    "price_desc": "Сначала дороже",
    "rating": "С высоким рейтингом",
    "new": "Сначала новые",
}
RATINGS = ("4", "4.5")  # the rating filter: "from 4 stars", "from 4.5"
# the year filter: published since -> caption
YEARS: dict[str, str] = {"2024": "С 2024 года", "2020": "С 2020 года", "2015": "С 2015 года"}


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
    isbn: str
    publisher: str
    age: str  # the age mark: «16+»


@dataclass(frozen=True)
class Work:
    """What a work's editions share: its description, tags, quotes, a fragment (its
    paragraphs), reviews and questions (rows of `Review` and `Question`)."""

    description: str
    tags: list[str]
    quotes: list[str]
    fragment: list[str]
    reviews: list[Row]
    questions: list[Row]


@dataclass(frozen=True)
class Genre:
    """A genre of the header's menu: its editions' count and its most read series."""

    name: str
    count: int
    series: tuple[Series, ...]


@dataclass(frozen=True)
class Filters:
    format: str | None = None
    language: str | None = None
    author: str | None = None  # author id
    genre: str | None = None
    year: str | None = None  # a `YEARS` key
    rating: str | None = None  # a `RATINGS` value
    tag: str | None = None
    tagged: frozenset[str] = frozenset()  # with a tag: the works that carry it

    @property
    def lists_all(self) -> bool:
        """Whether the list is the whole catalog narrowed (no query needed): by an author,
        a genre or a tag."""
        return bool(self.author or self.genre or self.tag)

    def keep(self, item: Item, facet: str = "") -> bool:
        """Whether the item passes every filter (but the `facet` one: a facet's counts are
        of the list its other filters leave)."""
        return (
            (facet == "format" or self.format is None or item.format == self.format)
            and (self.language is None or item.language == self.language)
            and (self.author is None or item.author_id == self.author)
            and (facet == "genre" or self.genre is None or item.genre == self.genre)
            and (facet == "year" or self.year is None or item.year >= int(self.year))
            and (facet == "rating" or self.rating is None or item.rating >= float(self.rating))
            and (self.tag is None or item.work_id in self.tagged)
        )


class Catalog:
    def __init__(
        self,
        authors: list[Author],
        series: list[Series],
        items: list[Item],
        languages: dict[str, str],
        formats: dict[str, str],
        works: dict[str, Work],
        stars: dict[str, list[int]],
    ) -> None:
        self.authors = list(authors)
        self._works = works
        self._stars = stars
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
        # The header's genre menu, on every page: ranked once.
        self._genres, self._genre_tags, self._genre_authors = self._rank_genres()

    def _rank_genres(
        self,
    ) -> tuple[list[Genre], dict[str, list[str]], dict[str, list[Author]]]:
        """The genres, the largest first, each with all its series, the most reviewed
        first; each genre's tags, the most used in its texts first; its authors, the most
        read first."""
        by_genre: dict[str, list[Item]] = {}
        for item in sorted(self._items, key=lambda i: (-i.reviews, i.id)):
            by_genre.setdefault(item.genre, []).append(item)
        genres, tags, authors = [], {}, {}
        for name, items in sorted(by_genre.items(), key=lambda g: (-len(g[1]), g[0])):
            read = dict.fromkeys(self._series[i.series_id] for i in items)
            genres.append(Genre(name, len(items), tuple(read)))
            used: dict[str, int] = {}
            reviews: dict[str, int] = {}
            for item in items:
                if item.format == "text":
                    for tag in self.work(item).tags:
                        used[tag] = used.get(tag, 0) + 1
                reviews[item.author_id] = reviews.get(item.author_id, 0) + item.reviews
            tags[name] = sorted(used, key=lambda t: (-used[t], t))
            ranked = sorted(reviews, key=lambda a: (-reviews[a], a))
            authors[name] = [self._authors[a] for a in ranked]
        return genres, tags, authors

    @classmethod
    def from_dict(cls, data: CatalogData) -> Catalog:
        return cls(
            catalog_items(Author, data["authors"]),
            catalog_items(Series, data["series"]),
            catalog_items(Item, data["items"]),
            data["languages"],
            data["formats"],
            {key: Work(**row) for key, row in data["works"].items()},  # type: ignore[arg-type]
            data["stars"],
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

    def work(self, item: Item) -> Work:
        return self._works[item.work_id]

    def stars(self, item: Item) -> list[int]:
        """The item's ratings by stars, one star first."""
        return self._stars[item.id]

    def reviews(self, item: Item) -> list[Review]:
        return catalog_items(Review, self.work(item).reviews)

    def questions(self, item: Item) -> list[Question]:
        return catalog_items(Question, self.work(item).questions)

    def genre_names(self) -> list[str]:
        return sorted({i.genre for i in self._items})

    def recommended(self, item: Item, limit: int = 8) -> list[Item]:
        """«Вам может понравиться»: the genre's most read text editions of other authors."""
        others = [
            i
            for i in self._items
            if i.genre == item.genre and i.author_id != item.author_id and i.format == "text"
        ]
        return sorted(others, key=lambda i: (-i.reviews, i.id))[:limit]

    def tag_list(self) -> list[str]:
        """Every tag, the most used first."""
        used: dict[str, int] = {}
        for work in self._works.values():
            for tag in work.tags:
                used[tag] = used.get(tag, 0) + 1
        return sorted(used, key=lambda t: (-used[t], t))

    def tagged(self, tag: str) -> frozenset[str]:
        """The works that carry `tag`."""
        return frozenset(key for key, work in self._works.items() if tag in work.tags)

    def genre_tags(self, genre: str, limit: int = 4) -> list[str]:
        """A genre's most used tags (the genre menu's popular searches)."""
        return self._genre_tags.get(genre, [])[:limit]

    def genre_authors(self, genre: str, limit: int = 4) -> list[Author]:
        """A genre's most read authors."""
        return self._genre_authors.get(genre, [])[:limit]

    def counts(self, items: list[Item], filters: Filters) -> dict[str, dict[str, int]]:
        """Each facet's live counts: facet -> value -> items the other filters leave."""

        def count(facet: str, values: Callable[[Item], Iterable[str]]) -> dict[str, int]:
            return facet_counts(items, lambda i: filters.keep(i, facet), values)

        return {
            "format": count("format", lambda i: [i.format]),
            "genre": count("genre", lambda i: [i.genre]),
            "year": count("year", lambda i: [y for y in YEARS if i.year >= int(y)]),
            "rating": count("rating", lambda i: [r for r in RATINGS if i.rating >= float(r)]),
        }

    def editions(self, item: Item) -> list[Item]:
        return [i for i in self._items if i.work_id == item.work_id and i.id != item.id]

    def newest(self, limit: int = 8) -> list[Item]:
        texts = [i for i in self._items if i.format == "text"]
        return sorted(texts, key=lambda i: (-i.year, -i.reviews, i.id))[:limit]

    def popular_audio(self, limit: int = 8) -> list[Item]:
        audio = [i for i in self._items if i.format == "audio"]
        return sorted(audio, key=lambda i: (-i.reviews, i.id))[:limit]

    def genres(self, series: int = 3) -> list[Genre]:
        """The genres, the largest first, each with its `series` most reviewed series (the
        header's genre menu links them to the search)."""
        return [Genre(g.name, g.count, g.series[:series]) for g in self._genres]

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


def _motif(genre: str, rng: random.Random) -> str:
    """The genre's design under a cover's title: a planet for science fiction, mountains and
    a moon for fantasy, a lens for a detective story, arches for a historical novel, a sun
    over waves for adventures, circles for a novel."""
    line = stroke("#ffffff", 2) + ' stroke-opacity="0.7"'
    if genre == "Фантастика":
        stars = "".join(
            circle(rng.uniform(14, 146), rng.uniform(14, 60), 1.2, "#ffffff") for _ in range(9)
        )
        return (
            stars + circle(110, 176, 22, "#ffffff", LIGHT) + ellipse(110, 176, 40, 8, "none", line)
        )
    if genre == "Фэнтези":
        peaks = path("M8 196 L50 150 L74 176 L102 140 L152 196 Z", "#ffffff", LIGHT)
        return circle(118, 34, 12, "#ffffff", LIGHT) + peaks
    if genre == "Детектив":
        handle = path("M84 184 l22 22", "none", stroke("#ffffff", 6))
        return circle(70, 170, 20, "none", line) + handle
    if genre == "Исторический роман":
        arch = "M{} 196 v-32 a14 14 0 0 1 28 0 v32"
        return "".join(path(arch.format(x), "none", line) for x in (38, 66, 94))
    if genre == "Приключения":
        wave = "M16 {} q16 -8 32 0 t32 0 t32 0 t32 0"
        waves = "".join(path(wave.format(y), "none", line) for y in (184, 194))
        return circle(80, 170, 16, "#ffd966", ' fill-opacity="0.8"') + waves
    return "".join(
        circle(rng.uniform(20, 140), rng.uniform(150, 190), rng.uniform(6, 18), "#ffffff", LIGHT)
        for _ in range(5)
    )


def _title_lines(title: str) -> list[str]:
    lines: list[str] = []
    for word in title.split():
        if lines and len(lines[-1]) + len(word) < 14:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines[:4]


def cover_svg(item: Item, author: Author, view: int = 1) -> str:
    """Picture `view` (1..`VIEWS`) of a book, 160×240: 1 the cover (a coloured board in a
    frame, the genre's design, the title in lines, the author, headphones on an audiobook),
    2 the back (the annotation's lines, a barcode), 3 the book standing at an angle, 4 the
    book open (an audiobook: its player)."""
    board = color_or(item.color, "#555555")
    rng = seeded(item.id)
    title = "".join(
        text(80, 70 + 24 * n, line, 18, "#ffffff", ' font-weight="700"', "serif")
        for n, line in enumerate(_title_lines(item.title))
    )
    mark = (
        circle(26, 26, 14, "#ffffff", ' fill-opacity="0.9"')
        + path("M18 30 v-4 a8 8 0 0 1 16 0 v4", "none", stroke("#33383f", 2))
        + rect(16, 27, 5, 8, "#33383f", 2)
        + rect(31, 27, 5, 8, "#33383f", 2)
        if item.format == "audio"
        else ""
    )
    front = (
        rect(0, 0, 160, 240, board, 6)
        + _motif(item.genre, rng)
        + rect(8, 8, 144, 224, "none", 4, ' stroke="#ffffff" stroke-opacity="0.5"')
        + title
        + mark
        + text(80, 212, author.name, 12, "#ffffff")
    )
    if view == 1:
        body = front
    elif view == 2:
        lines = "".join(
            rect(20, 40 + 12 * i, rng.uniform(90, 120), 4, "#ffffff", 2, LIGHT) for i in range(9)
        )
        bars = "".join(rect(96 + 3 * i, 180, rng.choice((1, 2)), 30, "#1d2127") for i in range(14))
        body = (
            rect(0, 0, 160, 240, shade(board, 0.8), 6)
            + text(80, 26, author.name, 12, "#ffffff")
            + lines
            + rect(90, 174, 56, 42, "#ffffff")
            + bars
        )
    elif view == 3:
        body = (
            rect(0, 0, 160, 240, "#eef0f3", 6)
            + path("M34 30 L50 22 L50 226 L34 218 Z", shade(board, 0.6))
            + place(front, 50, 22, 0.62, 0.85)
            + ellipse(90, 226, 56, 6, "#000000", SOFT)
        )
    elif item.format == "audio":
        body = (
            rect(0, 0, 160, 240, "#eef0f3", 6)
            + rect(30, 14, 100, 212, "#1d2127", 14)
            + place(front, 42, 30, 0.475, 0.42)
            + rect(42, 150, 76, 4, "#5f6b7a", 2)
            + rect(42, 150, rng.uniform(10, 70), 4, "#ffffff", 2)
            + circle(80, 186, 16, "#ffffff")
            + path("M75 178 L89 186 L75 194 Z", "#1d2127")
        )
    else:
        page = "".join(
            rect(x, 40 + 9 * i, rng.uniform(44, 58), 3, "#9aa3ad", 1.5)
            for x in (12, 88)
            for i in range(16)
        )
        body = (
            rect(0, 0, 160, 240, shade(board, 0.6), 6)
            + rect(6, 20, 148, 200, "#fbf7ee", 3)
            + rect(79, 20, 2, 200, "#d9d2c0")
            + text(42, 32, author.name, 7, "#5f6b7a")
            + text(118, 32, item.title, 7, "#5f6b7a")
            + page
        )
    return svg_picture(160, 240, item.title, body)


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    catalog = load_catalog()
    return {
        "item_id": {i.id for i in catalog.all()},
        "title": {i.title for i in catalog.all()},
        "filter_type": {"format", "language", "author", "genre", "year", "rating", "tag"},
        "sort": set(SORTS),
    }


def names() -> dict[str, str]:
    """Id -> what a person calls it: the books (the descriptor's `names`)."""
    return {i.id: i.title for i in load_catalog().all()}


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
