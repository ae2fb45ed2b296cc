"""Книги declared as a site (entry point `books` in `webpagebench.sites`)."""

from __future__ import annotations

from services.core import inject
from services.core.sites import SiteDescriptor
from services.kit import clickables, evidence

SITE = SiteDescriptor(
    domain="books",
    caption="Книги",
    order=20,
    app="services.books.app",
    version=4,  # services/CHANGES.md
    events=evidence.SHOP_EVENTS | {"state_changed"},
    screens="services.books.catalog:states",
    vocabulary="services.books.catalog:vocabulary",
    names="services.books.catalog:names",
    search="services.books.catalog:search_ids",
    task_problems="services.books.catalog:task_problems",
    replay="services.books.app:replay",
    controls={
        "text_search": ("standard", "outlined", "filled", "underlined", "pill", "large"),
        "payment": ("form", "bank"),  # services/kit/bank.py
        inject.KEY: inject.implementations("visible", "aria", "search_result", "banner"),
        clickables.KEY: clickables.IMPLEMENTATIONS,
    },
    writers=evidence.shop_writers(
        "bench_books",
        cards=("main", "search", "item", "favorites"),
        lists=("search",),
        every=("main", "search", "item", "favorites", "basket", "checkout"),
    ),
    evidence=(*evidence.BASKET, *evidence.FAVORITES, *evidence.CHECKOUT, *evidence.LISTS),
)
