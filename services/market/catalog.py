"""Read-only access to the market catalog (``data/catalog.json``): lookup, lists with filters
and sort, a typo-tolerant search and suggestions, and the product pictures as local SVG."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from services.kit.catalog import (
    FilterParams,
    Question,
    Review,
    Row,
    best_matches,
    catalog_items,
    color_or,
    exact_ids,
    facet_counts,
    read_json,
    text_matches,
    title_key,
    words,
)
from services.kit.pictures import product_picture, product_shape
from services.market.chrome import CHROME

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"


# -- the catalog file (its JSON, as the generator writes it) -----------------------------


class Details(TypedDict):
    stars: list[int]  # the product's ratings by stars, one star first
    reviews: list[Row]
    questions: list[Row]


class CatalogData(TypedDict):
    categories: list[Row]
    brands: dict[str, list[str]]  # category id -> its makers
    products: list[Row]  # specs as [name, value] pairs
    sellers: list[Row]
    details: dict[str, Details]  # product id -> its reviews and questions


# sort key -> caption, default first
SORTS: dict[str, str] = {
    "popular": "Сначала популярные",
    "price_asc": "Сначала дешевле",
    "price_desc": "Сначала дороже",
    "rating": "С высоким рейтингом",
}
RATINGS = ("4", "4.5")  # the rating filter: "from 4 stars", "from 4.5"
# a list's filters: their query keys, which are the `filter_type`s `apply_filter` writes
FILTER_TYPES = ("brand", "price_min", "price_max", "rating", "seller", "delivery", "discount")
# the delivery filter: days at most -> caption
DELIVERY: dict[str, str] = {"1": "Сегодня или завтра", "3": "До 3 дней"}
HIT_REVIEWS = 1000  # a product with this many reviews is a «Хит»


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    icon: str


@dataclass(frozen=True)
class Seller:
    id: str
    name: str
    rating: float
    orders: int
    since: int  # the year it came to the marketplace
    official: bool  # an official partner of its makers: its goods are «Оригинал»


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
    article: str  # «Артикул»
    seller: str  # seller id
    delivery: int  # days to deliver (0: today)
    novelty: bool  # «Новинка»

    @property
    def arrives(self) -> str:
        """When it is delivered: «сегодня», «завтра», «послезавтра», «за 5 дней»."""
        named = {0: "сегодня", 1: "завтра", 2: "послезавтра"}
        return named.get(
            self.delivery, f"за {self.delivery} {'дня' if self.delivery < 5 else 'дней'}"
        )

    @property
    def discount(self) -> int:
        """The discount in per cent (0 without an old price)."""
        return round((1 - self.price / self.old_price) * 100) if self.old_price else 0


def _product(specs: list[list[str]], **fields: Any) -> Product:
    """A product from its catalog row, whose specs are [name, value] lists."""
    return Product(specs=tuple((name, value) for name, value in specs), **fields)


@dataclass(frozen=True)
class Filters:
    """What a list is narrowed by; empty means the whole list."""

    brands: tuple[str, ...] = ()
    price_min: int | None = None
    price_max: int | None = None
    rating: str | None = None
    sellers: tuple[Seller, ...] = ()
    delivery: str | None = None  # a `DELIVERY` key
    discount: bool = False

    def as_params(self) -> FilterParams:
        """filter_type -> value, as `apply_filter` writes them (one entry per brand and per
        seller, by name)."""
        params: FilterParams = {f"brand:{b}": b for b in self.brands}
        if self.price_min is not None:
            params["price_min"] = self.price_min
        if self.price_max is not None:
            params["price_max"] = self.price_max
        if self.rating is not None:
            params["rating"] = self.rating
        params |= {f"seller:{s.id}": s.name for s in self.sellers}
        if self.delivery is not None:
            params["delivery"] = int(self.delivery)
        if self.discount:
            params["discount"] = True
        return params

    def keep(self, product: Product, facet: str = "") -> bool:
        """Whether the product passes every filter (but the `facet` one: a facet's counts
        are of the list its other filters leave)."""
        return (
            (facet == "brand" or not self.brands or product.brand in self.brands)
            and (self.price_min is None or product.price >= self.price_min)
            and (self.price_max is None or product.price <= self.price_max)
            and (facet == "rating" or self.rating is None or product.rating >= float(self.rating))
            and (
                facet == "seller"
                or not self.sellers
                or product.seller in {s.id for s in self.sellers}
            )
            and (
                facet == "delivery"
                or self.delivery is None
                or product.delivery <= int(self.delivery)
            )
            and (facet == "discount" or not self.discount or bool(product.old_price))
        )

    def counts(self, products: list[Product]) -> dict[str, dict[str, int]]:
        """Each facet's live counts: facet -> value -> products the other filters leave."""

        def count(facet: str, values: Callable[[Product], Iterable[str]]) -> dict[str, int]:
            return facet_counts(products, lambda p: self.keep(p, facet), values)

        return {
            "brand": count("brand", lambda p: [p.brand]),
            "rating": count("rating", lambda p: [r for r in RATINGS if p.rating >= float(r)]),
            "seller": count("seller", lambda p: [p.seller]),
            "delivery": count("delivery", lambda p: [d for d in DELIVERY if p.delivery <= int(d)]),
            "discount": count("discount", lambda p: ["1"] if p.old_price else []),
        }


class Catalog:
    def __init__(
        self,
        categories: list[Category],
        brands: dict[str, list[str]],
        products: list[Product],
        sellers: list[Seller],
        details: dict[str, Details],
    ) -> None:
        self.categories = list(categories)
        self.sellers = {s.id: s for s in sellers}
        self._details = details
        self.brands = {k: list(v) for k, v in brands.items()}
        self._products = list(products)
        self._categories_by_id = {c.id: c for c in self.categories}
        self._by_id = {p.id: p for p in self._products}
        self._haystack = {
            p.id: words(f"{p.title} {self._categories_by_id[p.category].name}")
            for p in self._products
        }
        # What the catalogue menu of every page shows of each category: listed once.
        self._in_category: dict[str, list[Product]] = {}
        for product in self._products:
            self._in_category.setdefault(product.category, []).append(product)
        self._kinds: dict[str, list[str]] = {}
        self._searched: dict[str, list[str]] = {}
        for cat_id, items in self._in_category.items():
            by_reviews = sorted(items, key=lambda p: -p.reviews)
            self._kinds[cat_id] = list(dict.fromkeys(p.kind for p in by_reviews))
            by_reviews = sorted(items, key=lambda p: (-p.reviews, p.id))
            found = (f"{p.kind.split()[0].lower()} {p.brand}" for p in by_reviews)
            self._searched[cat_id] = list(dict.fromkeys(found))

    @classmethod
    def from_dict(cls, data: CatalogData) -> Catalog:
        return cls(
            catalog_items(Category, data["categories"]),
            data["brands"],
            catalog_items(_product, data["products"]),
            catalog_items(Seller, data["sellers"]),
            data["details"],
        )

    def all(self) -> list[Product]:
        return list(self._products)

    def category(self, cat_id: str) -> Category | None:
        return self._categories_by_id.get(cat_id)

    def product(self, item_id: str) -> Product | None:
        return self._by_id.get(item_id)

    def seller(self, product: Product) -> Seller:
        return self.sellers[product.seller]

    def badges(self, product: Product) -> list[tuple[str, str]]:
        """A card's badges: (caption, kind) for a much-reviewed product, a discount, a new
        one, an official partner's."""
        out = [("Хит", "hit")] if product.reviews >= HIT_REVIEWS else []
        if product.old_price:
            out.append((f"Скидка −{product.discount} %", "sale"))
        if product.novelty:
            out.append(("Новинка", "new"))
        if self.seller(product).official:
            out.append(("Оригинал", "original"))
        return out

    def recommended(self, product: Product, limit: int = 8) -> list[Product]:
        """«С этим товаром покупают»: the most reviewed of the other categories, from a
        place of the list that moves with the product."""
        others = sorted(
            (p for p in self._products if p.category != product.category),
            key=lambda p: (-p.reviews, p.id),
        )
        start = self._products.index(product) % len(others)
        return (others[start:] + others[:start])[:limit]

    def stars(self, product: Product) -> list[int]:
        """The product's ratings by stars, one star first."""
        return self._details[product.id]["stars"]

    def reviews(self, product: Product) -> list[Review]:
        return catalog_items(Review, self._details[product.id]["reviews"])

    def questions(self, product: Product) -> list[Question]:
        return catalog_items(Question, self._details[product.id]["questions"])

    def kinds(self, cat_id: str) -> list[str]:
        """The kinds of product a category holds (its sub-sections), the most reviewed first."""
        return list(self._kinds.get(cat_id, ()))

    def popular_searches(self, cat_id: str, limit: int = 3) -> list[str]:
        """What is searched for in a category (the catalogue menu's links): the kind and the
        maker of its most reviewed products."""
        return self._searched.get(cat_id, [])[:limit]

    def in_category(self, cat_id: str) -> list[Product]:
        return list(self._in_category.get(cat_id, ()))

    def showcase(self) -> list[Product]:
        return [p for p in self._products if p.showcase]

    def deals(self) -> list[Product]:
        return [p for p in self._products if p.deal]

    def all_brands(self) -> list[str]:
        return sorted({p.brand for p in self._products})

    def search(self, query: str) -> tuple[list[Product], bool]:
        """Products with every query word (typos forgiven); else the closest: (list, exact)."""
        return best_matches(query, self._products, lambda p: self._haystack[p.id])

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
        return sorted(kept, key=lambda p: (p.price, title_key(p.title)))
    if sort == "price_desc":
        return sorted(kept, key=lambda p: (-p.price, title_key(p.title)))
    if sort == "rating":
        return sorted(kept, key=lambda p: (-p.rating, -p.reviews, title_key(p.title)))
    return sorted(kept, key=lambda p: (-p.reviews, title_key(p.title)))


@functools.cache
def load_catalog() -> Catalog:
    return Catalog.from_dict(read_json(CATALOG_PATH))


def image_svg(product: Product, view: int = 1) -> str:
    """Picture `view` of the product's gallery (services/kit/pictures.py), 240×180: the
    thing its title names on its pastel card, with the maker and model under it."""
    return product_picture(
        product.id,
        (240, 180),
        product.title,
        product_shape(product.title, "box"),
        color_or(product.color, "#eeeeee"),
        (product.brand, product.model),
        view,
    )


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    catalog = load_catalog()
    return {
        "item_id": {p.id for p in catalog.all()},
        "title": {p.title for p in catalog.all()},
        "category": {c.id for c in catalog.categories},
        "filter_type": set(FILTER_TYPES),
        "sort": set(SORTS),
    }


def names() -> dict[str, str]:
    """Id -> what a person calls it: the products and the categories (the descriptor's
    `names`)."""
    catalog = load_catalog()
    return {p.id: p.title for p in catalog.all()} | {c.id: c.name for c in catalog.categories}


def search_ids(query: str, among: str = "") -> set[str]:
    """The ids its search finds with every word of `query` (the descriptor's `search`)."""
    return exact_ids(load_catalog().search(query), lambda p: p.id)


def states() -> set[str]:
    """The screens this site serves (`state_changed.new_state`)."""
    return {
        f"bench_catalog_{screen}"
        for screen in (
            "main",
            "category",
            "search",
            "item",
            "favorites",
            "basket",
            "checkout",
            "profile",
        )
    } | {CHROME.screen}
