"""Поезда (domain `rail`): search form, results with filter and sort, train page with tariff
and seat map, passengers, cart, checkout with a pay method and a payment step.

The form's widgets (stations, dates) write their own page events; every other action is a
route (`routes.py`) that changes the trajectory's state and writes one event, over the
rules in `service.py`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from services.kit.replay import Replay
from services.kit.settings import SiteSettings
from services.kit.site import SiteSpec
from services.kit.siteapp import create_site_app
from services.rail import service
from services.rail.catalog import load_catalog
from services.rail.chrome import CHROME
from services.rail.replay import make_replay
from services.rail.routes import DOMAIN, page_context, router


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    catalog = load_catalog()
    spec = SiteSpec(
        domain=DOMAIN,
        root=Path(__file__).parent,
        chrome=CHROME,
        page_event_types=service.PAGE_EVENT_TYPES,
        check_page_event=service.page_event_check(catalog),
        ready=lambda: bool(catalog.trains),
        page_context=page_context,
    )
    return create_site_app(
        spec, settings or SiteSettings(), router, replay=make_replay(catalog), catalog=catalog
    )


def replay() -> Replay:
    """The start state this site replays (its descriptor's `replay` hook)."""
    return make_replay(load_catalog())
