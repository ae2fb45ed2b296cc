"""The trajectory API for runners (`/api/…`, admin token): create, read, check, close;
the stand's status."""

from __future__ import annotations

import asyncio
from typing import Annotated

import aiohttp
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from services.core.models.api import (
    CloseTrajectory,
    CreatedTrajectory,
    Events,
    NewTrajectory,
    ServiceState,
    StandStatus,
    StatelessCheck,
    TrajectoryMeta,
    Verdict,
)
from services.hub import trajectories
from services.hub.deps import Admin, HttpDep, SettingsDep, is_admin, upstream_json
from services.hub.faults import restarts
from services.kit.site import TrajectoryDep
from services.kit.upstream import UPSTREAM_ERRORS
from services.kit.web import json_body, json_object, readiness

router = APIRouter(prefix="/api")
PROBE_TIMEOUT = aiohttp.ClientTimeout(total=2)  # a service's /ready, for /api/status
JSON_CONTENT = {"Content-Type": "application/json"}


@router.post(
    "/trajectories", status_code=201, dependencies=[Admin], openapi_extra=json_body(NewTrajectory)
)
async def create_trajectory(request: Request, hub: SettingsDep) -> CreatedTrajectory:
    body = NewTrajectory.checked(await json_object(request))
    state = request.app.state
    meta = await trajectories.create(state.trajectories, state.http, hub, body)
    return CreatedTrajectory.model_validate(meta.model_dump())


@router.get("/trajectories/{tid}", dependencies=[Admin])
async def get_trajectory(request: Request, trajectory: TrajectoryDep) -> TrajectoryMeta:
    meta = TrajectoryMeta.model_validate(trajectory.meta)
    merged = request.app.state.faults.merged(trajectory.id, meta.infra_faults)
    return meta.model_copy(update={"infra_faults": merged})


@router.get("/trajectories/{tid}/events", dependencies=[Admin], response_model=Events)
async def get_events(
    trajectory: TrajectoryDep,
    hub: SettingsDep,
    client: HttpDep,
    after: Annotated[int, Query(ge=0, description="events with seq greater than this")] = 0,
    types: Annotated[str | None, Query(description="only these types (comma-separated)")] = None,
) -> Response:
    params: dict[str, str | int] = {"after": after}
    if types is not None:
        params["types"] = types
    return await upstream_json(
        client, "GET", f"{hub.events_url}/trajectories/{trajectory.id}/events", params=params
    )


@router.get("/trajectories/{tid}/check", dependencies=[Admin], response_model=Verdict)
async def get_check(trajectory: TrajectoryDep, hub: SettingsDep, client: HttpDep) -> Response:
    return await upstream_json(
        client, "GET", f"{hub.verifier_url}/trajectories/{trajectory.id}/check"
    )


@router.post(
    "/check", dependencies=[Admin], response_model=Verdict, openapi_extra=json_body(StatelessCheck)
)
async def stateless_check(request: Request, hub: SettingsDep, client: HttpDep) -> Response:
    StatelessCheck.checked(await json_object(request))  # a malformed body stops here
    # Passed on as it came: encoded again (aiohttp's json= escapes every non-ASCII character)
    # it could outgrow the verifier's body limit, which refuses it before it is all sent.
    raw = await request.body()
    return await upstream_json(
        client, "POST", f"{hub.verifier_url}/check", data=raw, headers=JSON_CONTENT
    )


@router.post(
    "/trajectories/{tid}/close",
    dependencies=[Admin],
    openapi_extra=json_body(CloseTrajectory, required=False),
)
async def close_trajectory(request: Request, tid: str) -> TrajectoryMeta:
    body = CloseTrajectory.checked(await json_object(request, empty_ok=True))
    return await trajectories.close(request.app.state.trajectories, tid, body)


async def probe(client: aiohttp.ClientSession, url: str) -> ServiceState:
    """Ready (with a site's version), or not with why, from the service's `/ready`."""
    try:
        async with client.get(f"{url}/ready", timeout=PROBE_TIMEOUT) as answer:
            try:
                body = await answer.json(content_type=None)
            except ValueError:
                body = {}
    except UPSTREAM_ERRORS as exc:
        return ServiceState(url=url, ready=False, error=f"unreachable ({type(exc).__name__})")
    if answer.status == 200:
        version = body.get("version") if isinstance(body, dict) else None
        known = version if isinstance(version, int) and not isinstance(version, bool) else None
        return ServiceState(url=url, ready=True, version=known)
    why = body.get("error") or body.get("status") if isinstance(body, dict) else None
    return ServiceState(url=url, ready=False, error=str(why or f"answered {answer.status}"))


@router.get("/status", response_model=StandStatus)
async def status(request: Request, hub: SettingsDep, client: HttpDep) -> Response:
    """Whether the stand is ready; with the admin token, each service, its address and, for
    one that is not ready, why (unreachable, starting, or up without NATS and its error)."""
    services = {
        "events": hub.events_url,
        "verifier": hub.verifier_url,
        **{f"site:{d}": u for d, u in hub.sites.items()},
    }
    probed = await asyncio.gather(*(probe(client, url) for url in services.values()))
    report = dict(zip(services, probed, strict=True))
    # The hub answers, so it runs; it is ready while its own NATS connection is.
    own = readiness(request.app, None)
    lost = {"error": own["error"]} if "error" in own else {}
    report["hub"] = ServiceState.model_validate({"url": hub.public_url, "ready": not lost, **lost})
    report["nats"] = ServiceState.model_validate(
        {"url": hub.nats_url, "ready": own["status"] == "ready", **lost}
    )
    ready = all(item.ready for item in report.values())
    answer = StandStatus(status="ready" if ready else "degraded")
    if is_admin(request, hub):
        answer = StandStatus(
            status=answer.status,
            services=report,
            sites=list(hub.sites),
            restarts=restarts(hub.home),
            today=hub.stand_today().isoformat(),
            site_versions={
                domain: version
                for domain in hub.sites
                if (version := report[f"site:{domain}"].version) is not None
            },
        )
    body = answer.model_dump_json(exclude_unset=True)  # what the caller may not see is unset
    return Response(body, status_code=200 if ready else 503, media_type="application/json")
