"""Книги (domain `books`): front page, search with author and title suggestions, results
with filters (format, language, author) and sort, book pages, favourites, cart, checkout.

Server-written events: `state_changed` (every screen served), `submit_search` (a results
page served for the search field), `apply_filter` / `apply_sort` (a list served with a new
filter or sort), `basket_add` / `basket_remove`, `add_favorites` / `remove_favorites`,
`select_pay_method`, `submit_payment`; no page writes any. The routes are in `routes.py`,
the rules in `service.py`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from services.books.catalog import load_catalog
from services.books.chrome import CHROME
from services.books.routes import DOMAIN, assets, make_commerce, router
from services.kit.replay import Replay
from services.kit.settings import SiteSettings
from services.kit.site import SiteSpec
from services.kit.siteapp import create_site_app


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    catalog = load_catalog()
    shop = make_commerce(catalog)
    spec = SiteSpec(
        domain=DOMAIN,
        root=Path(__file__).parent,
        chrome=CHROME,
        ready=lambda: bool(catalog.all()),
        page_context=shop.page_context,
    )
    return create_site_app(
        spec,
        settings or SiteSettings(),
        router,
        assets,
        replay=shop.replay(),
        catalog=catalog,
        commerce=shop,
    )


def replay() -> Replay:
    """The start state this site replays (its descriptor's `replay` hook)."""
    return make_commerce(load_catalog()).replay()
