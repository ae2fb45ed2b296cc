"""What the hub's routers share: its settings, pages, HTTP client, and the admin check."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated, Any

import httpx
from fastapi import Depends, Request
from fastapi.responses import Response

from services.kit.errors import FieldError
from services.kit.settings import HubSettings
from services.kit.site import Pages

HERE = Path(__file__).parent
COOKIE = "wpb_admin"


def settings(request: Request) -> HubSettings:
    return request.app.state.settings  # type: ignore[no-any-return]


def pages(request: Request) -> Pages:
    return request.app.state.pages  # type: ignore[no-any-return]


def http(request: Request) -> httpx.AsyncClient:
    return request.app.state.http  # type: ignore[no-any-return]


SettingsDep = Annotated[HubSettings, Depends(settings)]
PagesDep = Annotated[Pages, Depends(pages)]
HttpDep = Annotated[httpx.AsyncClient, Depends(http)]


def admin(request: Request, hub: SettingsDep) -> None:
    """The admin token, as `Authorization: Bearer …` (or, for a page, the login cookie)."""
    header = request.headers.get("authorization", "")
    token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
    if not token and request.method == "GET":
        token = request.cookies.get(COOKIE, "")
    if not token or not secrets.compare_digest(token, hub.admin_token):
        raise FieldError(
            "authorization", "a valid admin token is required (Authorization: Bearer <token>)", 401
        )


Admin = Depends(admin)


async def upstream_json(
    client: httpx.AsyncClient, method: str, url: str, **kwargs: Any
) -> Response:
    """The JSON answer of the events or verifier service, passed through as it is."""
    try:
        answer = await client.request(method, url, **kwargs)
    except httpx.TransportError as exc:
        raise FieldError("upstream", f"{url} unreachable ({exc})", 503) from None
    return Response(answer.content, answer.status_code, media_type="application/json")
