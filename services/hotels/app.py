"""Отели (domain `hotels`): city, dates and guests search; results; hotel page; room choice.

The search form's widgets (city, dates, guests) write their own page events; the routes
(`routes.py`, over the rules in `service.py`) write the screens, the hotel opened and the
room chosen.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from services.hotels import service
from services.hotels.catalog import load_catalog
from services.hotels.chrome import CHROME
from services.hotels.routes import DOMAIN, assets, make_replay, page_context, router
from services.kit.replay import Replay
from services.kit.settings import SiteSettings
from services.kit.site import SiteSpec
from services.kit.siteapp import create_site_app


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    catalog = load_catalog()
    spec = SiteSpec(
        domain=DOMAIN,
        root=Path(__file__).parent,
        chrome=CHROME,
        page_event_types=service.PAGE_EVENT_TYPES,
        check_page_event=service.page_event_check(catalog),
        ready=lambda: bool(catalog.hotels),
        page_context=page_context,
    )
    return create_site_app(
        spec,
        settings or SiteSettings(),
        router,
        assets,
        replay=make_replay(catalog),
        catalog=catalog,
    )


def replay() -> Replay:
    """The start state this site replays (its descriptor's `replay` hook)."""
    return make_replay(load_catalog())
