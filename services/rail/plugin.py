"""Поезда declared as a site (entry point `rail` in `webpagebench.sites`)."""

from __future__ import annotations

from services.core import inject
from services.core.sites import Evidence, SiteDescriptor
from services.kit import evidence

SITE = SiteDescriptor(
    domain="rail",
    caption="Поезда",
    order=40,
    app="services.rail.app",
    version=4,  # services/CHANGES.md
    events=evidence.BASKET_EVENTS
    | {
        "state_changed",
        "submit_search",
        "apply_filter",
        "apply_sort",
        "select_city",
        "select_date",
        "select_train",
        "select_tariff",
        "select_seat",
        "select_passenger",
        "select_pay_method",
        "submit_payment",
    },
    screens="services.rail.catalog:states",
    vocabulary="services.rail.catalog:vocabulary",
    search="services.rail.catalog:search_ids",
    replay="services.rail.app:replay",
    controls={
        "date": ("popup_grid", "native_input", "text_input"),
        "select_station": ("typeahead", "native_select"),
        # The steps suite's (issue 39): the seats drawn as the car, the passengers as a
        # dropdown with categories; the same forms and events as the defaults.
        "seat_map": ("list", "car"),
        "passengers": ("selects", "dropdown"),
        "payment": ("form", "bank"),  # services/kit/bank.py
        inject.KEY: inject.implementations("aria", "banner"),
    },
    writers={
        **dict.fromkeys(("select_city", "select_date", "submit_search"), ("bench_rail_main",)),
        **dict.fromkeys(("apply_filter", "apply_sort", "select_train"), ("bench_rail_search",)),
        **dict.fromkeys(("select_tariff", "select_seat"), ("bench_rail_train",)),
        **dict.fromkeys(("select_passenger", "basket_add"), ("bench_rail_passengers",)),
        "basket_remove": ("bench_rail_basket",),
        "select_pay_method": ("bench_rail_checkout",),
        "submit_payment": ("bench_rail_payment",),
    },
    evidence=(
        *evidence.BASKET,
        *evidence.CHECKOUT,
        *evidence.LISTS,
        Evidence("CARD", "select_train"),
        Evidence("DATE", "select_date"),
        Evidence("SELECT_AC", "select_city"),
        Evidence("SELECT_LIST", "select_tariff"),
    ),
)
