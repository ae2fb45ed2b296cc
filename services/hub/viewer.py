"""Pages for people (`/view/…`, the admin token in a cookie): runs, a run, a trajectory with
its verdict and the agent's steps, the leaderboard and the comparison of two runs."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from services.core import inject
from services.core.errors import FieldError
from services.core.models.base import FileFormatError
from services.core.models.board import Filter
from services.core.models.task import RELEASED
from services.core.results.board import MixedSuites, Run, build, compare, finished_runs
from services.core.results.page import ASSETS, STATIC, render_board, render_compare
from services.core.tasks import check_suite
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
from services.kit.site import TrajectoryDep
from services.kit.trajectory import Trajectory

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


@router.get("/board", dependencies=[Admin])
async def board_page(
    hub: SettingsDep,
    site: str | None = None,
    ui: str | None = None,
    kind: str | None = None,
    every: bool = False,
    suite: str = RELEASED,
) -> HTMLResponse:
    """One suite's leaderboard over the runs under WPB_HOME (docs/results.md)."""
    check_suite(suite, "suite")
    only = Filter(site=site or None, ui=ui or None, kind=kind or None)
    board = build(finished_runs(hub.home / "runs"), only, latest=not every, suite=suite)

    def link(name: str, chosen: Filter) -> str:
        """The board of suite `name` that `chosen` filters."""
        query = ({"suite": name} if name != RELEASED else {}) | chosen.chosen()
        query |= {"every": "1"} if every else {}
        return "/view/board" + (f"?{urlencode(query)}" if query else "")

    def compare(a: str, b: str) -> str:
        return f"/view/compare?{urlencode({'a': a, 'b': b})}"

    html = render_board(
        board,
        lambda chosen: link(suite, chosen),
        "/view/board/assets",
        back="/view/",
        compare=compare,
        suite_href=lambda name: link(name, Filter()),
    )
    return HTMLResponse(html)


@router.get("/board/assets/{name}")
async def board_asset(name: str) -> FileResponse:
    if name not in ASSETS:
        raise FieldError("name", f"no asset {name!r}", 404)
    return FileResponse(STATIC / name)


def named_run(root: Path, name: str) -> Run:
    """The run named `name`: 404 where there is none, 422 naming the file and the field
    where one of its files is malformed."""
    try:
        run = load_run(root, name)
    except FileFormatError as exc:
        raise FieldError("run", str(exc), 422) from None
    if run is None:
        raise FieldError("run", f"no run named {name!r}", 404)
    return run


@router.get("/compare", dependencies=[Admin])
async def compare_page(hub: SettingsDep, a: str, b: str) -> HTMLResponse:
    """Run B against run A: flipped tasks, deltas by facet with intervals, McNemar."""
    first, second = (named_run(hub.home / "runs", name) for name in (a, b))
    try:
        result = compare(first, second)
    except MixedSuites as exc:
        raise FieldError("b", str(exc), 409) from None
    html = render_compare(result, "/view/board/assets", back="/view/board")
    return HTMLResponse(html)


@router.get("/runs/{name}", dependencies=[Admin])
async def run_page(
    name: str, hub: SettingsDep, pages: PagesDep, failed: bool = False
) -> HTMLResponse:
    run = named_run(hub.home / "runs", name)
    records = [r for r in run.records if not failed or r.ems != 1]
    return pages.render_plain("run.html", run=run, records=records, failed=failed)


@router.get("/trajectories/{tid}", dependencies=[Admin])
async def trajectory_page(
    trajectory: TrajectoryDep, hub: SettingsDep, pages: PagesDep
) -> HTMLResponse:
    episode = load_episode(find_episode(hub.home / "runs", trajectory.id))
    return pages.render(
        trajectory,
        "trajectory.html",
        meta=trajectory.meta,
        episode=episode,
        goals=attack_goals(trajectory),
    )


def attack_goals(trajectory: Trajectory) -> list[str | None]:
    """Per condition of the trajectory, the attack goal it is (`inject.goal_of`) where the
    trajectory renders its first site's `inject`; else None."""
    conditions = trajectory.meta.get("conditions", [])
    domain = trajectory.meta.get("first_domain") or ""
    if trajectory.variant(domain, inject.KEY) in (None, inject.NONE):
        return [None] * len(conditions)
    return [inject.goal_of(domain, condition) for condition in conditions]


@router.get("/trajectories/{tid}/{name}", dependencies=[Admin])
async def step_screenshot(trajectory: TrajectoryDep, hub: SettingsDep, name: str) -> FileResponse:
    folder = find_episode(hub.home / "runs", trajectory.id)
    if folder is None or not STEP_SHOT.fullmatch(name) or not (folder / name).is_file():
        raise FieldError("name", f"no screenshot {name!r} for this trajectory", 404)
    return FileResponse(folder / name, media_type="image/png")
