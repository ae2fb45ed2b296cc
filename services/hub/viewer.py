"""Pages for people (`/view/…`, the admin token in a cookie): runs, a run, a trajectory with
its verdict and the agent's steps."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from services.hub.deps import (
    COOKIE,
    SESSION_S,
    Admin,
    PagesDep,
    SettingsDep,
    same_secret,
    view_session,
)
from services.hub.runs import STEP_SHOT, find_episode, list_runs, load_episode, load_run
from services.kit.errors import FieldError
from services.kit.site import TrajectoryDep

router = APIRouter(prefix="/view")


@router.get("/login")
async def login(hub: SettingsDep, token: str = "", next: str = "/view/") -> Response:
    if not same_secret(token, hub.admin_token):
        raise FieldError("token", "wrong admin token", 401)
    target = next if next.startswith("/view/") else "/view/"
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        COOKIE, view_session(hub), max_age=SESSION_S, httponly=True, samesite="strict"
    )
    return response


@router.get("/", dependencies=[Admin])
async def runs_page(hub: SettingsDep, pages: PagesDep) -> HTMLResponse:
    return pages.render_plain("runs.html", runs=list_runs(hub.home / "runs"))


@router.get("/runs/{name}", dependencies=[Admin])
async def run_page(
    name: str, hub: SettingsDep, pages: PagesDep, failed: bool = False
) -> HTMLResponse:
    run = load_run(hub.home / "runs", name)
    if run is None:
        raise FieldError("run", f"no run named {name!r}", 404)
    records = [r for r in run["records"] if not failed or r.get("ems") != 1]
    return pages.render_plain("run.html", run=run, records=records, failed=failed)


@router.get("/trajectories/{tid}", dependencies=[Admin])
async def trajectory_page(
    trajectory: TrajectoryDep, hub: SettingsDep, pages: PagesDep
) -> HTMLResponse:
    episode = load_episode(find_episode(hub.home / "runs", trajectory.id))
    return pages.render(trajectory, "trajectory.html", meta=trajectory.meta, episode=episode)


@router.get("/trajectories/{tid}/{name}", dependencies=[Admin])
async def step_screenshot(trajectory: TrajectoryDep, hub: SettingsDep, name: str) -> FileResponse:
    folder = find_episode(hub.home / "runs", trajectory.id)
    if folder is None or not STEP_SHOT.fullmatch(name) or not (folder / name).is_file():
        raise FieldError("name", f"no screenshot {name!r} for this trajectory", 404)
    return FileResponse(folder / name, media_type="image/png")
