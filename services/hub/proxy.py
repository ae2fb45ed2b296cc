"""Forwarding agent requests from the hub to the site service that owns the domain."""

from __future__ import annotations

import re
from urllib.parse import unquote

import httpx
from fastapi import Request
from fastapi.responses import Response, StreamingResponse
from starlette.background import BackgroundTask

from services.kit.errors import FieldError
from services.kit.trajectory import REVISION_HEADER

CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# The agent's credentials stay on the hub: a site gets the hub's own; the revision header is
# the hub's to set.
AGENT_ONLY = frozenset({"authorization", "cookie", REVISION_HEADER})
# Headers not passed on as they are: hop-by-hop ones, and those the hub's server sets itself.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "date",
        "server",
    }
)


async def forward(
    client: httpx.AsyncClient, request: Request, upstream: str, revision: int = 0
) -> Response:
    """Send the request on to `upstream` + the same path and query; stream the answer back.

    The caller has checked the path (`check_path`). A redirect the site answers stays on
    the hub: its `Location` loses the site's own origin. The agent's `Authorization` and
    `Cookie` are not passed on: the client's own service credential goes instead.
    `revision` is the hub's revision of the path's trajectory: the site answers from one at
    least as new (a trajectory the hub closed is closed on the site too). A GET or HEAD
    whose pooled connection the site had closed is sent once more. Raises
    httpx.TransportError when the site cannot be reached.
    """
    url = httpx.URL(upstream + request.url.path, query=request.url.query.encode())
    upstream_request = client.build_request(
        request.method,
        url,
        headers=forwarded_headers(request, revision),
        content=request.stream() if request.method not in ("GET", "HEAD") else None,
    )
    try:
        answer = await client.send(upstream_request, stream=True)
    except (httpx.RemoteProtocolError, httpx.ReadError):
        # uvicorn closes a connection after an error it answered 500; the pool may hand it
        # to the next request, which is not that one's fault.
        if request.method not in ("GET", "HEAD"):
            raise
        answer = await client.send(upstream_request, stream=True)
    response = StreamingResponse(
        answer.aiter_raw(),
        status_code=answer.status_code,
        background=BackgroundTask(answer.aclose),
    )
    response.raw_headers = [
        (k.encode("latin-1"), on_hub(k, v, upstream).encode("latin-1"))
        for k, v in answer.headers.multi_items()
        if k.lower() not in HOP_BY_HOP
    ]
    return response


def forwarded_headers(request: Request, revision: int = 0) -> list[tuple[str, str]]:
    """The agent's headers as a site gets them: no hop-by-hop ones, none of the agent's
    credentials, the host the agent asked for and the trajectory's revision on the hub."""
    headers = [
        (k, v)
        for k, v in request.headers.items()
        if k.lower() not in HOP_BY_HOP and k.lower() not in AGENT_ONLY
    ]
    headers.append(("x-forwarded-host", request.headers.get("host", "")))
    if revision:
        headers.append((REVISION_HEADER, str(revision)))
    return headers


def check_path(path: str) -> None:
    """Refuse a path with dot segments, backslashes or control characters, however encoded
    (404, naming it), before anything is sent: resolved after routing, `..` would reach the
    site's own routes outside the trajectory (`/openapi.json`, `/metrics`)."""
    decoded = path
    for _ in range(3):  # %252e%252e: encoded more than once
        decoded = unquote(decoded)
    if "\\" in decoded or any(segment in (".", "..") for segment in decoded.split("/")):
        raise FieldError("path", "dot segments are not allowed", 404)
    if CONTROL.search(decoded):
        raise FieldError("path", "control characters are not allowed", 404)


def on_hub(name: str, value: str, upstream: str) -> str:
    """A `Location` the site answered, made relative to the hub (same path, no origin)."""
    if name.lower() == "location" and value.startswith(upstream.rstrip("/") + "/"):
        return value[len(upstream.rstrip("/")) :]
    return value
