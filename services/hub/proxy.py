"""Forwarding agent requests from the hub to the site service that owns the domain."""

from __future__ import annotations

import re
from urllib.parse import unquote

import aiohttp
import yarl
from fastapi import Request
from fastapi.responses import Response, StreamingResponse
from starlette.background import BackgroundTask

from services.core.errors import FieldError
from services.kit.trajectory import REVISION_HEADER

CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# An answer of known length up to this is read whole and sent at once; a longer one, or one
# of unknown length, is streamed as it comes.
BUFFERED_BYTES = 4 * 1024 * 1024

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
    client: aiohttp.ClientSession, request: Request, upstream: str, revision: int = 0
) -> Response:
    """Send the request on to `upstream` + the same path and query; pass the answer back
    (read whole when its length is known and at most `BUFFERED_BYTES`, else streamed).

    The caller has checked the path (`check_path`). A redirect the site answers stays on
    the hub: its `Location` loses the site's own origin. The agent's `Authorization` and
    `Cookie` are not passed on: the client's own service credential goes instead.
    `revision` is the hub's revision of the path's trajectory: the site answers from one at
    least as new (a trajectory the hub closed is closed on the site too). A GET or HEAD
    whose pooled connection the site had closed is sent once more (aiohttp does it). Raises
    one of `UPSTREAM_ERRORS` when the site cannot be reached.
    """
    # The path as the agent encoded it (its decoded form is what `check_path` read).
    path = request.scope.get("raw_path", b"").decode("latin-1") or request.url.path
    query = f"?{request.url.query}" if request.url.query else ""
    answer = await client.request(
        request.method,
        yarl.URL(upstream + path + query, encoded=True),
        headers=forwarded_headers(request, revision),
        data=await request.body() if request.method not in ("GET", "HEAD") else None,
        allow_redirects=False,
    )
    response: Response
    if answer.content_length is not None and answer.content_length <= BUFFERED_BYTES:
        # A page or an asset: read whole and sent in one write, with no streaming task.
        async with answer:
            response = Response(await answer.read(), status_code=answer.status)
    else:
        response = StreamingResponse(
            answer.content.iter_any(),
            status_code=answer.status,
            background=BackgroundTask(release, answer),
        )
    response.raw_headers = [
        (k, on_hub(k.decode("latin-1"), v.decode("latin-1"), upstream).encode("latin-1"))
        for k, v in answer.raw_headers
        if k.decode("latin-1").lower() not in HOP_BY_HOP
    ]
    return response


async def release(answer: aiohttp.ClientResponse) -> None:
    """The streamed answer's connection back to the pool (a coroutine: a plain function
    would be run in a worker thread)."""
    answer.release()


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
