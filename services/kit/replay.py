"""A task's start state, replayed by the site that owns it (docs/tasks.md, "Start state").

A site that can start a trajectory from an intermediate state declares a `Replay`: for each
event type it replays, a `Step` whose `check` holds the parameters to its catalog (pure: the
validator calls it too) and whose `apply` reaches that state through the same functions its
handlers call (add to the cart, choose a room, pay), with the request's emitter a `SetupEmitter`.
The hub posts a trajectory's start state to each site's `POST /_replay/{tid}` at creation
(service credential; outside the `/t/` paths, so no agent reaches it) and publishes what all
of them wrote once every site has replayed its part.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import cast

from fastapi import APIRouter, Request

from services.core.errors import FieldError
from services.core.matching import SETUP, event_matches
from services.core.models.api import Replay as ReplayBody
from services.core.models.api import Replayed
from services.core.models.events import Condition, Event, Parameters
from services.kit.site import Emitter, SiteRequest, TrajectoryDep, site_request
from services.kit.web import json_body, json_object


@dataclass(frozen=True)
class Step:
    """How one event type becomes state on a site."""

    # The parameters against the catalog; FieldError naming `parameters.<name>`.
    check: Callable[[Parameters], None]
    # The state reached through the site's own functions; the events they write are kept.
    apply: Callable[[SiteRequest, Parameters], Awaitable[None]]


@dataclass(frozen=True)
class Replay:
    """What a site replays, and where each of its first screens is (`bench_first_state` ->
    the path under the site's prefix), so a trajectory with a start state opens there."""

    domain: str
    steps: dict[str, Step]
    screens: dict[str, str] = field(default_factory=dict)

    def check(self, event_name: str, params: Parameters) -> None:
        """One start-state event: a type this site replays, parameters its catalog knows."""
        step = self.steps.get(event_name)
        if step is None:
            raise FieldError(
                "event_name",
                f"{self.domain} cannot replay {event_name!r}; it replays {', '.join(self.steps)}",
            )
        step.check(params)

    def router(self) -> APIRouter:
        """`POST /_replay/{tid}`: the body's events replayed on this site (`replay`)."""
        router = APIRouter()

        @router.post("/_replay/{tid}", openapi_extra=json_body(ReplayBody))
        async def replay_start(request: Request, trajectory: TrajectoryDep) -> Replayed:
            body = ReplayBody.checked(await json_object(request))
            site = await site_request(request, trajectory)
            events = await replay(site, self, body)
            return Replayed(events=events, first_page=self.screens.get(body.first_state or ""))

        return router


class SetupEmitter(Emitter):
    """An emitter that publishes nothing: it keeps the events a replay's steps write, marked
    `source: "setup"`, for the hub to publish once the whole start state has replayed (a
    replay that fails halfway leaves no event behind)."""

    def __init__(self, emit: Emitter) -> None:
        super().__init__(emit.bus, emit.site, emit.trajectory)
        self.events: list[Event] = []

    def build(
        self,
        event_type: str,
        params: Parameters,
        source: str = SETUP,
        event_id: str | None = None,
        where: str = "",
    ) -> Event:
        return super().build(event_type, params, SETUP, event_id, where)

    async def publish(self, events: list[Event]) -> None:
        self.events.extend(events)


async def replay(site: SiteRequest, steps: Replay, body: ReplayBody) -> list[Event]:
    """Replay the body's events in order on this site; the events written. Each must write
    the event it names with the parameters it names, else it is refused as wrong parameters;
    a refusal (422) names the event's field in the task. The state a refused replay left is
    the hub's to purge."""
    emit = SetupEmitter(site.emit)
    site.emit = emit
    for item in body.events:
        params = dict(item.parameters)
        try:
            steps.check(item.event_name, params)
        except FieldError as exc:
            raise FieldError(f"{item.field}.{exc.field}", exc.message) from None
        written = len(emit.events)
        try:
            await steps.steps[item.event_name].apply(site, params)
        except FieldError as exc:  # the state refuses it here (an empty cart, a taken seat)
            raise FieldError(
                item.field, f"cannot be replayed: {exc.field}: {exc.message}"
            ) from None
        wanted = cast(Condition, {"event_name": item.event_name, "parameters": params})
        if not any(event_matches(wanted, event) for event in emit.events[written:]):
            wrote = [(e["type"], e.get("params")) for e in emit.events[written:]]
            raise FieldError(
                f"{item.field}.parameters",
                f"the replay wrote {wrote or 'nothing'}, not {item.event_name} with {params}",
            )
    return emit.events
