"""Pages for people (`/view/…`, the admin token in a cookie): runs, a run, a trajectory with
its verdict and the agent's steps, the leaderboard and the comparison of two runs; in English,
or in the language `?lang=` chose, which a cookie remembers (services/core/i18n.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from jinja2 import ChoiceLoader, Environment, FileSystemLoader

from services.core import i18n, inject
from services.core.errors import FieldError
from services.core.models.base import FileFormatError
from services.core.models.board import Filter
from services.core.models.folder import Run, finished_runs
from services.core.models.task import RELEASED
from services.core.results.board import MixedSuites, build, compare
from services.core.results.page import ASSETS, STATIC, TEMPLATES, render_board, render_compare
from services.core.results.wording import Wording, with_wording
from services.core.tasks import check_suite
from services.hub.deps import (
    COOKIE,
    HERE,
    SESSION_S,
    Admin,
    SettingsDep,
    same_secret,
    view_session,
)
from services.hub.runs import STEP_SHOT, find_attempt, list_runs, load_run
from services.kit.trajectory import Trajectory

router = APIRouter(prefix="/view")


@cache
def environment(lang: str) -> Environment:
    """The hub's pages for people in `lang`, with the board's macros (the language switch)."""
    loader = ChoiceLoader([FileSystemLoader(HERE / "templates"), FileSystemLoader(TEMPLATES)])
    return with_wording(i18n.environment(loader, lang), lang)


@dataclass(frozen=True)
class Language:
    """The language of the page asked for: `?lang=` (remembered in a cookie), else the one
    the cookie remembers, else English."""

    code: str
    asked: bool  # in the query: the answer sets the cookie
    request: Request

    def switch(self) -> list[i18n.Choice]:
        """This very page, its query kept, in each language."""
        query = [(k, v) for k, v in self.request.query_params.multi_items() if k != "lang"]
        path = self.request.url.path

        def href(code: str) -> str:
            return f"{path}?{urlencode([*query, ('lang', code)])}"

        return list(i18n.switch(self.code, href))

    def page(self, html: str) -> HTMLResponse:
        response = HTMLResponse(html)
        if self.asked:
            response.set_cookie(
                i18n.COOKIE, self.code, max_age=i18n.COOKIE_S, path="/view", samesite="lax"
            )
        return response

    def render(self, template: str, **context: Any) -> HTMLResponse:
        html = (
            environment(self.code).get_template(template).render(languages=self.switch(), **context)
        )
        return self.page(html)


async def language(
    request: Request,
    lang: Annotated[str | None, Query(description="en (the default) or ru")] = None,
) -> Language:
    if lang is not None:
        return Language(i18n.checked(lang), True, request)
    remembered = request.cookies.get(i18n.COOKIE)
    return Language(remembered if remembered in i18n.LANGUAGES else i18n.DEFAULT, False, request)


LanguageDep = Annotated[Language, Depends(language)]


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
async def runs_page(hub: SettingsDep, language: LanguageDep) -> HTMLResponse:
    return language.render("runs.html", runs=list_runs(hub.home / "runs"))


@router.get("/board", dependencies=[Admin])
async def board_page(
    hub: SettingsDep,
    language: LanguageDep,
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
        lang=language.code,
        languages=language.switch(),
    )
    return language.page(html)


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
async def compare_page(hub: SettingsDep, language: LanguageDep, a: str, b: str) -> HTMLResponse:
    """Run B against run A: flipped tasks, deltas by facet with intervals, McNemar."""
    first, second = (named_run(hub.home / "runs", name) for name in (a, b))
    try:
        result = compare(first, second)
    except MixedSuites as exc:
        raise FieldError("b", str(exc), 409) from None
    html = render_compare(
        result, "/view/board/assets", "/view/board", language.code, languages=language.switch()
    )
    return language.page(html)


@router.get("/runs/{name}", dependencies=[Admin])
async def run_page(
    name: str, hub: SettingsDep, language: LanguageDep, failed: bool = False
) -> HTMLResponse:
    run = named_run(hub.home / "runs", name)
    records = [r for r in run.records if not failed or r.ems != 1]
    return language.render("run.html", run=run, records=records, failed=failed)


async def held(request: Request, tid: str) -> Trajectory | None:
    """The trajectory as this stand holds it; None where it holds none by that id."""
    trajectory: Trajectory | None = await request.app.state.trajectories.get(tid)
    return trajectory


@router.get("/trajectories/{tid}", dependencies=[Admin])
async def trajectory_page(
    request: Request, tid: str, hub: SettingsDep, language: LanguageDep
) -> HTMLResponse:
    """The trajectory live, as this stand holds it; else as the run folder that has its
    episode recorded it (a queued run's, whose trajectories another stand held)."""
    trajectory = await held(request, tid)
    attempt = find_attempt(hub.home / "runs", tid)
    recorded = attempt.recorded if attempt is not None and trajectory is None else None
    if trajectory is not None:
        meta: Mapping[str, Any] = trajectory.meta
    elif recorded is not None:
        meta = recorded.meta.model_dump()
    else:
        raise FieldError("trajectory", "unknown trajectory id", 404)
    record = attempt.record if attempt is not None else None
    failure = record.failure if record is not None else None
    shots: dict[int | None, str | None] = (
        {s.step: s.screenshot for s in attempt.steps} if attempt is not None else {}
    )
    return language.render(
        "trajectory.html",
        meta=meta,
        episode=attempt if attempt is not None and attempt.folder is not None else None,
        recorded=recorded,
        goals=attack_goals(meta),
        words=condition_words(meta, language.code),
        failure=failure,
        point_shot=shots.get(failure.point.step) if failure and failure.point else None,
    )


def attack_goals(meta: Mapping[str, Any]) -> list[str | None]:
    """Per condition of the trajectory, the attack goal it is (`inject.goal_of`) where the
    trajectory renders its first site's `inject`; else None."""
    conditions = meta.get("conditions", [])
    domain = meta.get("first_domain") or ""
    if meta.get("ui_variants", {}).get(domain, {}).get(inject.KEY) in (None, inject.NONE):
        return [None] * len(conditions)
    return [inject.goal_of(domain, condition) for condition in conditions]


def condition_words(meta: Mapping[str, Any], lang: str) -> list[str]:
    """Per condition of the trajectory, its words in `lang`, as markup for the page."""
    say = Wording(lang, meta.get("first_domain"), html=True)
    return [
        say.condition(
            c["event_name"], c.get("parameters"), c.get("forbidden", False), c.get("group")
        )
        for c in meta.get("conditions", [])
    ]


@router.get("/trajectories/{tid}/{name}", dependencies=[Admin])
async def step_screenshot(tid: str, hub: SettingsDep, name: str) -> FileResponse:
    attempt = find_attempt(hub.home / "runs", tid)
    shot = attempt.folder / name if attempt is not None and attempt.folder else None
    if shot is None or not STEP_SHOT.fullmatch(name) or not shot.is_file():
        raise FieldError("name", f"no screenshot {name!r} for this trajectory", 404)
    return FileResponse(shot, media_type="image/png")
