"""Продукты (domain `grocery`): showcase, five-item menu, category pages, search with
suggestions, product pages, cart, checkout, login."""

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
    settings = settings or SiteSettings()
    catalog = load_catalog()
    shop = make_commerce(catalog, settings)
    spec = SiteSpec(
        domain=DOMAIN,
        root=Path(__file__).parent,
        chrome=CHROME,
        ready=lambda: bool(catalog.all()),
        page_context=shop.page_context,
    )
    return create_site_app(
        spec,
        settings,
        router,
        assets,
        replay=shop.replay(),
        catalog=catalog,
        commerce=shop,
    )


def replay() -> Replay:
    """The start state this site replays (its descriptor's `replay` hook, whose checks read
    no setting: the settings' defaults, unchecked, as no service token is needed)."""
    return make_commerce(load_catalog(), SiteSettings.model_construct()).replay()
