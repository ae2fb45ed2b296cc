"""Продукты (domain `grocery`): showcase, five-item menu, category pages, cart."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from services.grocery.catalog import load_catalog
from services.grocery.chrome import CHROME
from services.grocery.routes import DOMAIN, assets, make_commerce, router
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
