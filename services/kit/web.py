"""What every service app has: lifespan with the NATS connection, health, metrics, limits."""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

import nats.errors
from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest
from pydantic import TypeAdapter
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.core.errors import FieldError, field_path
from services.kit.bus import Bus
from services.kit.logs import setup_logging
from services.kit.settings import Settings
from services.kit.trajectory import TrajectoryCache

KIT_STATIC = Path(__file__).parent / "static"
# Seconds a client waits before it asks again when NATS is unavailable (it restarts in ~1 s).
NATS_RETRY_AFTER_S = 2
# The exit status of a service whose NATS connection was closed for good (EX_TEMPFAIL): the
# embedded stack's supervisor, or compose's restart policy, starts it again.
EXIT_NATS_CLOSED = 75

# `route` is the template a request matched (`/t/{tid}/grocery/cart/{item_id}`), never the
# raw path, so its values are as few as the routes; a request no route took is UNMATCHED.
REQUESTS = Counter(
    "wpb_http_requests_total", "HTTP requests", ["service", "route", "method", "status"]
)
LATENCY = Histogram("wpb_http_request_seconds", "HTTP request latency", ["service", "route"])
UNMATCHED = "unmatched"

Hook = Callable[[FastAPI], Awaitable[None]]

# No body we read nests deeper (a task is about 8 levels); deeper ones are refused before
# any recursive code (the verifier's matching, json.dumps, deepcopy) sees them.
MAX_JSON_DEPTH = 32
SURROGATE = re.compile("[\ud800-\udfff]")


def error_response(exc: FieldError) -> JSONResponse:
    """How every service answers bad input: `{detail, field, message}` at the error's status."""
    return JSONResponse(
        {"detail": str(exc), "field": exc.field, "message": exc.message}, exc.status
    )


class ServiceCredential:
    """Refuses a request without the stand's service credential (`Authorization: Bearer
    <WPB_SERVICE_TOKEN>`) with 401, except the probes `/alive` and `/ready`. The collector,
    the verifier and the sites sit behind it: the hub and the stand's own tools hold the
    credential, an agent does not."""

    OPEN = frozenset({"/alive", "/ready"})

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in self.OPEN:
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not secrets.compare_digest(given, self.expected):
                refused = FieldError(
                    "authorization", "this service needs the stand's credential", 401
                )
                await error_response(refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def service_headers(token: str) -> dict[str, str]:
    """The headers of a request to a service of the stand, with its service credential."""
    return {"Authorization": f"Bearer {token}"}


class BodyLimit:
    """Refuses bodies over `limit` bytes with 413, whether announced or streamed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        too_large = FieldError("body", f"larger than {self.limit} bytes", 413)
        await error_response(too_large)({"type": "http"}, _no_receive, send)


class ObservedSend:
    """An ASGI `send` that keeps the status of the response it starts (`status` until then)."""

    def __init__(self, send: Send, status: int = 0) -> None:
        self.send = send
        self.status = status

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        await self.send(message)


class Metrics:
    """Request count by route, method and status, and latency by route, for `/metrics`."""

    def __init__(self, app: ASGIApp, service: str) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        observed = ObservedSend(send, status=500)
        try:
            await self.app(scope, receive, observed)
        finally:
            route = route_template(scope)
            LATENCY.labels(self.service, route).observe(time.perf_counter() - started)
            REQUESTS.labels(self.service, route, scope["method"], str(observed.status)).inc()


def route_template(scope: Scope) -> str:
    """The route the router chose for a request, as its template; a mount (static files) as
    `{mount}/{path}`; UNMATCHED for a request no route took (or refused before routing: no
    credential, a body too large)."""
    route = scope.get("route")
    if route is not None:
        return str(route.path)
    if scope.get("endpoint") is not None and scope.get("root_path"):
        return f"{scope['root_path']}/{{path}}"
    return UNMATCHED


class _TooLarge(Exception):
    pass


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


def create_service_app(
    service: str,
    settings: Settings,
    *,
    startup: Hook | None = None,
    shutdown: Hook | None = None,
    ready: Callable[[FastAPI], bool] | None = None,
    on_scrape: Hook | None = None,
    internal: bool = True,
    trajectories: bool = True,
    **fastapi_args: Any,
) -> FastAPI:
    """A FastAPI app that owns one NATS connection for its lifetime and, with
    `trajectories`, the trajectories' metadata read through it (`app.state.trajectories`, a
    `TrajectoryCache`; the collector, which never reads it, goes without).

    `/alive` answers while the process runs; `/ready` answers 503 until NATS is connected
    and `ready(app)` (the service's own condition, e.g. catalog loaded) holds. `/metrics`
    awaits `on_scrape(app)` first (to set gauges that need NATS). An `internal` service (all
    but the hub) answers nothing else without the service credential.
    """
    setup_logging(service, settings.log_json, settings.log_level)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            bus = Bus(settings.nats_url, service, settings.service_token)
            bus.on_closed = exit_for_restart
            await bus.connect()
            stack.push_async_callback(bus.close)
            app.state.bus = bus
            if trajectories:
                app.state.trajectories = TrajectoryCache(bus)
                await app.state.trajectories.start()
                stack.push_async_callback(app.state.trajectories.stop)
            if startup:
                await startup(app)
            if shutdown:
                stack.push_async_callback(shutdown, app)
            yield

    app = FastAPI(title=f"WebPageBench {service}", lifespan=lifespan, **fastapi_args)
    app.state.settings = settings
    app.state.service = service

    if internal:
        app.add_middleware(ServiceCredential, token=settings.service_token)
    app.add_middleware(Metrics, service=service)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)

    @app.exception_handler(FieldError)
    async def field_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, FieldError)
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: Exception) -> JSONResponse:
        """A parameter FastAPI checked (a path, query or form value of the wrong type)."""
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0]
        return error_response(FieldError(_location(first["loc"]), first["msg"]))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: Exception) -> Response:
        """The framework's own 400s are bodies it could not parse (a form, multipart)."""
        assert isinstance(exc, HTTPException)
        if exc.status_code == 400:
            return error_response(FieldError("body", str(exc.detail), 400))
        return await http_exception_handler(request, exc)

    @app.exception_handler(nats.errors.Error)
    async def nats_unavailable(_: Request, exc: Exception) -> JSONResponse:
        """A NATS timeout or lost connection (it restarts): 503, try again, never a 500."""
        unavailable = FieldError("nats", f"unavailable, try again ({type(exc).__name__})", 503)
        answer = error_response(unavailable)
        answer.headers["Retry-After"] = str(NATS_RETRY_AFTER_S)
        return answer

    @app.get("/alive", include_in_schema=False)
    async def alive() -> dict[str, str]:
        return {"status": "alive", "service": service}

    @app.get("/ready", include_in_schema=False)
    async def is_ready() -> JSONResponse:
        body = readiness(app, ready)
        return JSONResponse(body, status_code=200 if body["status"] == "ready" else 503)

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> PlainTextResponse:
        if on_scrape is not None:
            await on_scrape(app)
        return PlainTextResponse(generate_latest().decode(), media_type=CONTENT_TYPE_LATEST)

    app.mount("/_kit", StaticFiles(directory=KIT_STATIC), name="kit-static")
    return app


class NatsState(TypedDict):
    state: str
    reconnects: int


class Readiness(TypedDict):
    """What `/ready` answers (see `readiness`)."""

    status: Literal["ready", "starting", "disconnected"]
    service: str
    # A site's version (services/core/sites.py `SiteDescriptor.version`).
    version: NotRequired[int]
    nats: NotRequired[NatsState]
    error: NotRequired[str]


def readiness(app: FastAPI, ready: Callable[[FastAPI], bool] | None) -> Readiness:
    """What `/ready` answers: `ready`; or why not: `starting` (not connected yet, or the
    service's own condition does not hold) or `disconnected` (NATS lost since, reconnecting),
    then with the last NATS error."""
    bus: Bus | None = getattr(app.state, "bus", None)
    connected = bool(bus and bus.connected)
    ok = connected and (ready is None or ready(app))
    body: Readiness = {"status": "ready" if ok else "starting", "service": app.state.service}
    version = getattr(app.state, "site_version", None)
    if version is not None:
        body["version"] = version
    if bus is not None and bus.js is not None:  # it had connected
        body["nats"] = {"state": bus.state, "reconnects": bus.reconnects}
        if not connected:
            body["status"] = "disconnected"
            body["error"] = f"NATS {bus.state} ({bus.last_error or 'connection lost'})"
    return body


async def exit_for_restart(error: str) -> None:
    """The service's NATS connection is closed for good: exit at once, non-zero, so that it
    is started again with a new one (nothing is lost: what NATS acked is stored, what it did
    not was answered 503)."""
    logging.getLogger("wpb.bus").critical(
        "exiting with %d to be started again: NATS closed the connection (%s)",
        EXIT_NATS_CLOSED,
        error,
    )
    logging.shutdown()
    os._exit(EXIT_NATS_CLOSED)


def _location(loc: tuple[Any, ...] | list[Any]) -> str:
    """FastAPI's error location (`("body", "rooms", 0)`) as a field path (`rooms[0]`): the
    source (`body`, `query`, `path`) where no field is named first (`body`, `body[0]`)."""
    path = field_path(loc[1:])
    return path if path and not path.startswith("[") else f"{loc[0]}{path}"


def read_json(raw: bytes) -> Any:
    """A JSON body, as the one reader of every service: refused (FieldError, 422) when it is
    no JSON or nests deeper than MAX_JSON_DEPTH (naming `body`), or when a string holds a lone
    surrogate, which is no text to store or send on (naming where)."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise FieldError("body", f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise FieldError("body", f"invalid JSON ({exc})") from None
    # Walked without recursion; the path to an item is rebuilt only for an error.
    pending: list[tuple[Any, int, tuple[Any, ...]]] = [(value, 1, ())]
    while pending:
        item, depth, trail = pending.pop()
        if isinstance(item, str):
            if SURROGATE.search(item):
                raise FieldError(_trail_path(trail), "a lone surrogate is not text")
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_JSON_DEPTH:
            raise FieldError("body", f"nested deeper than {MAX_JSON_DEPTH} levels")
        for key, child in item.items() if isinstance(item, dict) else enumerate(item):
            if isinstance(key, str) and SURROGATE.search(key):
                raise FieldError(_trail_path(trail), "a lone surrogate in a key is not text")
            pending.append((child, depth + 1, (trail, key)))
    return value


def _trail_path(trail: tuple[Any, ...]) -> str:
    """`((((), "events"), 0), "type")` -> `events[0].type` (`body` for the root)."""
    keys = []
    while trail:
        trail, key = trail
        keys.append(key)
    return _location(("body", *reversed(keys)))


def json_body(shape: Any, required: bool = True) -> dict[str, Any]:
    """The `openapi_extra` of a route that reads its JSON body itself (`read_json`, then
    `shape` through `checked`): the body's schema in the route's OpenAPI document, as FastAPI
    would declare it, its definitions inlined (none of ours is recursive)."""
    schema = TypeAdapter(shape).json_schema()
    definitions = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(definitions[node["$ref"].removeprefix("#/$defs/")])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(value) for value in node]
        return node

    content = {"application/json": {"schema": inline(schema)}}
    return {"requestBody": {"required": required, "content": content}}


async def json_object(request: Request, empty_ok: bool = False) -> dict[str, Any]:
    """The request's JSON body, an object (an empty body is `{}` when `empty_ok`); a
    `FieldError` naming `body` otherwise (see `read_json`)."""
    raw = await request.body()
    if not raw.strip() and empty_ok:
        return {}
    body = read_json(raw)
    if not isinstance(body, dict):
        raise FieldError("body", "must be a JSON object")
    return body
