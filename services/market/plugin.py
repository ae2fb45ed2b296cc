"""Маркет declared as a site (entry point `shop` in `webpagebench.sites`)."""

from __future__ import annotations

from services.core import inject
from services.core.sites import SiteDescriptor
from services.kit import clickables, evidence

SITE = SiteDescriptor(
    domain="shop",
    caption="Маркет",
    order=10,
    app="services.market.app",
    version=4,  # services/CHANGES.md
    events=evidence.SHOP_EVENTS | {"state_changed", "dialog_opened"},
    screens="services.market.catalog:states",
    vocabulary="services.market.catalog:vocabulary",
    names="services.market.catalog:names",
    search="services.market.catalog:search_ids",
    replay="services.market.app:replay",
    controls={
        "text_search": ("standard", "outlined", "filled", "underlined", "pill", "large"),
        "payment": ("form", "bank"),  # services/kit/bank.py
        inject.KEY: inject.implementations("visible", "aria", "search_result", "banner"),
        clickables.KEY: clickables.IMPLEMENTATIONS,
    },
    writers=evidence.shop_writers(
        "bench_catalog",
        cards=("main", "category", "search", "item", "favorites"),
        lists=("category", "search"),
        every=("main", "category", "search", "item", "favorites", "basket", "checkout", "profile"),
    ),
    evidence=(
        *evidence.BASKET,
        *evidence.FAVORITES,
        *evidence.CHECKOUT,
        *evidence.LISTS,
        evidence.CATEGORY,
    ),
)
