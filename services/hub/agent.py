"""The agent's side (`/t/{tid}/…`, no token): the hub page with the site tabs, tracking
events, and every site's pages and assets through the proxy."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from services.core import perturb
from services.core.contract import TRACKING_TYPES
from services.core.errors import FieldError
from services.core.models.api import PageEvents
from services.core.sites import registry
from services.hub.deps import HERE, HttpDep, PagesDep, SettingsDep
from services.hub.proxy import check_path, forward
from services.kit import bank
from services.kit.account import TEST_CARD
from services.kit.site import (
    Emitter,
    Pages,
    SiteSpec,
    TrajectoryDep,
    current_trajectory,
    page_grant,
    parse_page_events,
)
from services.kit.trajectory import Trajectory
from services.kit.upstream import UPSTREAM_ERRORS
from services.kit.web import json_body, read_json

router = APIRouter()

# A site that cannot be reached (it restarts, or compose replaces its container): 503, and
# the seconds after which asking again makes sense.
SITE_RETRY_AFTER_S = 2


def account(trajectory: Trajectory) -> tuple[str, str] | None:
    """The test account (login, password) where a site of the trajectory lets its session
    expire (`session=expire`, services/kit/session.py): the hub page shows it."""
    domains = trajectory.meta.get("ui_variants", {})
    expires = any(trajectory.variant(domain, "session") == "expire" for domain in domains)
    return perturb.ACCOUNT if expires else None


def test_card(trajectory: Trajectory) -> tuple[str, str, str] | None:
    """The test card (number, expiry, CVC) where a site of the trajectory takes a card on the
    bank's page (`payment=bank`, services/kit/bank.py): the hub page shows it."""
    domains = trajectory.meta.get("ui_variants", {})
    banked = any(trajectory.variant(domain, bank.KEY) == bank.BANK for domain in domains)
    return TEST_CARD if banked else None


def theme(trajectory: Trajectory) -> str:
    first = trajectory.meta.get("first_domain") or "grocery"
    return trajectory.variant(first, "theme") or "light"


def tracking_only(payload: Any) -> bool:
    """Whether a page's `_events` body holds tracking events only."""
    items = payload if isinstance(payload, list) else [payload]
    return all(
        isinstance(item, dict)
        and isinstance(item.get("type"), str)
        and item["type"] in TRACKING_TYPES
        for item in items
    )


def site_page(
    pages: Pages, trajectory: Trajectory, template: str, status: int, domain: str
) -> HTMLResponse:
    """The hub's own page in a site's place (not built, unavailable), in its theme."""
    return pages.render(
        trajectory,
        template,
        status_code=status,
        theme=trajectory.variant(domain, "theme"),
        current=domain,
    )


@router.get("/t/{tid}/")
async def hub_page(
    request: Request, trajectory: TrajectoryDep, hub: SettingsDep, pages: PagesDep
) -> HTMLResponse:
    await Emitter(request.app.state.bus, "hub", trajectory).screen("bench_hub_main")
    return pages.render(
        trajectory,
        "hub.html",
        theme=theme(trajectory),
        built=hub.sites,
        account=account(trajectory),
        test_card=test_card(trajectory),
    )


@router.post("/t/{tid}/{domain}/_events", openapi_extra=json_body(PageEvents))
async def page_events(request: Request, tid: str, domain: str) -> Response:
    """Tracking events (click, keypress, scroll) are stored here, one hop shorter;
    widget selections go on to the site, which checks them against its catalog. (The most
    frequent request of all: no dependencies to solve, the app's state read directly.)"""
    if domain != "hub" and domain not in registry().captions:
        raise FieldError("domain", f"unknown domain {domain!r}", 404)
    payload = read_json(await request.body())  # refused here when it is not JSON
    if domain != "hub" and not tracking_only(payload):
        state = request.app.state
        return await site(request, tid, domain, state.settings, state.pages, state.http)
    trajectory = await current_trajectory(request, tid)
    emit = Emitter(request.app.state.bus, domain, trajectory)
    grant = page_grant(request, trajectory, domain)
    events = parse_page_events(payload, SiteSpec(domain=domain, root=HERE), emit, grant)
    await emit.publish(events)
    return JSONResponse({"accepted": len(events), "ids": [event["id"] for event in events]})


@router.get("/t/{tid}")
async def hub_page_slash(tid: str) -> RedirectResponse:
    return RedirectResponse(f"/t/{tid}/", status_code=307)


@router.api_route(
    "/t/{tid}/{domain}/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
)
async def site(
    request: Request, tid: str, domain: str, hub: SettingsDep, pages: PagesDep, client: HttpDep
) -> Response:
    if domain not in registry().captions:
        raise FieldError("domain", f"unknown domain {domain!r}", 404)
    check_path(request.url.path)
    trajectory = await current_trajectory(request, tid)
    upstream = hub.sites.get(domain)
    if upstream is None:
        return site_page(pages, trajectory, "not_built.html", 404, domain)
    try:
        return await forward(client, request, upstream, trajectory.revision)
    except UPSTREAM_ERRORS:  # refused, or its name does not resolve (compose: replaced)
        page = site_page(pages, trajectory, "unavailable.html", 503, domain)
        page.headers["Retry-After"] = str(SITE_RETRY_AFTER_S)
        return page


@router.get("/_site/{domain}/{path:path}")
async def site_static(request: Request, domain: str, hub: SettingsDep, client: HttpDep) -> Response:
    check_path(request.url.path)
    upstream = hub.sites.get(domain)
    if upstream is None:
        raise FieldError("domain", f"no site serves {domain!r}", 404)
    try:
        return await forward(client, request, upstream)
    except UPSTREAM_ERRORS:
        raise FieldError("domain", f"site {domain} unreachable", 503) from None
