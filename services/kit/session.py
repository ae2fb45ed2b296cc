"""`session=expire` (services/core/perturb.py): the site's session runs out and it asks the
person to log in again, with the test account the trajectory's hub page shows.

Every site has it through the kit: `create_site_app` puts `gate` before each of the site's
routes and serves the login screen (`/_session/login`). An action is a POST to the site, one
that changes its state (a cart or favourite button, a form that picks, books or pays); Файлы
has none (a download changes nothing), so its session never runs out. The first
`perturb.EXPIRE_AFTER` actions work; the next one is refused before it does anything (no
event, no change) and kept in the trajectory's state, and the person is sent to the login
screen (a JSON request from the page's script is answered 401 with the screen's address).
After the login the kept action is sent again, once, from the screen that follows (its form
submits itself, a button does it without scripts): nothing is lost and nothing is done
twice. The cart, the favourites and every value a form already sent are the site's state and
stay as they were. The session expires once per trajectory and site; all of it is the
trajectory's own (a `Slot` of the site's state).
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from fastapi import APIRouter, Form, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from services.core import perturb
from services.kit.site import SiteDep, SiteRequest, Slot, site_prefix

KEY = "session"
LOGIN_PATH = "/_session/login"


class Pending(TypedDict):
    """The refused action: its path (with the query) and the fields it sent."""

    path: str
    fields: list[tuple[str, str]]


class Session(TypedDict, total=False):
    actions: int  # actions done before the session ran out
    expired: bool  # the site asks to log in
    renewed: bool  # logged in again: the session does not run out again
    pending: Pending


SESSION: Slot[Session] = Slot("session")


class SessionExpired(Exception):
    """Raised by `gate` for an action the expired session refuses."""

    def __init__(self, login: str) -> None:
        super().__init__(login)
        self.login = login


def expires(site: SiteRequest) -> bool:
    return site.trajectory.variant(site.spec.domain, KEY) == "expire"


async def gate(site: SiteDep) -> None:
    """Count the trajectory's actions on the site; refuse one the expired session does not
    allow, keeping it for after the login (`SessionExpired`)."""
    request = site.request
    if request.method != "POST" or not expires(site):
        return
    form = await request.form()  # parsed once: the handler reads the same form
    fields = [(name, value) for name, value in form.multi_items() if isinstance(value, str)]
    query = f"?{request.url.query}" if request.url.query else ""
    pending: Pending = {"path": request.url.path + query, "fields": fields}

    def count(session: Session) -> bool:
        if session.get("renewed"):
            return False
        if session.get("expired") or session.get("actions", 0) >= perturb.EXPIRE_AFTER:
            session["expired"] = True
            session["pending"] = pending
            return True
        session["actions"] = session.get("actions", 0) + 1
        return False

    if await site.state.update(SESSION, count):
        raise SessionExpired(site.base + LOGIN_PATH)


def answer_expired(request: Request, exc: SessionExpired) -> Response:
    """The page's script gets 401 and the login screen's address; a form, the screen."""
    if "application/json" in request.headers.get("accept", ""):
        message = "Сеанс истёк. Войдите снова."
        return JSONResponse({"message": message, "login": exc.login}, 401)
    return RedirectResponse(exc.login, 303)


def session_router(domain: str) -> APIRouter:
    """The login screen of the expired session, under the site's trajectory routes."""
    router = APIRouter(prefix=site_prefix(domain))

    @router.get(LOGIN_PATH)
    async def login_page(site: SiteDep) -> Response:
        session = await site.state.get(SESSION)
        if not session.get("expired"):
            return site.redirect("/")
        return await site.page("kit/session_login.html", account=perturb.ACCOUNT, error="")

    @router.post(LOGIN_PATH)
    async def login(
        site: SiteDep,
        login: Annotated[str, Form(max_length=100)] = "",
        password: Annotated[str, Form(max_length=100)] = "",
    ) -> Response:
        session = await site.state.get(SESSION)
        if not session.get("expired"):
            return site.redirect("/")
        if (login.strip(), password) != perturb.ACCOUNT:
            error = "Неверный логин или пароль. Они указаны на главной странице сервисов."
            return await site.page(
                "kit/session_login.html", 401, account=perturb.ACCOUNT, error=error, login=login
            )

        def renew(value: Session) -> Session:
            kept = Session(**value)  # type: ignore[typeddict-item]
            for key in list(value):
                del value[key]  # type: ignore[misc]
            value["actions"] = kept.get("actions", 0)
            value["renewed"] = True
            return kept

        kept = await site.state.update(SESSION, renew)
        pending = kept.get("pending")
        if pending is None:
            return site.redirect("/")
        resume = site.pages.render_plain("kit/session_resume.html", pending=pending)
        resume.headers["Cache-Control"] = "no-store"
        return resume

    return router
