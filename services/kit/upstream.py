"""The client of a service's requests to the other services (the hub's, the verifier's):
only they import aiohttp, so the sites do not carry it."""

from __future__ import annotations

import aiohttp

from services.kit.web import service_headers

# What a request to a service raises when the service cannot be reached or does not answer.
UPSTREAM_ERRORS = (aiohttp.ClientError, TimeoutError)


def upstream_client(service_token: str, limit: int = 100) -> aiohttp.ClientSession:
    """The client of a service's requests to the others: pooled connections (aiohttp's pool
    stays cheap under a hundred concurrent requests, where httpx's spent milliseconds of CPU
    on each), the service credential on every request, no cookie kept between requests (a
    site's cookie for one trajectory must never reach another's request), bodies passed on
    as they came."""
    return aiohttp.ClientSession(
        headers=service_headers(service_token),
        timeout=aiohttp.ClientTimeout(total=60),
        connector=aiohttp.TCPConnector(limit=limit, keepalive_timeout=4),
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,
    )
