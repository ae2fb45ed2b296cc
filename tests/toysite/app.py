"""Игрушки (domain `toy`): one screen of toy cards, each with a bell; ringing one is a
server handler that writes `toy_ring`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, FastAPI, Form
from fastapi.responses import HTMLResponse, Response

from services.core.errors import FieldError
from services.kit.settings import SiteSettings
from services.kit.site import SiteDep, SiteSpec, site_prefix
from services.kit.siteapp import create_site_app
from toysite.plugin import BELLS, SCREEN, SITE

router = APIRouter(prefix=site_prefix(SITE.domain))


@router.get("/")
async def main(site: SiteDep) -> HTMLResponse:
    await site.emit.screen(SCREEN)
    return await site.page("main.html", bells=BELLS)


@router.post("/ring")
async def ring(site: SiteDep, bell: Annotated[str, Form()]) -> Response:
    if bell not in BELLS:
        raise FieldError("bell", f"no toy has the bell {bell!r}")
    await site.emit("toy_ring", bell=bell)
    return site.redirect("/")


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    spec = SiteSpec(domain=SITE.domain, root=Path(__file__).parent)
    return create_site_app(spec, settings or SiteSettings(), router)
