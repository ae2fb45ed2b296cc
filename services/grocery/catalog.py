"""Read-only access to the grocery catalog (``data/catalog.json``).

The JSON file is produced by ``python -m services.grocery.generate``; this module
only loads it into frozen dataclasses and renders product pictures as local SVG.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from services.grocery.chrome import CHROME
from services.kit.catalog import (
    Row,
    best_matches,
    catalog_items,
    color_or,
    exact_ids,
    read_json,
    text_matches,
    title_key,
    words,
)
from services.kit.pictures import product_picture, product_shape

CATALOG_PATH = Path(__file__).resolve().parent / "data" / "catalog.json"


# -- the catalog file (its JSON, as the generator writes it) -----------------------------


class CatalogData(TypedDict):
    categories: list[Row]
    products: list[Row]


@dataclass(frozen=True)
class Category:
    id: str
    name: str
    icon: str


@dataclass(frozen=True)
class Product:
    id: str
    title: str
    category: str
    price: int
    unit: str
    weight: str
    stock: int
    showcase: bool
    color: str
    emoji: str
    description: str
    storage: str
    nutrition: dict[str, float]  # per 100 g: kcal, protein, fat, carbs


# A section -> the section whose goods its products' pages offer besides.
COMPANIONS = {
    "produce": "dairy",
    "dairy": "bakery",
    "bakery": "dairy",
    "meat": "produce",
    "pantry": "bakery",
}


class Catalog:
    def __init__(self, categories: list[Category], products: list[Product]) -> None:
        self.categories: list[Category] = list(categories)
        self._products: list[Product] = list(products)
        self._words = {p.id: words(p.title) for p in self._products}
        self._categories_by_id = {c.id: c for c in self.categories}
        self._products_by_id = {p.id: p for p in self._products}
        self._in_category: dict[str, list[Product]] = {}  # sorted by title, once
        for product in sorted(self._products, key=lambda p: title_key(p.title)):
            self._in_category.setdefault(product.category, []).append(product)

    @classmethod
    def from_dict(cls, data: CatalogData) -> Catalog:
        return cls(
            catalog_items(Category, data["categories"]),
            catalog_items(Product, data["products"]),
        )

    def category(self, cat_id: str) -> Category | None:
        return self._categories_by_id.get(cat_id)

    def product(self, item_id: str) -> Product | None:
        return self._products_by_id.get(item_id)

    def products_in(self, cat_id: str) -> list[Product]:
        return list(self._in_category.get(cat_id, ()))

    def showcase(self) -> list[Product]:
        return [p for p in self._products if p.showcase]

    def all(self) -> list[Product]:
        return list(self._products)

    def search(self, query: str) -> tuple[list[Product], bool]:
        """Products with every query word (typos forgiven); else the closest: (list, exact)."""
        return best_matches(query, self._products, lambda p: self._words[p.id])

    def suggest(self, query: str, limit: int = 8) -> list[dict[str, str]]:
        """Menu sections and products that start to match what is typed."""
        query_words = words(query)[:8]
        if not query_words or len("".join(query_words)) < 2:
            return []
        found = [
            {"text": c.name, "hint": "раздел"}
            for c in self.categories
            if text_matches(query_words, words(c.name)) == len(query_words)
        ]
        found += [
            {"text": p.title, "hint": f"{p.price} ₽"}
            for p in sorted(self._products, key=lambda p: title_key(p.title))
            if text_matches(query_words, self._words[p.id]) == len(query_words)
        ]
        return found[:limit]

    def companions(self, product: Product, count: int = 4) -> list[Product]:
        """«Что ещё пригодится» on a product's page: goods of the section that goes with its
        own, a different few for each product."""
        others = self.products_in(COMPANIONS[product.category])
        start = int(product.id.rsplit("-", 1)[-1]) % len(others)
        return (others[start:] + others[:start])[:count]


@functools.cache
def load_catalog() -> Catalog:
    return Catalog.from_dict(read_json(CATALOG_PATH))


# The shape a product drawn is when its title names no kind (services/kit/pictures.py).
SHAPE_OF_CATEGORY = {"produce": "fruit", "dairy": "carton", "bakery": "loaf", "meat": "meat"}


def image_svg(product: Product, view: int = 1) -> str:
    """Picture `view` (1..`VIEWS`) of the product's gallery, 200×150: the thing its title
    names on its pastel card with the weight under it (services/kit/pictures.py)."""
    return product_picture(
        product.id,
        (200, 150),
        product.title,
        product_shape(product.title, SHAPE_OF_CATEGORY.get(product.category, "bag")),
        color_or(product.color, "#eeeeee"),
        (product.weight,),
        view,
    )


def vocabulary() -> dict[str, set[str]]:
    """Condition parameter -> the values this catalog knows (for `runner tasks validate`)."""
    catalog = load_catalog()
    return {
        "item_id": {p.id for p in catalog.all()},
        "title": {p.title for p in catalog.all()},
        "category": {c.id for c in catalog.categories},
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
        "bench_grocery_main",
        "bench_grocery_category",
        "bench_grocery_search",
        "bench_grocery_item",
        "bench_grocery_basket",
        "bench_grocery_checkout",
        "bench_grocery_login",
        CHROME.screen,
    }
