"""The hub: trajectory API for runners, the agent's entry page and proxy, pages for people."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)

from services.hub.proxy import forward
from services.hub.runs import STEP_SHOT, find_episode, list_runs, load_episode, load_run
from services.kit.bus import TRAJECTORIES_BUCKET, KeyWrongLastSequenceError
from services.kit.contract import TRACKING_TYPES
from services.kit.dateshift import shift_task
from services.kit.errors import FieldError
from services.kit.settings import HubSettings
from services.kit.site import (
    Emitter,
    Pages,
    SiteSpec,
    TrajectoryDep,
    current_trajectory,
    parse_page_events,
)
from services.kit.tasks import check_task, find_task, load_task
from services.kit.trajectory import Trajectory, new_trajectory_id
from services.kit.variants import DOMAINS, check_selection, resolve
from services.kit.web import create_service_app

HERE = Path(__file__).parent
log = logging.getLogger("wpb.hub")
COOKIE = "wpb_admin"


def create_app(settings: HubSettings | None = None) -> FastAPI:
    settings = settings or HubSettings()

    async def startup(app: FastAPI) -> None:
        limits = httpx.Limits(max_connections=200, max_keepalive_connections=50)
        app.state.http = httpx.AsyncClient(timeout=60, limits=limits)

    async def shutdown(app: FastAPI) -> None:
        await app.state.http.aclose()

    app = create_service_app("hub", settings, startup=startup, shutdown=shutdown)
    pages = Pages(HERE / "templates", "hub")

    def admin(request: Request) -> None:
        header = request.headers.get("authorization", "")
        token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
        if not token and request.method == "GET":
            token = request.cookies.get(COOKIE, "")
        if not token or not secrets.compare_digest(token, settings.admin_token):
            raise HTTPException(
                401,
                "authorization: a valid admin token is required (Authorization: Bearer <token>)",
            )

    Admin = Depends(admin)

    async def upstream_json(method: str, url: str, **kwargs: Any) -> Response:
        """The JSON answer of the events or verifier service, passed through as it is."""
        try:
            answer = await app.state.http.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            raise HTTPException(503, f"upstream: {url} unreachable ({exc})") from None
        return Response(answer.content, answer.status_code, media_type="application/json")

    # -- the trajectory API (runner, token) ----------------------------------------------

    @app.post("/api/trajectories", status_code=201, dependencies=[Admin])
    async def create_trajectory(request: Request) -> dict[str, Any]:
        body = await _json_object(request)
        task = _task_from_body(body, settings.tasks_dir)
        task_id = body.get("task_id") or task.get("id") or task["test_data"].get("id")
        test_data = task["test_data"]
        override = check_selection(body.get("ui_variants") or {}, "ui_variants")
        ui_variants = resolve(test_data, task.get("domain_configs") or {}, override)
        today = _today(body.get("today"), settings.stand_today())
        shifted, shift = shift_task(test_data, today)
        tid = new_trajectory_id()
        url = f"{settings.public_url.rstrip('/')}/t/{tid}/"
        prompt = shifted["task"].replace("%HOST%", url)
        meta = {
            "trajectory_id": tid,
            "task_id": task_id,
            "status": "open",
            "created_at": time.time(),
            "today": today.isoformat(),
            "date_shift_days": shift,
            "url": url,
            "prompt": prompt,
            "first_domain": test_data.get("bench_first_domain"),
            "conditions": shifted["conditions"],
            "ui_taxonomy": test_data.get("ui_taxonomy"),
            "ui_variants": ui_variants,
        }
        await app.state.bus.put_json(TRAJECTORIES_BUCKET, tid, meta, revision=0)
        log.info(
            "created for task %s, dates shifted %d days",
            task_id,
            shift,
            extra={"trajectory_id": tid},
        )
        return {
            "trajectory_id": tid,
            "url": url,
            "prompt": prompt,
            "date_shift_days": shift,
            "ui_variants": ui_variants,
        }

    @app.get("/api/trajectories/{tid}", dependencies=[Admin])
    async def get_trajectory(trajectory: TrajectoryDep) -> dict[str, Any]:
        return trajectory.meta

    @app.get("/api/trajectories/{tid}/events", dependencies=[Admin])
    async def get_events(trajectory: TrajectoryDep) -> Response:
        return await upstream_json(
            "GET", f"{settings.events_url}/trajectories/{trajectory.id}/events"
        )

    @app.get("/api/trajectories/{tid}/check", dependencies=[Admin])
    async def get_check(trajectory: TrajectoryDep) -> Response:
        return await upstream_json(
            "GET", f"{settings.verifier_url}/trajectories/{trajectory.id}/check"
        )

    @app.post("/api/check", dependencies=[Admin])
    async def stateless_check(request: Request) -> Response:
        body = await _json_object(request)
        return await upstream_json("POST", f"{settings.verifier_url}/check", json=body)

    @app.post("/api/trajectories/{tid}/close", dependencies=[Admin])
    async def close_trajectory(request: Request, tid: str) -> dict[str, Any]:
        body = await _json_object(request, empty_ok=True)
        for _ in range(20):
            trajectory = await current_trajectory(request, tid)
            if not trajectory.is_open:
                raise HTTPException(409, "trajectory: already closed")
            meta = {**trajectory.meta, "status": "closed", "closed_at": time.time()}
            if "completion" in body:
                meta["completion"] = bool(body["completion"])
            if isinstance(body.get("final_message"), str):
                meta["final_message"] = body["final_message"][:4000]
            try:
                await app.state.bus.put_json(TRAJECTORIES_BUCKET, tid, meta, trajectory.revision)
                log.info(
                    "closed, completion %s", meta.get("completion"), extra={"trajectory_id": tid}
                )
                return meta
            except KeyWrongLastSequenceError:
                continue
        raise HTTPException(503, "trajectory: too many concurrent updates")

    @app.get("/api/status")
    async def status(request: Request) -> JSONResponse:
        services = {
            "events": settings.events_url,
            "verifier": settings.verifier_url,
            **{f"site:{d}": u for d, u in settings.sites.items()},
        }

        async def probe(url: str) -> bool:
            try:
                return (await app.state.http.get(f"{url}/ready", timeout=2)).status_code == 200
            except httpx.TransportError:
                return False

        results = await asyncio.gather(*(probe(u) for u in services.values()))
        report = {
            name: {"url": url, "ready": ok}
            for (name, url), ok in zip(services.items(), results, strict=True)
        }
        report["hub"] = {"url": settings.public_url, "ready": True}
        report["nats"] = {"url": settings.nats_url, "ready": request.app.state.bus.connected}
        ready = all(item["ready"] for item in report.values())
        return JSONResponse(
            {
                "status": "ready" if ready else "degraded",
                "services": report,
                "sites": list(settings.sites),
            },
            status_code=200 if ready else 503,
        )

    # -- pages for people (token in a cookie) --------------------------------------------

    @app.get("/view/login")
    async def login(token: str = "", next: str = "/view/") -> Response:
        if not secrets.compare_digest(token, settings.admin_token):
            raise HTTPException(401, "token: wrong admin token")
        target = next if next.startswith("/view/") else "/view/"
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    @app.get("/view/", dependencies=[Admin])
    async def runs_page(request: Request) -> HTMLResponse:
        return pages.render_plain("runs.html", runs=list_runs(settings.home / "runs"))

    @app.get("/view/runs/{name}", dependencies=[Admin])
    async def run_page(name: str, failed: bool = False) -> HTMLResponse:
        run = load_run(settings.home / "runs", name)
        if run is None:
            raise HTTPException(404, f"run: no run named {name!r}")
        records = [r for r in run["records"] if not failed or r.get("ems") != 1]
        return pages.render_plain("run.html", run=run, records=records, failed=failed)

    @app.get("/view/trajectories/{tid}", dependencies=[Admin])
    async def trajectory_page(trajectory: TrajectoryDep) -> HTMLResponse:
        episode = load_episode(find_episode(settings.home / "runs", trajectory.id))
        return pages.render(trajectory, "trajectory.html", meta=trajectory.meta, episode=episode)

    @app.get("/view/trajectories/{tid}/{name}", dependencies=[Admin])
    async def step_screenshot(trajectory: TrajectoryDep, name: str) -> FileResponse:
        folder = find_episode(settings.home / "runs", trajectory.id)
        if folder is None or not STEP_SHOT.fullmatch(name) or not (folder / name).is_file():
            raise HTTPException(404, f"name: no screenshot {name!r} for this trajectory")
        return FileResponse(folder / name, media_type="image/png")

    # -- the agent's side ------------------------------------------------------------------

    @app.get("/t/{tid}/")
    async def hub_page(trajectory: TrajectoryDep) -> HTMLResponse:
        await Emitter(app.state.bus, "hub", trajectory).screen("bench_hub_main")
        return pages.render(trajectory, "hub.html", theme=_theme(trajectory), built=settings.sites)

    @app.post("/t/{tid}/{domain}/_events")
    async def page_events(request: Request, tid: str, domain: str) -> Response:
        """Tracking events (click, keypress, scroll) are stored here, one hop shorter;
        widget selections go on to the site, which checks them against its catalog."""
        if domain != "hub" and domain not in DOMAINS:
            raise HTTPException(404, f"domain: unknown domain {domain!r}")
        body = await request.body()
        if domain != "hub" and not _tracking_only(body):
            return await site(request, tid, domain)
        emit = Emitter(app.state.bus, domain, await current_trajectory(request, tid))
        events = parse_page_events(body, SiteSpec(domain=domain, root=HERE), emit)
        await emit.publish(events)
        return JSONResponse({"accepted": len(events), "ids": [event["id"] for event in events]})

    @app.get("/t/{tid}")
    async def hub_page_slash(tid: str) -> RedirectResponse:
        return RedirectResponse(f"/t/{tid}/", status_code=307)

    @app.api_route(
        "/t/{tid}/{domain}/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
    )
    async def site(request: Request, tid: str, domain: str) -> Response:
        if domain not in DOMAINS:
            raise HTTPException(404, f"domain: unknown domain {domain!r}")
        upstream = settings.sites.get(domain)
        if upstream is None:
            trajectory = await current_trajectory(request, tid)
            return pages.render(
                trajectory,
                "not_built.html",
                status_code=404,
                theme=trajectory.variant(domain, "theme"),
                current=domain,
            )
        try:
            return await forward(app.state.http, request, upstream)
        except httpx.TransportError:
            trajectory = await current_trajectory(request, tid)
            return pages.render(
                trajectory,
                "unavailable.html",
                status_code=502,
                theme=trajectory.variant(domain, "theme"),
                current=domain,
            )

    @app.get("/_site/{domain}/{path:path}")
    async def site_static(request: Request, domain: str) -> Response:
        upstream = settings.sites.get(domain)
        if upstream is None:
            raise HTTPException(404, f"domain: no site serves {domain!r}")
        try:
            return await forward(app.state.http, request, upstream)
        except httpx.TransportError:
            raise HTTPException(502, f"site {domain} unreachable") from None

    return app


def _tracking_only(body: bytes) -> bool:
    """Whether a page's `_events` body is valid JSON holding tracking events only."""
    try:
        payload = json.loads(body)
    except ValueError:
        return True  # refused here with the parse error
    items = payload if isinstance(payload, list) else [payload]
    return all(isinstance(item, dict) and item.get("type") in TRACKING_TYPES for item in items)


def _theme(trajectory: Trajectory) -> str:
    first = trajectory.meta.get("first_domain") or "grocery"
    return trajectory.variant(first, "theme") or "light"


def _task_from_body(body: dict[str, Any], tasks_dir: Path) -> dict[str, Any]:
    """The task object of the body, or the file `task_id` names (then only a label)."""
    try:
        if "task" in body:
            return check_task(body["task"])
        stem = body.get("task_id")
        if stem is None:
            raise HTTPException(422, "task: give a task object or a task_id")
        path = find_task(tasks_dir, stem) if isinstance(stem, str) else None
        if path is None:
            raise HTTPException(404, f"task_id: no task file named {stem!r}")
        return load_task(path)
    except FieldError as exc:
        raise HTTPException(422, str(exc)) from None


def _today(value: Any, default: date) -> date:
    if value is None:
        return default
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise HTTPException(422, "today: expected an ISO date YYYY-MM-DD") from None


async def _json_object(request: Request, empty_ok: bool = False) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip() and empty_ok:
        return {}
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise HTTPException(422, f"body: invalid JSON ({exc})") from None
    if not isinstance(body, dict):
        raise HTTPException(422, "body: must be a JSON object")
    return body
