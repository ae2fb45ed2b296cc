"""Продукты declared as a site (entry point `grocery` in `webpagebench.sites`)."""

from __future__ import annotations

from services.core import inject
from services.core.sites import SiteDescriptor
from services.kit import clickables, evidence

EVENTS = evidence.BASKET_EVENTS | {
    "state_changed",
    "submit_search",
    "select_pay_method",
    "submit_payment",
    "bench_grocery_login",
}
# The kit's shop writers of the events it writes (it has no favourites and no list filters).
SHOP_WRITERS = evidence.shop_writers(
    "bench_grocery",
    cards=("main", "category", "search", "item", "checkout"),
    lists=(),
    every=("main", "category", "search", "item", "basket", "checkout", "login"),
)

SITE = SiteDescriptor(
    domain="grocery",
    caption="Продукты",
    order=30,
    app="services.grocery.app",
    version=3,  # services/CHANGES.md
    events=EVENTS,
    screens="services.grocery.catalog:states",
    vocabulary="services.grocery.catalog:vocabulary",
    names="services.grocery.catalog:names",
    search="services.grocery.catalog:search_ids",
    replay="services.grocery.app:replay",
    controls={
        "text_search": ("standard", "outlined", "filled", "underlined", "pill", "large"),
        "payment": ("form", "bank"),  # services/kit/bank.py
        inject.KEY: inject.implementations("visible", "aria", "banner"),
        clickables.KEY: clickables.IMPLEMENTATIONS,
    },
    writers={
        **{name: screens for name, screens in SHOP_WRITERS.items() if name in EVENTS},
        "bench_grocery_login": ("bench_grocery_login",),
    },
    evidence=(*evidence.BASKET, *evidence.CHECKOUT, evidence.CATEGORY),
)
