"""A new trajectory's start state (docs/tasks.md, "Start state"): each site replays its part
through its own `POST /_replay/{tid}` (services/kit/replay.py), the hub publishes what they
wrote once all have, and a replay refused halfway leaves nothing behind."""

from __future__ import annotations

import contextlib
import logging

import aiohttp
from nats.js.errors import NoKeysError

from services.core.errors import FieldError
from services.core.models.api import Replay, Replayed, ReplayEvent
from services.core.models.events import Event
from services.core.models.task import TestData
from services.core.tasks import start_domain
from services.kit.bus import STATE_BUCKET, TRAJECTORIES_BUCKET, Bus
from services.kit.settings import HubSettings
from services.kit.upstream import UPSTREAM_ERRORS

log = logging.getLogger("wpb.hub")


def by_site(test_data: TestData, field: str) -> dict[str, list[ReplayEvent]]:
    """The start state's events per site that replays them, in the task's order, each with
    the field that names it; the first domain's site among them (its first screen's path
    comes with its answer) even when it replays nothing."""
    first = test_data.get("bench_first_domain")
    parts: dict[str, list[ReplayEvent]] = {first: []} if first else {}
    for index, item in enumerate(test_data.get("start_state") or []):
        domain = start_domain(item, first) or ""
        parts.setdefault(domain, []).append(
            ReplayEvent(
                field=f"{field}.test_data.start_state[{index}]",
                event_name=item["event_name"],
                parameters=dict(item.get("parameters") or {}),
            )
        )
    return parts


async def replay_on(
    client: aiohttp.ClientSession, url: str, tid: str, body: Replay, domain: str
) -> Replayed:
    """One site's part of the start state, replayed; its refusal as the FieldError it named."""
    try:
        async with client.post(f"{url}/_replay/{tid}", json=body.model_dump()) as answer:
            data = await answer.json(content_type=None)
            status = answer.status
    except (*UPSTREAM_ERRORS, ValueError) as exc:
        raise FieldError("start_state", f"{domain} did not replay it ({exc!r})", 503) from None
    if status == 200:
        return Replayed.checked(data)
    if status == 422 and isinstance(data, dict) and "field" in data:
        raise FieldError(str(data["field"]), str(data.get("message", "")))
    raise FieldError("start_state", f"{domain} answered {status} to the replay", 503)


async def replay_start(
    client: aiohttp.ClientSession,
    hub: HubSettings,
    bus: Bus,
    tid: str,
    test_data: TestData,
    field: str,
) -> str | None:
    """Replay the start state of a stored trajectory on its sites and publish the events
    (`source: "setup"`); the first screen's path on the first domain, if that site has one.
    On a refusal the trajectory, its site state and nothing published are left: `purge`."""
    first = test_data.get("bench_first_domain")
    events: list[Event] = []
    page = None
    try:
        for domain, items in by_site(test_data, field).items():
            url = hub.sites.get(domain)
            if url is None:
                where = items[0].field if items else f"{field}.test_data.bench_first_domain"
                raise FieldError(where, f"no site {domain!r} on this stand replays it")
            state = test_data.get("bench_first_state") if domain == first else None
            answer = await replay_on(
                client, url, tid, Replay(events=items, first_state=state), domain
            )
            events.extend(answer.events)
            page = answer.first_page if domain == first else page
        await bus.publish_events(events)
    except BaseException:
        await purge(bus, tid)
        raise
    log.info("start state replayed: %d events", len(events), extra={"trajectory_id": tid})
    return page


async def purge(bus: Bus, tid: str) -> None:
    """Nothing of a trajectory whose start state was refused: its sites' state and its
    metadata purged (no event of it was published)."""
    state = bus.kv(STATE_BUCKET)
    with contextlib.suppress(NoKeysError):  # the client's filters match a part of the key
        for key in await state.keys(filters=[f".{tid}."]):
            await state.purge(key)
    await bus.kv(TRAJECTORIES_BUCKET).purge(tid)
