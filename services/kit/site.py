"""The shape every site shares: trajectory-scoped routes, events, state, pages.

A site is three modules: `service.py` (plain functions over the catalog and the state's
values, callable without HTTP), `routes.py` (a router of thin handlers under
`/t/{tid}/{domain}`: parse, call, render) and `app.py` (loads the catalog and hands the
router to `create_site_app`, services/kit/siteapp.py). A handler takes `SiteDep` (the
request's trajectory, state, event writer and pages) and the site's catalog dependency,
changes state, emits one event and renders a page with `site.page(...)`.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Generic, TypeVar, cast

import jinja2
from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import TypeAdapter

# FastAPI (pydantic) reads `Accepted`, and wants typing_extensions' before Python 3.12.
from typing_extensions import TypedDict

from services.core import inject, keys, perturb
from services.core.contract import TRACKING_TYPES, event_types, validate_params
from services.core.errors import FieldError
from services.core.models.api import PageEvent
from services.core.models.base import checked
from services.core.models.events import Event, Parameters
from services.core.russian import agree
from services.core.sites import registry
from services.kit import pagetoken
from services.kit.bus import STATE_BUCKET, Bus, KeyWrongLastSequenceError
from services.kit.chrome import Chrome
from services.kit.trajectory import REVISION_HEADER, Trajectory

KIT_TEMPLATES = Path(__file__).parent / "templates"
log = logging.getLogger("wpb.events")
MAX_BATCH = 200
PAGE_BATCH = TypeAdapter(list[PageEvent])

T = TypeVar("T")
S = TypeVar("S")

# A page's Jinja template context: what a template reads, by name (any value it renders).
Context = dict[str, Any]


@dataclass
class SiteSpec:
    """What makes one site different from its siblings."""

    domain: str
    root: Path  # the site's folder: templates/, static/, data/
    # Semantic types the page may write through `_events` (widget selections); the rest
    # of the contract is written by server handlers only.
    page_event_types: frozenset[str] = frozenset()
    # Checks a page event against the catalog (and the trajectory, e.g. its today);
    # raises FieldError naming the field.
    check_page_event: Callable[[str, Parameters, Trajectory], None] | None = None
    ready: Callable[[], bool] = field(default=lambda: True)
    # What every page of the site shows besides its own context (the cart, the stations).
    page_context: Callable[[SiteRequest], Awaitable[Context]] | None = None
    # The header's widgets, the footer and the information pages (services/kit/chrome.py).
    chrome: Chrome | None = None


class Accepted(TypedDict):
    """What `_events` answers: how many events were stored, and their ids."""

    accepted: int
    ids: list[str]


def site_prefix(domain: str) -> str:
    return f"/t/{{tid}}/{domain}"


# -- dependencies ----------------------------------------------------------------------


async def current_trajectory(request: Request, tid: str) -> Trajectory:
    """The path's trajectory, from the service's cache: at least as new as the revision the
    hub forwarded (`REVISION_HEADER`)."""
    at_least = keys.revision(request.headers.get(REVISION_HEADER))
    trajectory = await request.app.state.trajectories.get(tid, at_least)
    if trajectory is None:
        raise FieldError("trajectory", "unknown trajectory id", 404)
    return trajectory


TrajectoryDep = Annotated[Trajectory, Depends(current_trajectory)]


class Emitter:
    """Writes events of one trajectory on one site; refuses once the trajectory is closed.
    A `deferred` emitter sends each event at once and leaves its ack for `settle` (a route's:
    `SiteDep`)."""

    def __init__(self, bus: Bus, site: str, trajectory: Trajectory) -> None:
        self.bus = bus
        self.site = site
        self.trajectory = trajectory
        self.deferred = False
        self.unacked: list[asyncio.Future[Any]] = []

    def build(
        self,
        event_type: str,
        params: Parameters,
        source: str = "server",
        event_id: str | None = None,
        where: str = "",
    ) -> Event:
        return {
            "id": event_id or uuid.uuid4().hex,
            "trajectory_id": self.trajectory.id,
            "ts": time.time(),
            "site": self.site,
            "source": source,
            "type": event_type,
            "params": validate_params(event_type, params, where),
        }

    async def publish(self, events: list[Event]) -> None:
        if not self.trajectory.is_open:
            raise FieldError("trajectory", "closed, no more events accepted", 409)
        sent = await self.bus.send_events(events)
        if self.deferred:
            self.unacked.extend(sent)
        else:
            await self.bus.acked(sent)
        for event in events:
            log.debug(
                "%s %s %s",
                event["site"],
                event["type"],
                event["params"],
                extra={"trajectory_id": event["trajectory_id"]},
            )

    async def __call__(self, event_type: str, **params: Any) -> Event:
        event = self.build(event_type, params)
        await self.publish([event])
        return event

    async def screen(self, state: str, **context: Any) -> Event:
        """The `state_changed` a served screen writes."""
        return await self("state_changed", new_state=state, **context)

    async def settle(self) -> None:
        """Wait for JetStream's acks of every event sent and not yet acked (NATS errors
        propagate)."""
        unacked, self.unacked = self.unacked, []
        if unacked:
            await self.bus.acked(unacked)


@dataclass(frozen=True)
class Slot(Generic[S]):
    """One named value of a site's per-trajectory state and its shape `S` (a TypedDict of
    optional keys: a value never written reads as `{}`), e.g. `CART: Slot[Cart] =
    Slot("cart")`."""

    name: str


def replace(value: S, new: S) -> None:
    """Make a stored value `new`, in place (for `SiteState.update`; `{}` empties it)."""
    stored = cast(dict[str, object], value)
    stored.clear()
    stored.update(cast(dict[str, object], new))


class SiteState:
    """Per-trajectory state of one site (cart, favourites, selections) in the KV bucket,
    a JSON object per `Slot`."""

    def __init__(self, bus: Bus, domain: str, trajectory: Trajectory) -> None:
        self.bus = bus
        self.prefix = f"{domain}.{trajectory.id}"
        self.trajectory = trajectory

    async def get(self, slot: Slot[S]) -> S:
        value, _ = await self.bus.get_json(STATE_BUCKET, f"{self.prefix}.{slot.name}")
        return cast(S, value or {})

    async def update(self, slot: Slot[S], change: Callable[[S], T]) -> T:
        """Apply `change` to the value in place and store it; retried on a concurrent write."""
        if not self.trajectory.is_open:
            raise FieldError("trajectory", "closed, its state is frozen", 409)
        key = f"{self.prefix}.{slot.name}"
        for _ in range(20):
            stored, revision = await self.bus.get_json(STATE_BUCKET, key)
            value = cast(S, stored or {})
            result = change(value)
            try:
                await self.bus.put_json(STATE_BUCKET, key, value, revision=revision)
                return result
            except KeyWrongLastSequenceError:
                continue
        raise FieldError("state", f"too many concurrent writes to {slot.name}", 503)


# The page shell's own state of a trajectory, one for all its sites, beside each site's:
# `SiteState(bus, SHELL, trajectory)`.
SHELL = "shell"


class DoneDialogs(TypedDict, total=False):
    """The shell's dialogs (services/core/perturb.py DIALOGS) a trajectory's pages no longer
    show: the consent once answered (how), the promo once it opened (`opened`)."""

    consent: str
    promo: str


DONE_DIALOGS: Slot[DoneDialogs] = Slot("dialogs")


def dialogs_done(events: list[Event]) -> dict[str, str]:
    """What page events say the trajectory is done with: dialog -> how (`opened`)."""
    done: dict[str, str] = {}
    for event in events:
        params = event["params"]
        if not perturb.is_shell_dialog(event["type"], params):
            continue
        if event["type"] == "dialog_closed":
            done.setdefault(params["dialog"], params["how"])
        elif params["dialog"] == "promo":
            done.setdefault("promo", "opened")
    return done


def keep_first(value: DoneDialogs, done: dict[str, str]) -> None:
    """Add what `done` says to the stored dialogs; a dialog's first answer stays."""
    stored = cast(dict[str, str], value)
    for dialog, how in done.items():
        stored.setdefault(dialog, how)


# -- pages -----------------------------------------------------------------------------


class Pages:
    """Jinja2 templates: the service's own first, then the kit's shell and widgets. `key`
    signs the page token each page of a trajectory carries (services/kit/pagetoken.py)."""

    def __init__(
        self, templates: Path, domain: str, key: str, chrome: Chrome | None = None
    ) -> None:
        self.domain = domain
        self.key = key
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(
                [jinja2.FileSystemLoader(templates), jinja2.FileSystemLoader(KIT_TEMPLATES)]
            ),
            autoescape=True,
        )
        self.env.globals["DOMAINS"] = registry().captions
        # The site's header widgets and footer (kit/footer.html); none on the hub's pages.
        self.env.globals["CHROME"] = chrome
        # A number with its noun agreed: `{{ stars | agree("звезда") }}` (services/core/russian.py).
        self.env.filters["agree"] = agree
        # The site's attack, for the carrier the trajectory selects (kit/widgets/inject.html).
        self.env.globals["ATTACK"] = inject.attack(domain)
        # What the layout perturbations count in cards (kit/widgets/layout.html).
        self.env.globals["LAYOUT"] = {
            "first": perturb.LAZY_FIRST,
            "step": perturb.LAZY_STEP,
            "page": perturb.PAGE_SIZE,
        }

    def render_plain(self, template: str, **context: Any) -> HTMLResponse:
        """A page outside any trajectory (pages for people)."""
        return HTMLResponse(self.env.get_template(template).render(**context))

    def render(
        self,
        trajectory: Trajectory,
        template: str,
        status_code: int = 200,
        theme: str | None = None,
        **context: Any,
    ) -> HTMLResponse:
        domain = self.domain
        html = self.env.get_template(template).render(
            domain=domain,
            base=f"/t/{trajectory.id}/{domain}",
            hub=f"/t/{trajectory.id}",
            static=f"/_site/{domain}",
            theme=theme or trajectory.variant(domain, "theme") or "light",
            variants=trajectory.variants(domain),
            page_token=pagetoken.PLACEHOLDER,
            **context,
        )
        html = pagetoken.with_token(self.key, trajectory.id, domain, template, html)
        return HTMLResponse(html, status_code=status_code)


# Dependencies are coroutines, even those that only read app state: FastAPI runs a plain
# function on a worker thread, a hand-off that costs more than the read.


async def catalog(request: Request) -> Any:
    """The site's catalog, loaded once by its app (a site types it: `Annotated[Catalog,
    Depends(catalog)]`)."""
    return request.app.state.catalog


@dataclass
class SiteRequest:
    """One request to a site: its trajectory, the trajectory's state on the site, the event
    writer and the pages."""

    request: Request
    trajectory: Trajectory
    state: SiteState
    emit: Emitter
    pages: Pages
    spec: SiteSpec

    @property
    def catalog(self) -> Any:
        """The site's catalog (for what every page shows; a handler takes the dependency)."""
        return self.request.app.state.catalog

    @property
    def base(self) -> str:
        return f"/t/{self.trajectory.id}/{self.spec.domain}"

    def redirect(self, path: str) -> RedirectResponse:
        """303 to a path of this site (after a form's POST)."""
        return RedirectResponse(f"{self.base}{path}", 303)

    async def page(self, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        """A page of this site, with what every page of it shows."""
        common, shell = await asyncio.gather(self.common_context(), self.shell_perturbations())
        return self.pages.render(
            self.trajectory, template, status_code, shell=shell, **common, **context
        )

    async def common_context(self) -> Context:
        """What every page of the site shows (`SiteSpec.page_context`)."""
        return await self.spec.page_context(self) if self.spec.page_context else {}

    async def shell_perturbations(self) -> Context:
        """What the page shell renders of the trajectory's `latency` and `overlay`
        (kit/overlay.html): the overlay, unless its dialog is done with on any site of the
        trajectory, the promo's seeded delay and when a late action looks idle."""
        overlay = self.trajectory.variant(self.spec.domain, "overlay") or perturb.NONE
        if overlay in perturb.DIALOGS:
            done = await SiteState(self.state.bus, SHELL, self.trajectory).get(DONE_DIALOGS)
            if overlay in done:
                overlay = perturb.NONE
        promo_s = perturb.seeded(self.trajectory.id, "promo", perturb.PROMO_S)
        return {
            "overlay": overlay,
            "promo_after_ms": round(promo_s * 1000),
            "idle_after_ms": perturb.IDLE_AFTER_MS,
        }


async def site_request(request: Request, trajectory: TrajectoryDep) -> SiteRequest:
    spec: SiteSpec = request.app.state.spec
    bus = request.app.state.bus
    return SiteRequest(
        request=request,
        trajectory=trajectory,
        state=SiteState(bus, spec.domain, trajectory),
        emit=Emitter(bus, spec.domain, trajectory),
        pages=request.app.state.pages,
        spec=spec,
    )


async def settled_site_request(
    request: Request, trajectory: TrajectoryDep
) -> AsyncIterator[SiteRequest]:
    """A route's `SiteRequest`: the events its handler writes go out at once, and their acks
    are awaited together once it returns, before its response is sent (the screen's event
    is stored while its page renders, not before)."""
    site = await site_request(request, trajectory)
    site.emit.deferred = True
    try:
        yield site
    finally:
        await site.emit.settle()


# `scope="function"`: the exit runs before the response is sent, so a lost ack is the answer.
SiteDep = Annotated[SiteRequest, Depends(settled_site_request, scope="function")]


# -- the app ---------------------------------------------------------------------------


def page_grant(request: Request, trajectory: Trajectory, domain: str) -> pagetoken.Grant:
    """What the page token of a post to `_events` (`?page=<token>`) allows; 403 without one
    for this trajectory and domain."""
    key = request.app.state.settings.service_token
    token = request.query_params.get("page", "")
    return pagetoken.verify(key, token, trajectory.id, domain)


def parse_page_events(
    payload: Any, spec: SiteSpec, emitter: Emitter, grant: pagetoken.Grant
) -> list[Event]:
    """Events a page posted (its body, parsed), in stored form; all-or-nothing, errors name
    the field. A widget's event is accepted only from a page that renders its control
    (`grant`)."""
    batch = payload if isinstance(payload, list) else [payload]
    if not batch or len(batch) > MAX_BATCH:
        raise FieldError("body", f"send 1..{MAX_BATCH} events")
    items = checked(PAGE_BATCH, batch, "events")
    # The page shell's dialogs write theirs on every site (services/core/perturb.py).
    from_page = spec.page_event_types | perturb.DIALOG_EVENTS
    allowed = TRACKING_TYPES | from_page
    overlay = emitter.trajectory.variant(spec.domain, "overlay")
    events = []
    for index, item in enumerate(items):
        where = f"events[{index}]"
        event_type, event_id = item.type, item.id
        if event_id is not None:
            keys.event_id(event_id, f"{where}.id")
        if event_type not in allowed and event_type in event_types():
            raise FieldError(
                f"{where}.type", f"{event_type!r} is written by the server, not by a page"
            )
        if event_type in from_page and event_type not in grant.types:
            raise FieldError(
                f"{where}.type", f"the page {grant.screen} has no control that writes it", 403
            )
        event = emitter.build(event_type, item.params, "page", event_id, where)
        params = event["params"]
        shell_dialog = event_type in perturb.DIALOG_EVENTS and (
            event_type not in spec.page_event_types or perturb.is_shell_dialog(event_type, params)
        )
        try:
            if shell_dialog:
                perturb.check_dialog_event(event_type, params, overlay)
            elif spec.check_page_event and event_type not in TRACKING_TYPES:
                spec.check_page_event(event_type, params, emitter.trajectory)
        except FieldError as exc:
            raise FieldError(f"{where}.{exc.field}", exc.message) from None
        events.append(event)
    return events
