"""The verifier: conditions × events → verdict, per trajectory (its conditions matched by the
collector, on the log it holds) or stateless (events in the body)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import Response
from prometheus_client import Histogram

from services.core.errors import FieldError
from services.core.matching import check, validate_conditions
from services.core.models.api import StatelessCheck
from services.kit.settings import VerifierSettings
from services.kit.upstream import UPSTREAM_ERRORS, upstream_client
from services.kit.web import create_service_app, json_body, json_object

# check() from the request to the verdict: `kind` is `trajectory` (its conditions matched by
# the collector) or `stateless` (events in the body).
CHECK_SECONDS = Histogram("wpb_check_seconds", "check() latency", ["kind"])
for kind in ("trajectory", "stateless"):  # at zero from the start: a rate() sees the first
    CHECK_SECONDS.labels(kind)


def create_app(settings: VerifierSettings | None = None) -> FastAPI:
    settings = settings or VerifierSettings()

    async def startup(app: FastAPI) -> None:
        app.state.http = upstream_client(settings.service_token)

    async def shutdown(app: FastAPI) -> None:
        await app.state.http.close()

    app = create_service_app("verifier", settings, startup=startup, shutdown=shutdown)

    @app.post("/check", openapi_extra=json_body(StatelessCheck))
    async def check_stateless(request: Request) -> Response:
        body = StatelessCheck.checked(await json_object(request))
        conditions = validate_conditions(body.conditions)
        for seq, event in enumerate(body.events, 1):
            event.setdefault("params", {})
            event.setdefault("seq", seq)
        with CHECK_SECONDS.labels("stateless").time():
            verdict = check(conditions, body.events)
        return Response(verdict.answer(), media_type="application/json")

    @app.get("/trajectories/{tid}/check")
    async def check_trajectory(request: Request, tid: str) -> Response:
        with CHECK_SECONDS.labels("trajectory").time():
            verdict = await trajectory_verdict(request.app, tid)
        return Response(verdict, media_type="application/json")

    return app


async def trajectory_verdict(app: FastAPI, tid: str) -> bytes:
    """The trajectory's conditions (from its metadata) against its events, matched by the
    collector, which holds the log: its verdict (the JSON answer) passed on as it came."""
    trajectory = await app.state.trajectories.get(tid)
    if trajectory is None:
        raise FieldError("trajectory", "unknown trajectory id", 404)
    url = f"{app.state.settings.events_url}/trajectories/{tid}/check"
    try:
        async with app.state.http.post(
            url, json={"conditions": trajectory.meta["conditions"]}
        ) as response:
            if response.status != 200:
                raise FieldError("events", f"collector answered {response.status}", 503)
            return await response.read()
    except UPSTREAM_ERRORS as exc:
        raise FieldError("events", f"the collector is unreachable ({exc!r})", 503) from None
