"""Forwarding agent requests from the hub to the site service that owns the domain."""

from __future__ import annotations

import httpx
from fastapi import Request
from fastapi.responses import Response, StreamingResponse
from starlette.background import BackgroundTask

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


async def forward(client: httpx.AsyncClient, request: Request, upstream: str) -> Response:
    """Send the request on to `upstream` + the same path and query; stream the answer back.

    Raises httpx.TransportError when the site cannot be reached.
    """
    url = httpx.URL(upstream + request.url.path, query=request.url.query.encode())
    headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
    headers.append(("x-forwarded-host", request.headers.get("host", "")))
    upstream_request = client.build_request(
        request.method,
        url,
        headers=headers,
        content=request.stream() if request.method not in ("GET", "HEAD") else None,
    )
    answer = await client.send(upstream_request, stream=True)
    response = StreamingResponse(
        answer.aiter_raw(),
        status_code=answer.status_code,
        background=BackgroundTask(answer.aclose),
    )
    response.raw_headers = [
        (k.encode("latin-1"), v.encode("latin-1"))
        for k, v in answer.headers.multi_items()
        if k.lower() not in HOP_BY_HOP
    ]
    return response
