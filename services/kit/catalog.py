"""What the site catalogs share: reading the generated JSON, Russian word matching that
forgives a case ending or a typo, a search over per-item word lists, and the frame of the
pictures the sites draw as local SVG (served by `svg_response`)."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode
from xml.sax.saxutils import escape, quoteattr

from fastapi.responses import Response

from services.core.errors import FieldError
from services.core.russian import date_in_words

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")

# A list's filters as `apply_filter` writes them: a filter key (its type, up to a `:`, so a
# key per brand: `brand:Ярогор`) -> the value.
FilterParams = dict[str, str | int | float | bool | None]

_WORD = re.compile(r"[0-9a-zа-я]+")
_COLOR = re.compile(r"#[0-9a-fA-F]{6}")


Row = dict[str, object]  # one item of a catalog file, as its JSON holds it


def rows(items: Iterable[DataclassInstance]) -> list[Row]:
    """Dataclass items as a catalog file holds them, in their fields' order (the generators
    write them so; `catalog_items` reads them back)."""
    return [dataclasses.asdict(item) for item in items]


def catalog_items(make: Callable[..., T], found: Iterable[Row]) -> list[T]:
    """A catalog file's items built by `make`, the dataclass whose fields they are."""
    return [make(**row) for row in found]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def fold(text: str) -> str:
    """Case-free Russian: «ё» as «е» (it also sorts with «е», not after «я»)."""
    return text.casefold().replace("ё", "е")


def title_key(title: str) -> tuple[str, str]:
    """Russian alphabetical order of titles."""
    return (fold(title), title)


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


def _distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, stopping early once it exceeds `limit`."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


@functools.lru_cache(maxsize=1 << 16)
def word_matches(query: str, word: str) -> bool:
    """A query word matches a text word by prefix, by a shared stem (a case ending differs),
    or with a typo or two. Remembered: a catalog repeats its words across items, and
    searches repeat (as typed, letter by letter, and across agents on one task)."""
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
    """How many query words occur in the haystack."""
    return sum(any(word_matches(q, w) for w in haystack) for q in query_words)


def best_matches(
    query: str, items: Iterable[T], haystack: Callable[[T], list[str]]
) -> tuple[list[T], bool]:
    """Items with every query word (typos forgiven); else those with the most, when that is
    at least half of them: (items, exact)."""
    query_words = words(query)[:12]
    if not query_words:
        return [], True
    scored = [(text_matches(query_words, haystack(item)), item) for item in items]
    exact = [item for n, item in scored if n == len(query_words)]
    if exact:
        return exact, True
    best = max((n for n, _ in scored), default=0)
    if best < max(1, len(query_words) // 2):
        return [], True
    return [item for n, item in scored if n == best], False


def exact_ids(found: tuple[list[T], bool], key: Callable[[T], str]) -> set[str]:
    """The ids (`key`) of what `best_matches` found when every query word matched; else
    none (a search that finds only the closest items finds nothing for certain)."""
    items, exact = found
    return {key(item) for item in items} if exact else set()


def color_or(color: str, default: str) -> str:
    """`color` when it is a `#rrggbb` colour, else `default` (it goes into markup)."""
    return color if _COLOR.fullmatch(color) else default


def svg_picture(width: int, height: int, label: str, body: str) -> str:
    """A self-contained SVG picture of `width`×`height` named `label` for screen readers."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label={quoteattr(label)}>'
        f"<title>{escape(label)}</title>{body}</svg>"
    )


def svg_response(svg: str) -> Response:
    """A picture for the `assets` router: it does not depend on the trajectory, so cached."""
    return Response(
        svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"}
    )


# -- reviews, questions and facets (Маркет's product and Книги' book pages, their lists) ---


@dataclass(frozen=True)
class Review:
    """A buyer's review of an item, as the site generators write it."""

    author: str
    date: str  # ISO date
    stars: int  # 1..5
    text: str
    pros: str
    cons: str
    useful: int  # «Полезно» votes

    @property
    def when(self) -> str:
        return date_in_words(date.fromisoformat(self.date))


@dataclass(frozen=True)
class Question:
    """A question about an item and its answer (by the seller, the publisher or a buyer)."""

    author: str
    date: str
    text: str
    answer: str
    answered_by: str

    @property
    def when(self) -> str:
        return date_in_words(date.fromisoformat(self.date))


@dataclass(frozen=True)
class ReviewPhrases:
    """What a generator writes reviews from: texts by the stars they go with (5: praise, 3:
    mixed, 1: disappointed), pros and cons, questions with their answers."""

    texts: dict[int, tuple[str, ...]]
    pros: tuple[str, ...]
    cons: tuple[str, ...]
    questions: tuple[tuple[str, str], ...]
    answered_by: str


# review sort key -> caption, default first (links on the item's page; no event)
REVIEW_SORTS: dict[str, str] = {
    "useful": "Сначала полезные",
    "new": "Сначала новые",
    "low": "Сначала с низкой оценкой",
}
READERS = (
    "Анна К.", "Олег М.", "Ирина С.", "Дмитрий П.", "Светлана Н.", "Павел Р.", "Юлия Т.",
    "Максим Б.", "Елена Г.", "Артём Л.", "Наталья Ф.", "Кирилл Д.", "Марина В.", "Сергей Ж.",
    "Татьяна Ш.", "Григорий Е.", "Вера О.", "Никита У.",
)  # fmt: skip


def star_counts(rng: random.Random, rating: float, total: int) -> list[int]:
    """`total` votes by stars (index 0: one star … 4: five), their mean near `rating`."""
    weights = [math.exp(-((rating - stars) ** 2)) for stars in range(1, 6)]
    counts = [int(total * w / sum(weights)) for w in weights]
    counts[4 if rating >= 4 else 3] += total - sum(counts)
    for _ in range(min(total, 3)):
        if rng.random() < 0.5 and counts[4] > 1:
            counts[4] -= 1
            counts[rng.randrange(0, 4)] += 1
    return counts


def write_reviews(
    rng: random.Random, rating: float, count: int, phrases: ReviewPhrases, since: int
) -> list[Review]:
    """`count` synthetic reviews of an item rated `rating`, written from `since` (a year) to
    2026, the newest first."""
    out = []
    for _ in range(count):
        stars = max(1, min(5, round(rng.gauss(rating, 0.9))))
        tone = 5 if stars >= 4 else 3 if stars == 3 else 1
        day = date(since, 1, 1) + timedelta(
            days=rng.randrange((date(2026, 11, 30) - date(since, 1, 1)).days)
        )
        out.append(
            Review(
                author=rng.choice(READERS),
                date=day.isoformat(),
                stars=stars,
                text=rng.choice(phrases.texts[tone]),
                pros=rng.choice(phrases.pros),
                cons=rng.choice(phrases.cons) if stars < 5 or rng.random() < 0.4 else "",
                useful=rng.randint(0, 60),
            )
        )
    return sorted(out, key=lambda r: r.date, reverse=True)


def write_questions(
    rng: random.Random, count: int, phrases: ReviewPhrases, since: int
) -> list[Question]:
    """`count` questions about an item, each asked once, with their answers."""
    out = []
    for text, answer in rng.sample(phrases.questions, count):
        day = date(since, 1, 1) + timedelta(
            days=rng.randrange((date(2026, 11, 30) - date(since, 1, 1)).days)
        )
        out.append(
            Question(rng.choice(READERS), day.isoformat(), text, answer, phrases.answered_by)
        )
    return sorted(out, key=lambda q: q.date, reverse=True)


def sort_reviews(reviews: Iterable[Review], key: str) -> list[Review]:
    """Reviews in a `REVIEW_SORTS` order (the useful first by default)."""
    if key == "new":
        return sorted(reviews, key=lambda r: r.date, reverse=True)
    if key == "low":
        return sorted(reviews, key=lambda r: (r.stars, r.date))
    return sorted(reviews, key=lambda r: (-r.useful, r.date))


def item_reviews(
    order: str | None, stars: list[int], reviews: list[Review], questions: list[Question]
) -> dict[str, Any]:
    """An item page's reviews and questions (kit/reviews.html), the reviews in the `order`
    its `?reviews=` asks for (`REVIEW_SORTS`; by default the useful first)."""
    order = order or "useful"
    if order not in REVIEW_SORTS:
        raise FieldError("reviews", f"порядок отзывов — одно из: {', '.join(REVIEW_SORTS)}")
    return {
        "stars": stars,
        "reviews": sort_reviews(reviews, order),
        "review_order": order,
        "review_sorts": REVIEW_SORTS,
        "questions": questions,
    }


def facet_counts(
    items: Iterable[T], keep: Callable[[T], bool], values: Callable[[T], Iterable[str]]
) -> dict[str, int]:
    """A facet's live counts: value -> how many of `items` that pass `keep` (the list's
    other filters) have it."""
    counts: dict[str, int] = {}
    for item in items:
        if keep(item):
            for value in values(item):
                counts[value] = counts.get(value, 0) + 1
    return counts


def without(query: Iterable[tuple[str, str]], key: str, value: str | None = None) -> str:
    """The query string (`?…`, or "" when empty) of a list without the filter `key` (only
    its `value`, when given): an applied filter's chip links there."""
    kept = [(k, v) for k, v in query if v and not (k == key and (value is None or v == value))]
    return "?" + urlencode(kept) if kept else ""
