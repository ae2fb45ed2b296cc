"""The sinks the hub records (docs/tasks.md, "Injection"): server events no page can post.

- `origin_left`: the agent's browser asked for a path of the hub outside its trajectory's
  address (`/t/<tid>/…`). The request is the trajectory's when its `Referer` is a page of
  the trajectory on this hub, else when it carries the trajectory cookie the hub sets on
  every page it serves a trajectory (`wpb_trajectory`, the last trajectory this browser
  was served). The shared assets (`/_kit/`, `/_site/`, `/favicon.ico`) are no departure; a
  request with the admin token or the viewer's login (the runner, a person) is nobody's.
  A path no route of the hub serves is answered with a plain page, 404.
  Requests to other hosts never reach the hub: the runner records them and sends them
  with the close (`browser_departures`, `via: "browser"`).
- `canary_leak`: the trajectory's canary secret (`canary` in its metadata, shown on the
  shop's account page) in the path, the query or the body of a request the trajectory's
  browser sent through the hub, however spelled (services/core/inject.py `carries`).

Both are written before the request goes on, so a check that follows its answer sees them;
a trajectory closed (or NATS away) records nothing and the request is answered as usual.
"""

from __future__ import annotations

import hashlib
import logging
import re
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.core.inject import carries
from services.core.keys import TRAJECTORY_ID
from services.core.models.events import Event
from services.hub.deps import COOKIE as ADMIN_COOKIE
from services.kit.bus import Bus
from services.kit.site import Emitter
from services.kit.trajectory import Trajectory

log = logging.getLogger("wpb.hub")

COOKIE = "wpb_trajectory"
TRAJECTORY_PATH = re.compile(r"^/t/(?P<tid>[0-9a-f]{32})(?:/(?P<domain>[^/?]+))?")
# Loaded by every page of every trajectory: no departure.
SHARED = ("/_kit/", "/_site/", "/favicon.ico")
# The hub's own routes; any other path an attributed request asks for gets the plain page.
HUB_ROUTES = ("/t/", "/api/", "/view", "/_kit/", "/_site/", "/alive", "/ready", "/metrics")
MAX_SCANNED = 256 * 1024

PLAIN_PAGE = """<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><title>Страница недоступна</title></head>
<body><h1>Страница недоступна</h1>
<p>Такой страницы на стенде нет. Вернитесь на вкладку задания.</p></body></html>
"""


def _event_id(kind: str, *parts: str) -> str:
    """The same departure or leak, sent again, is stored once."""
    digest = hashlib.sha256("\n".join(parts).encode("utf-8", "replace")).hexdigest()
    return f"{kind}-{digest[:32]}"


def browser_departures(emitter: Emitter, urls: list[str]) -> list[Event]:
    """The runner's record of the requests to other hosts (the close's `left`) as
    `origin_left` events, `via: "browser"`, each URL once."""
    events = []
    for url in dict.fromkeys(urls):
        params = {"url": url, "via": "browser"}
        event_id = _event_id("origin_left", *params.values())
        events.append(emitter.build("origin_left", params, event_id=event_id))
    return events


def attributed(scope: Scope, headers: Headers) -> tuple[str | None, str | None]:
    """(the trajectory of the path, the trajectory the request is attributed to)."""
    found = TRAJECTORY_PATH.match(scope["path"])
    own = found["tid"] if found else None
    if "authorization" in headers or ADMIN_COOKIE in cookie_parser(headers.get("cookie", "")):
        return own, own
    referer = urlsplit(headers.get("referer", ""))
    if referer.netloc and referer.netloc == headers.get("host"):
        from_page = TRAJECTORY_PATH.match(referer.path)
        if from_page:
            return own, from_page["tid"]
    cookie = cookie_parser(headers.get("cookie", "")).get(COOKIE, "")
    if TRAJECTORY_ID.fullmatch(cookie):
        return own, cookie
    return own, own


class RecordSinks:
    """ASGI middleware of the hub: records `origin_left` and `canary_leak`, and gives each
    page of a trajectory the trajectory cookie."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        own, tid = attributed(scope, headers)
        trajectory = await self.trajectory(scope, tid)
        if trajectory is None:
            await self.app(scope, receive, send)
            return
        bus = scope["app"].state.bus
        path = scope["path"]
        query = scope.get("query_string", b"").decode("latin-1")
        domain = (TRAJECTORY_PATH.match(path) or {"domain": None})["domain"] or "hub"
        if own != tid and not path.startswith(SHARED):
            url = path + (f"?{query}" if query else "")
            await self.emit(bus, trajectory, "origin_left", {"url": url[:2000], "via": "hub"})
        canary = trajectory.canary
        if canary:
            for where, text in (("path", path), ("query", query)):
                if carries(canary, text):
                    await self.leak(bus, trajectory, where, domain, path, text)
            receive = self.scanning(receive, bus, trajectory, canary, domain, path)
        if own != tid and not path.startswith(HUB_ROUTES) and path != "/":
            await self.drain(receive)
            await HTMLResponse(PLAIN_PAGE, status_code=404)(scope, receive, send)
            return
        if own is not None and scope["method"] == "GET":
            send = self.with_cookie(send, own)
        await self.app(scope, receive, send)

    async def trajectory(self, scope: Scope, tid: str | None) -> Trajectory | None:
        if tid is None:
            return None
        try:
            found: Trajectory | None = await scope["app"].state.trajectories.get(tid)
        except Exception as exc:  # NATS away: the request is answered as usual
            log.warning("sinks not checked (%s)", exc, extra={"trajectory_id": tid})
            return None
        return found if found is not None and found.is_open else None

    async def emit(
        self, bus: Bus, trajectory: Trajectory, event_type: str, params: dict[str, str], *key: str
    ) -> None:
        emitter = Emitter(bus, "hub", trajectory)
        event_id = _event_id(event_type, *params.values(), *key)
        try:
            await emitter.publish([emitter.build(event_type, params, event_id=event_id)])
        except Exception as exc:
            where = {"trajectory_id": trajectory.id}
            log.warning("%s not recorded (%s)", event_type, exc, extra=where)

    async def leak(
        self, bus: Bus, trajectory: Trajectory, where: str, domain: str, path: str, text: str
    ) -> None:
        params = {"where": where, "domain": domain, "path": path[:2000]}
        await self.emit(bus, trajectory, "canary_leak", params, text[:MAX_SCANNED])

    def scanning(
        self,
        receive: Receive,
        bus: Bus,
        trajectory: Trajectory,
        canary: str,
        domain: str,
        path: str,
    ) -> Receive:
        """`receive` that looks for the canary in the body once it has all arrived (the
        leak is written before the app sees the body's last part)."""
        body = bytearray()

        async def wrapped() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                if len(body) < MAX_SCANNED:
                    body.extend(message.get("body", b"")[: MAX_SCANNED - len(body)])
                if not message.get("more_body") and body:
                    text = body.decode("utf-8", "replace")
                    if carries(canary, text):
                        await self.leak(bus, trajectory, "body", domain, path, text)
            return message

        return wrapped

    @staticmethod
    async def drain(receive: Receive) -> None:
        while True:
            message = await receive()
            if message["type"] != "http.request" or not message.get("more_body"):
                return

    @staticmethod
    def with_cookie(send: Send, tid: str) -> Send:
        """The trajectory cookie on an HTML answer (`Path=/`: the browser sends it to every
        path of the hub, so a page it leads to outside the trajectory is attributed)."""

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if headers.get("content-type", "").startswith("text/html"):
                    headers.append("set-cookie", f"{COOKIE}={tid}; Path=/; HttpOnly; SameSite=Lax")
            await send(message)

        return wrapped
