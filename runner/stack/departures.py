"""The agent's requests to other hosts (docs/tasks.md, "Injection"): the runner's own CDP
session on the episode's Chromium pauses every request (`Fetch`, enabled on the browser
target, so every tab, frame and worker the agent opens is covered from its first request;
a pattern cannot leave one origin out, so the hub's are paused too and go on at once), and
fails any other http(s) request (`BlockedByClient`) after noting its URL. The hub writes
them at the close as `origin_left` with `via: "browser"`.

aiohttp's WebSocket client speaks CDP here (a dependency of the services already): three
commands and one event, no Playwright connection of the runner's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from runner.errors import InfraError
from services.core.models.api import MAX_LEFT, MAX_LEFT_URL

# Schemes whose requests go to a host; `data:`, `blob:`, `about:` and `chrome:` do not.
# (A WebSocket's handshake never pauses in `Fetch`: see the docs' limits.)
NETWORK = ("http", "https")
ENABLE_S = 10
# Every request pauses: a pattern cannot leave the hub's origin out.
PAUSE_ALL = {"patterns": [{"urlPattern": "*"}]}


def origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


class Departures:
    """The URLs of other hosts than the hub's that an episode's browser asked for: each
    once, in order, at most MAX_LEFT, each cut to MAX_LEFT_URL characters."""

    def __init__(self, start_url: str) -> None:
        self.hub = origin(start_url)
        self.urls: list[str] = []

    def departs(self, url: str) -> bool:
        scheme, host = origin(url)
        return scheme in NETWORK and (scheme, host) != self.hub

    def note(self, url: str) -> None:
        url = url[:MAX_LEFT_URL]
        if url not in self.urls and len(self.urls) < MAX_LEFT:
            self.urls.append(url)

    @contextlib.asynccontextmanager
    async def watching(self, cdp_url: str) -> AsyncIterator[None]:
        """While inside, the browser at `cdp_url` (none: "") sends nothing to another host;
        requests are intercepted before this yields. A browser that cannot be watched is
        the stand's failure (InfraError)."""
        if not cdp_url:
            yield
            return
        async with aiohttp.ClientSession() as http:
            enabled: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            try:
                async with http.get(f"{cdp_url}/json/version") as answer:
                    target = (await answer.json())["webSocketDebuggerUrl"]
                socket = await http.ws_connect(target, max_msg_size=0)
            except (aiohttp.ClientError, KeyError) as exc:
                raise InfraError(f"the runner's CDP session: {exc!r}") from exc
            reading = asyncio.create_task(self.answer(socket, enabled))
            try:
                try:
                    await socket.send_json({"id": 0, "method": "Fetch.enable", "params": PAUSE_ALL})
                    reply = await asyncio.wait_for(enabled, ENABLE_S)
                except (ConnectionError, TimeoutError) as exc:
                    raise InfraError(f"chromium did not enable Fetch: {exc!r}") from exc
                if "error" in reply:
                    raise InfraError(f"chromium refused Fetch.enable: {reply['error']}")
                yield
            finally:
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reading
                await socket.close()

    async def answer(
        self, socket: aiohttp.ClientWebSocketResponse, enabled: asyncio.Future[dict[str, Any]]
    ) -> None:
        """Release each paused request of the hub, fail and note each of another host. A
        browser that goes away ends this quietly: the agent's harness reports it."""
        ids = itertools.count(1)
        with contextlib.suppress(aiohttp.ClientError, ConnectionError):
            async for message in socket:
                if message.type != aiohttp.WSMsgType.TEXT:
                    continue
                data = json.loads(message.data)
                if data.get("id") == 0 and not enabled.done():
                    enabled.set_result(data)
                if data.get("method") != "Fetch.requestPaused":
                    continue
                paused = data["params"]
                url = paused["request"]["url"]
                command: dict[str, Any] = {"requestId": paused["requestId"]}
                if self.departs(url):
                    self.note(url)
                    method, command["errorReason"] = "Fetch.failRequest", "BlockedByClient"
                else:
                    method = "Fetch.continueRequest"
                await socket.send_json({"id": next(ids), "method": method, "params": command})
