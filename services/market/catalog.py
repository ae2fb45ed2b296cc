"""Read-only access to the market catalog (``data/catalog.json``): lookup, lists with filters
and sort, a typo-tolerant search and suggestions, and the product pictures as local SVG."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"

# sort key -> caption, default first
SORTS: dict[str, str] = {
    "popular": "Сначала популярные",
    "price_asc": "Сначала дешевле",
    "price_desc": "Сначала дороже",
    "rating": "С высоким рейтингом",
}
RATINGS = ("4", "4.5")  # the rating filter: "from 4 stars", "from 4.5"


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    icon: str


@dataclass(frozen=True)
class Product:
    id: str
    title: str
    brand: str
    model: str
    kind: str
    category: str
    price: int
    old_price: int | None
    rating: float
    reviews: int
    stock: int
    showcase: bool
    deal: bool
    specs: tuple[tuple[str, str], ...]
    description: str
    color: str
    emoji: str


@dataclass(frozen=True)
class Filters:
    """What a list is narrowed by; empty means the whole list."""

    brands: tuple[str, ...] = ()
    price_min: int | None = None
    price_max: int | None = None
    rating: str | None = None

    def as_params(self) -> dict[str, Any]:
        """filter_type -> value, as `apply_filter` writes them (one entry per brand)."""
        params: dict[str, Any] = {f"brand:{b}": b for b in self.brands}
        if self.price_min is not None:
            params["price_min"] = self.price_min
        if self.price_max is not None:
            params["price_max"] = self.price_max
        if self.rating is not None:
            params["rating"] = self.rating
        return params

    def keep(self, product: Product) -> bool:
        return (
            (not self.brands or product.brand in self.brands)
            and (self.price_min is None or product.price >= self.price_min)
            and (self.price_max is None or product.price <= self.price_max)
            and (self.rating is None or product.rating >= float(self.rating))
        )


# -- text matching ---------------------------------------------------------------------

_WORD = re.compile(r"[0-9a-zа-я]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold().replace("ё", "е"))


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


def word_matches(query: str, word: str) -> bool:
    """A query word matches a text word by prefix, by a shared stem, or with a typo or two."""
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


def _title_key(product: Product) -> tuple[str, str]:
    return (product.title.casefold().replace("ё", "е"), product.title)


class Catalog:
    def __init__(
        self, categories: list[Category], brands: dict[str, list[str]], products: list[Product]
    ) -> None:
        self.categories = list(categories)
        self.brands = {k: list(v) for k, v in brands.items()}
        self._products = list(products)
        self._categories_by_id = {c.id: c for c in self.categories}
        self._by_id = {p.id: p for p in self._products}
        self._haystack = {
            p.id: words(f"{p.title} {self._categories_by_id[p.category].name}")
            for p in self._products
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Catalog:
        products = [
            Product(**{**p, "specs": tuple(tuple(pair) for pair in p["specs"])})
            for p in data["products"]
        ]
        return cls([Category(**c) for c in data["categories"]], data["brands"], products)

    @classmethod
    def from_path(cls, path: Path) -> Catalog:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))

    def all(self) -> list[Product]:
        return list(self._products)

    def category(self, cat_id: str) -> Category | None:
        return self._categories_by_id.get(cat_id)

    def product(self, item_id: str) -> Product | None:
        return self._by_id.get(item_id)

    def in_category(self, cat_id: str) -> list[Product]:
        return [p for p in self._products if p.category == cat_id]

    def showcase(self) -> list[Product]:
        return [p for p in self._products if p.showcase]

    def deals(self) -> list[Product]:
        return [p for p in self._products if p.deal]

    def all_brands(self) -> list[str]:
        return sorted({p.brand for p in self._products})

    def search(self, query: str) -> tuple[list[Product], bool]:
        """Products with every query word (typos forgiven); else the closest: (list, exact)."""
        query_words = words(query)[:12]
        if not query_words:
            return [], True
        scored = [(text_matches(query_words, self._haystack[p.id]), p) for p in self._products]
        exact = [p for n, p in scored if n == len(query_words)]
        if exact:
            return exact, True
        best = max(n for n, _ in scored)
        if best < max(1, len(query_words) // 2):
            return [], True
        return [p for n, p in scored if n == best], False

    def suggest(self, query: str, limit: int = 8) -> list[dict[str, str]]:
        """Categories, makers and products that start to match what is typed."""
        query_words = words(query)[:8]
        if not query_words or len("".join(query_words)) < 2:
            return []
        out: list[dict[str, str]] = []
        for c in self.categories:
            if text_matches(query_words, words(c.name)) == len(query_words):
                out.append({"text": c.name, "hint": "категория"})
        for brand in self.all_brands():
            if text_matches(query_words, words(brand)) == len(query_words):
                out.append({"text": brand, "hint": "производитель"})
        for p in sorted(self._products, key=lambda p: -p.reviews):
            if text_matches(query_words, self._haystack[p.id]) == len(query_words):
                out.append({"text": p.title, "hint": f"{p.price} ₽"})
        return out[:limit]


def arrange(products: list[Product], filters: Filters, sort: str) -> list[Product]:
    kept = [p for p in products if filters.keep(p)]
    if sort == "price_asc":
        return sorted(kept, key=lambda p: (p.price, _title_key(p)))
    if sort == "price_desc":
        return sorted(kept, key=lambda p: (-p.price, _title_key(p)))
    if sort == "rating":
        return sorted(kept, key=lambda p: (-p.rating, -p.reviews, _title_key(p)))
    return sorted(kept, key=lambda p: (-p.reviews, _title_key(p)))


@functools.cache
def load_catalog() -> Catalog:
    return Catalog.from_path(CATALOG_PATH)


_COLOR_RE = re.compile(r"#[0-9a-fA-F]{6}")


def image_svg(product: Product) -> str:
    """A self-contained 240×180 picture: pastel card, the product's sign, maker and model."""
    color = product.color if _COLOR_RE.fullmatch(product.color) else "#eeeeee"
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="180" '
        f'viewBox="0 0 240 180" role="img" aria-label={quoteattr(product.title)}>'
        f"<title>{escape(product.title)}</title>"
        f'<rect x="2" y="2" width="236" height="176" rx="16" fill="{color}"/>'
        '<circle cx="120" cy="78" r="48" fill="#ffffff" fill-opacity="0.55"/>'
        '<text x="120" y="100" font-size="60" text-anchor="middle">'
        f"{escape(product.emoji)}</text>"
        '<text x="120" y="150" font-size="15" font-weight="700" text-anchor="middle" '
        f'font-family="sans-serif" fill="#33383f">{escape(product.brand)}</text>'
        '<text x="120" y="168" font-size="12" text-anchor="middle" '
        f'font-family="sans-serif" fill="#4a4f57">{escape(product.model)}</text>'
        "</svg>"
    )
