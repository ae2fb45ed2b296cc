"""Продукты declared as a site (entry point `grocery` in `webpagebench.sites`)."""

from __future__ import annotations

from services.core import inject
from services.core.sites import SiteDescriptor
from services.kit import evidence

SITE = SiteDescriptor(
    domain="grocery",
    caption="Продукты",
    order=30,
    app="services.grocery.app",
    version=2,  # services/CHANGES.md
    events=evidence.BASKET_EVENTS | {"state_changed"},
    screens="services.grocery.catalog:states",
    vocabulary="services.grocery.catalog:vocabulary",
    search="services.grocery.catalog:search_ids",
    replay="services.grocery.app:replay",
    controls={inject.KEY: inject.implementations("visible", "aria", "banner")},
    writers={
        "basket_add": ("bench_grocery_main", "bench_grocery_category", "bench_grocery_basket"),
        "basket_remove": ("bench_grocery_main", "bench_grocery_category", "bench_grocery_basket"),
    },
    evidence=(*evidence.BASKET, evidence.CATEGORY),
)
