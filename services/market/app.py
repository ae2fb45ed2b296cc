"""Маркет (domain `shop`): showcase with a carousel, categories, search with suggestions,
product pages, favourites, cart with quantities, filters and sort, login dialog, checkout.

Server-written events: `state_changed` (every screen served), `submit_search` (a results
page served for the search field), `apply_filter` / `apply_sort` (a list served with a new
filter or sort), `basket_add` / `basket_remove`, `add_favorites` / `remove_favorites`,
`select_pay_method`, `submit_payment`. Page-written: `dialog_opened` (the login dialog).
The routes are in `routes.py`, the rules in `service.py`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from services.kit.replay import Replay
from services.kit.settings import SiteSettings
from services.kit.site import SiteSpec
from services.kit.siteapp import create_site_app
from services.market import service
from services.market.catalog import load_catalog
from services.market.chrome import CHROME
from services.market.routes import DOMAIN, assets, make_commerce, router


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    shop = make_commerce(catalog, settings)
    spec = SiteSpec(
        domain=DOMAIN,
        root=Path(__file__).parent,
        chrome=CHROME,
        page_event_types=service.PAGE_EVENT_TYPES,
        check_page_event=service.check_page_event,
        ready=lambda: bool(catalog.all()),
        page_context=shop.page_context,
    )
    return create_site_app(
        spec, settings, router, assets, replay=shop.replay(), catalog=catalog, commerce=shop
    )


def replay() -> Replay:
    """The start state this site replays (its descriptor's `replay` hook, whose checks read
    no setting: the settings' defaults, unchecked, as no service token is needed)."""
    return make_commerce(load_catalog(), SiteSettings.model_construct()).replay()
