"""Файлы (domain `files`): a cabinet of collections, years, and real PDF and CSV downloads.

Every event is written by the route that serves the screen or the file (`routes.py`):
the cabinet and a collection write `state_changed`; a collection page writes
`bench_files_select_collection` and, once a year is chosen, `bench_files_select_year`;
a download writes `bench_files_download` as the file is sent.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from services.files.catalog import Catalog, load_catalog
from services.files.chrome import CHROME
from services.files.routes import DOMAIN, make_replay, page_context, router
from services.kit.replay import Replay
from services.kit.settings import SiteSettings
from services.kit.site import SiteSpec
from services.kit.siteapp import create_site_app


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog: Catalog = load_catalog(settings.data_dir) if settings.data_dir else load_catalog()
    spec = SiteSpec(
        domain=DOMAIN,
        root=Path(__file__).parent,
        chrome=CHROME,
        ready=catalog.is_complete,
        page_context=page_context,
    )
    return create_site_app(spec, settings, router, replay=make_replay(catalog), catalog=catalog)


def replay() -> Replay:
    """The start state this site replays (its descriptor's `replay` hook)."""
    return make_replay(load_catalog())
