"""Отели declared as a site (entry point `hotels` in `webpagebench.sites`)."""

from __future__ import annotations

from services.core import inject
from services.core.sites import Evidence, SiteDescriptor
from services.kit import evidence

SITE = SiteDescriptor(
    domain="hotels",
    caption="Отели",
    order=50,
    app="services.hotels.app",
    version=4,  # services/CHANGES.md
    events=frozenset(
        {
            "state_changed",
            "bench_hotel_select_city",
            "bench_hotel_select_start_date",
            "bench_hotel_select_end_date",
            "bench_hotel_select_guests",
            "bench_hotel_select_hotel",
            "bench_hotel_select_room",
            "bench_hotel_confirm_booking",
            "apply_filter",
            "apply_sort",
            "add_favorites",
            "remove_favorites",
        }
    ),
    screens="services.hotels.catalog:states",
    vocabulary="services.hotels.catalog:vocabulary",
    names="services.hotels.catalog:names",
    search="services.hotels.catalog:search_ids",
    replay="services.hotels.app:replay",
    controls={
        "date": ("split_popup", "inline_calendar", "text_input", "single_popup"),
        "select_city": ("autocomplete", "native_select"),
        "counter_guests": ("rooms_popup", "inline_stepper", "compact_select", "pill_buttons"),
        # A room's rates to choose before it is booked (issue 39's steps suite).
        "hotel_rates": ("room", "rates"),
        inject.KEY: inject.implementations("visible", "aria", "banner"),
    },
    writers={
        **dict.fromkeys(
            (
                "bench_hotel_select_city",
                "bench_hotel_select_start_date",
                "bench_hotel_select_end_date",
                "bench_hotel_select_guests",
            ),
            ("state_hotels_main", "bench_hotel_search"),
        ),
        "bench_hotel_select_hotel": ("bench_hotel_search",),
        "bench_hotel_select_room": ("bench_hotel_item",),
        "bench_hotel_confirm_booking": ("bench_hotel_booking",),
        **dict.fromkeys(("apply_filter", "apply_sort"), ("bench_hotel_search",)),
        **dict.fromkeys(
            ("add_favorites", "remove_favorites"), ("bench_hotel_search", "bench_hotel_item")
        ),
    },
    evidence=(
        Evidence("COUNTER", "bench_hotel_select_guests"),
        Evidence("CARD", "bench_hotel_select_hotel"),
        Evidence("CARD", "bench_hotel_select_room"),
        Evidence("DATE", "bench_hotel_select_start_date"),
        Evidence("DATE", "bench_hotel_select_end_date"),
        Evidence("SELECT_AC", "bench_hotel_select_city"),
        evidence.CATEGORY,
    ),
)
