"""A site's app: its trajectory routes, `_events`, the expired session's login screen
(services/kit/session.py) and its assets; apart from services/kit/site.py, whose
dependencies the session's routes are built on."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from services.core.errors import FieldError
from services.core.models.api import PageEvents
from services.core.sites import registry
from services.kit import session
from services.kit.chrome import Chrome
from services.kit.latency import Latency
from services.kit.replay import Replay
from services.kit.settings import SiteSettings
from services.kit.site import (
    DONE_DIALOGS,
    SHELL,
    Accepted,
    Pages,
    SiteDep,
    SiteSpec,
    SiteState,
    dialogs_done,
    keep_first,
    page_grant,
    parse_page_events,
    site_prefix,
)
from services.kit.web import create_service_app, json_body, read_json


def create_site_app(
    spec: SiteSpec,
    settings: SiteSettings,
    router: APIRouter,
    assets: APIRouter | None = None,
    catalog: Any = None,
    commerce: Any = None,
    replay: Replay | None = None,
) -> FastAPI:
    """The site's app: its trajectory routes, `_events`, and its assets under `/_site/{domain}`.

    `assets` holds generated assets (images) that are not per trajectory and can be cached;
    `catalog` is what the `catalog` dependency gives the handlers, `commerce` a shop's
    `services.kit.commerce.Commerce` (its shared routes read it).
    """
    app = create_service_app(spec.domain, settings, ready=lambda _: spec.ready())
    app.state.spec = spec
    described = registry().site(spec.domain)
    app.state.site_version = described.version if described else None  # its /ready says it
    app.state.catalog = catalog
    app.state.commerce = commerce
    app.state.pages = Pages(
        spec.root / "templates", spec.domain, settings.service_token, spec.chrome
    )
    app.add_middleware(Latency, domain=spec.domain)

    events_router = APIRouter(prefix=site_prefix(spec.domain))

    @events_router.post("/_events", openapi_extra=json_body(PageEvents))
    async def page_events(site: SiteDep) -> Accepted:
        if not site.trajectory.is_open:
            raise FieldError("trajectory", "closed, no more events accepted", 409)
        grant = page_grant(site.request, site.trajectory, spec.domain)
        payload = read_json(await site.request.body())
        events = parse_page_events(payload, spec, site.emit, grant)
        await site.emit.publish(events)
        done = dialogs_done(events)
        if done:
            shell = SiteState(site.state.bus, SHELL, site.trajectory)
            await shell.update(DONE_DIALOGS, lambda value: keep_first(value, done))
        return {"accepted": len(events), "ids": [event["id"] for event in events]}

    app.include_router(events_router)
    if replay is not None:
        app.include_router(replay.router())
    app.include_router(session.session_router(spec.domain))
    if spec.chrome is not None:  # before the site's own routes, which may end in a catch-all
        app.include_router(
            info_router(spec.domain, spec.chrome), dependencies=[Depends(session.gate)]
        )
    app.include_router(router, dependencies=[Depends(session.gate)])
    app.add_exception_handler(session.SessionExpired, session.answer_expired)  # type: ignore[arg-type]
    if assets is not None:
        app.include_router(assets, prefix=f"/_site/{spec.domain}")
    static = spec.root / "static"
    if static.is_dir():
        app.mount(f"/_site/{spec.domain}", StaticFiles(directory=static), name="site-static")
    return app


def info_router(domain: str, chrome: Chrome) -> APIRouter:
    """`GET /info/{slug}`: the information page of one of the chrome's links (its caption
    and text, in the site's layout), writing the chrome's screen with the slug as its
    `category`; a slug the chrome has no link for is the site's missing page."""
    router = APIRouter(prefix=site_prefix(domain))

    @router.get("/info/{slug}")
    async def info(slug: str, site: SiteDep) -> HTMLResponse:
        link = chrome.page(slug)
        if link is None:
            return await site.page("missing.html", 404)
        await site.emit.screen(chrome.screen, category=slug)
        return await site.page("kit/info.html", info=link, paragraphs=chrome.text(slug))

    return router
