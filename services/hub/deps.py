"""What the hub's routers share: its settings, pages, HTTP client, and the admin check."""

from __future__ import annotations

import hashlib
import hmac
import time
from pathlib import Path
from typing import Annotated, Any

import aiohttp
from fastapi import Depends, Request
from fastapi.responses import Response

from services.core.errors import FieldError
from services.kit.settings import HubSettings
from services.kit.site import Pages
from services.kit.upstream import UPSTREAM_ERRORS

HERE = Path(__file__).parent
COOKIE = "wpb_admin"
SESSION_S = 12 * 3600  # how long a login on the viewer lasts


async def settings(request: Request) -> HubSettings:
    return request.app.state.settings  # type: ignore[no-any-return]


async def pages(request: Request) -> Pages:
    return request.app.state.pages  # type: ignore[no-any-return]


async def http(request: Request) -> aiohttp.ClientSession:
    return request.app.state.http  # type: ignore[no-any-return]


SettingsDep = Annotated[HubSettings, Depends(settings)]
PagesDep = Annotated[Pages, Depends(pages)]
HttpDep = Annotated[aiohttp.ClientSession, Depends(http)]


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of any text (a non-ASCII guess is only wrong)."""
    return hmac.compare_digest(given.encode(), expected.encode())


def _signature(hub: HubSettings, expires: int) -> str:
    message = f"wpb-view-session:{expires}".encode()
    return hmac.new(hub.admin_token.encode(), message, hashlib.sha256).hexdigest()


def view_session(hub: HubSettings) -> str:
    """The login cookie's value: an expiry signed with the admin token (never the token)."""
    expires = int(time.time()) + SESSION_S
    return f"{expires}.{_signature(hub, expires)}"


def valid_session(hub: HubSettings, value: str) -> bool:
    expires, _, signature = value.partition(".")
    if not (expires.isascii() and expires.isdigit() and len(expires) < 12):
        return False
    return int(expires) > time.time() and same_secret(signature, _signature(hub, int(expires)))


def is_admin(request: Request, hub: HubSettings) -> bool:
    """The admin token as `Authorization: Bearer …`, or, for a page (GET), a valid login
    session in the cookie."""
    header = request.headers.get("authorization", "")
    if header.startswith("Bearer "):
        return same_secret(header.removeprefix("Bearer ").strip(), hub.admin_token)
    cookie = request.cookies.get(COOKIE, "")
    return request.method == "GET" and bool(cookie) and valid_session(hub, cookie)


async def admin(request: Request, hub: SettingsDep) -> None:
    if not is_admin(request, hub):
        raise FieldError(
            "authorization", "a valid admin token is required (Authorization: Bearer <token>)", 401
        )


Admin = Depends(admin)


async def upstream_json(
    client: aiohttp.ClientSession, method: str, url: str, **kwargs: Any
) -> Response:
    """The JSON answer of the events or verifier service, passed through as it is."""
    try:
        async with client.request(method, url, **kwargs) as answer:
            body = await answer.read()
    except UPSTREAM_ERRORS as exc:
        raise FieldError("upstream", f"{url} unreachable ({exc!r})", 503) from None
    return Response(body, answer.status, media_type="application/json")
