"""Файлы declared as a site (entry point `files` in `webpagebench.sites`)."""

from __future__ import annotations

from services.core import inject
from services.core.sites import Evidence, SiteDescriptor
from services.kit import clickables

SITE = SiteDescriptor(
    domain="files",
    caption="Файлы",
    order=60,
    app="services.files.app",
    version=3,  # services/CHANGES.md
    events=frozenset(
        {
            "state_changed",
            "bench_files_select_collection",
            "bench_files_select_year",
            "bench_files_download",
        }
    ),
    screens="services.files.catalog:states",
    vocabulary="services.files.catalog:vocabulary",
    names="services.files.catalog:names",
    search="services.files.catalog:search_ids",
    replay="services.files.app:replay",
    controls={
        "collections": ("cards", "list", "tree", "compact"),
        "years": ("select", "buttons", "radio"),
        "buttons": ("outline", "solid", "icon", "split"),
        inject.KEY: inject.implementations("document", "aria", "banner"),
        clickables.KEY: clickables.IMPLEMENTATIONS,
    },
    writers=dict.fromkeys(
        ("bench_files_select_collection", "bench_files_select_year", "bench_files_download"),
        ("bench_files_cabinet", "bench_files_collection"),
    ),
    evidence=(
        Evidence("FILES", "bench_files_select_collection"),
        Evidence("FILES", "bench_files_select_year"),
        Evidence("FILES", "bench_files_download"),
        Evidence("SELECT_LIST", "bench_files_select_year"),
    ),
)
