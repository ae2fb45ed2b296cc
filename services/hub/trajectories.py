"""Trajectories, without HTTP: one is created from a task (checked, dates shifted, variants
resolved, stored in the KV bucket) and closed once (completion and final message kept)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from datetime import date
from pathlib import Path
from typing import cast

import aiohttp
from nats.js.kv import KeyValue
from prometheus_client import Gauge

from services.core.dateshift import shift_task
from services.core.errors import FieldError
from services.core.inject import new_canary
from services.core.models.api import CloseTrajectory, NewTrajectory, TrajectoryMeta
from services.core.models.task import Task
from services.core.tasks import check_task, find_task, load_task
from services.core.variants import check_selection, resolve
from services.hub.setup import replay_start
from services.hub.sinks import browser_departures
from services.kit.bus import TRAJECTORIES_BUCKET, Bus, KeyWrongLastSequenceError
from services.kit.settings import HubSettings
from services.kit.site import Emitter
from services.kit.trajectory import Meta, Trajectory, TrajectoryCache, new_trajectory_id

log = logging.getLogger("wpb.hub")
# A trajectory's metadata is one NATS message (at most 1 MiB), rewritten when it is closed.
MAX_META_BYTES = 512 * 1024
# The id of a trajectory's one `agent_report`: a close sent again stores it once.
REPORT_ID = "agent_report"
MAX_MESSAGE_CHARS = 4000
OPEN = Gauge("wpb_trajectories_open", "Trajectories created and not yet closed, on the stand")


def task_from_body(body: NewTrajectory, tasks_dir: Path) -> Task:
    """The task object of the body, or the file `task_id` names (then only a label)."""
    stem = body.task_id
    if body.task is not None:
        return check_task(body.task)
    if stem is None:
        raise FieldError("task", "give a task object or a task_id")
    path = find_task(tasks_dir, stem)
    if path is None:
        raise FieldError("task_id", f"no task file named {stem!r}", 404)
    return load_task(path)


def stand_today(value: str | None, default: date) -> date:
    if value is None:
        return default
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise FieldError("today", "expected an ISO date YYYY-MM-DD") from None


async def create(
    cache: TrajectoryCache, client: aiohttp.ClientSession, hub: HubSettings, body: NewTrajectory
) -> TrajectoryMeta:
    """A new open trajectory for the body's task; its stored meta. A task with a start state
    has it replayed on its sites (services/hub/setup.py) before the answer, and its agent
    starts on the first screen the task names."""
    task = task_from_body(body, hub.tasks_dir)
    test_data = task["test_data"]
    override = check_selection(body.ui_variants or {}, "ui_variants")
    ui_variants = resolve(test_data, task.get("domain_configs") or {}, override)
    today = stand_today(body.today, hub.stand_today())
    try:
        shifted, shift = shift_task(test_data, today)
    except OverflowError:
        raise FieldError("today", "too late: the task's dates cannot follow it") from None
    label = body.task_id or task.get("id") or test_data.get("id")
    tid = new_trajectory_id()
    url = f"{hub.public_url.rstrip('/')}/t/{tid}/"
    meta = TrajectoryMeta(
        trajectory_id=tid,
        task_id=None if label is None else str(label),
        status="open",
        created_at=time.time(),
        today=today.isoformat(),
        date_shift_days=shift,
        url=url,
        prompt=shifted["task"].replace("%HOST%", url),
        first_domain=test_data.get("bench_first_domain"),
        conditions=shifted["conditions"],
        ui_taxonomy=test_data.get("ui_taxonomy"),
        ui_variants=ui_variants,
        canary=new_canary(),
    )
    stored = stored_form(meta)
    size = len(json.dumps(stored, ensure_ascii=False).encode())
    if size > MAX_META_BYTES:
        raise FieldError(
            "task",
            f"the trajectory would take {size} bytes with its prompt (%HOST% replaced) and"
            f" conditions, more than {MAX_META_BYTES}",
            413,
        )
    revision = await cache.bus.put_json(TRAJECTORIES_BUCKET, tid, stored, revision=0)
    if "start_state" in shifted:
        field = "task" if body.task is not None else str(body.task_id)
        page = await replay_start(client, hub, cache.bus, tid, shifted, field)
        if page is not None:
            meta = meta.model_copy(update={"url": f"{url}{meta.first_domain}{page}"})
            stored = stored_form(meta)
            revision = await cache.bus.put_json(TRAJECTORIES_BUCKET, tid, stored, revision)
    cache.keep(Trajectory(stored, revision))
    log.info(
        "created for task %s, dates shifted %d days",
        meta.task_id,
        shift,
        extra={"trajectory_id": tid},
    )
    return meta


def stored_form(meta: TrajectoryMeta) -> Meta:
    """The metadata as the bucket holds it, for every service's trajectory cache (the kit's
    `Meta`, which a test holds to the model's fields): what was never set is left out."""
    return cast(Meta, meta.model_dump(mode="json", exclude_unset=True))


async def close(cache: TrajectoryCache, tid: str, body: CloseTrajectory) -> TrajectoryMeta:
    """Close an open trajectory, keeping the agent's completion and final message; the
    requests to other hosts the runner recorded (`origin_left`, `via: "browser"`) and the
    agent's report, when the body has them, go into the log first (server events of the
    hub's). The cache holds the closed metadata before this returns: the hub refuses the
    trajectory's writes from then on, and forwards its revision to the sites."""
    message = (body.final_message or "")[:MAX_MESSAGE_CHARS]
    written = False
    for _ in range(20):
        trajectory = await cache.fetch(tid)
        if trajectory is None:
            raise FieldError("trajectory", "unknown trajectory id", 404)
        if not trajectory.is_open:
            raise FieldError("trajectory", "already closed", 409)
        if not written:
            emit = Emitter(cache.bus, "hub", trajectory)
            events = browser_departures(emit, body.left)
            if body.report_status is not None:
                params = {"status": body.report_status, "message": message}
                events.append(emit.build("agent_report", params, event_id=REPORT_ID))
            if events:
                await emit.publish(events)
            written = True
        closed = {"status": "closed", "closed_at": time.time()}
        if body.completion is not None:
            closed["completion"] = body.completion
        if body.final_message is not None:
            closed["final_message"] = message
        meta = TrajectoryMeta.model_validate({**trajectory.meta, **closed})
        stored = stored_form(meta)
        try:
            revision = await cache.bus.put_json(
                TRAJECTORIES_BUCKET, tid, stored, trajectory.revision
            )
        except KeyWrongLastSequenceError:
            continue
        cache.keep(Trajectory(stored, revision))
        log.info("closed, completion %s", meta.completion, extra={"trajectory_id": tid})
        return meta
    raise FieldError("trajectory", "too many concurrent updates", 503)


class OpenTrajectories:
    """The ids of the stand's open trajectories, for `wpb_trajectories_open`: kept from a watch
    on the trajectories bucket, which first replays every trajectory's latest metadata (a
    hub that restarts counts those already open) and then delivers each write by any hub (a
    trajectory closed through another replica leaves the count too)."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self._watcher: KeyValue.KeyWatcher | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self, bus: Bus) -> None:
        self._watcher = await bus.kv(TRAJECTORIES_BUCKET).watchall()
        self._task = asyncio.create_task(self._follow(self._watcher))
        OPEN.set_function(lambda: len(self.ids))  # one hub a process: the latest one counts

    async def _follow(self, watcher: KeyValue.KeyWatcher) -> None:
        async for entry in watcher:
            if entry is None:  # the end of the replay
                continue
            try:
                is_open = json.loads(entry.value or b"null")["status"] == "open"
            except (ValueError, TypeError, KeyError):
                is_open = False  # deleted, purged, or not a trajectory's metadata
            if is_open:
                self.ids.add(entry.key)
            else:
                self.ids.discard(entry.key)

    async def stop(self) -> None:
        if self._watcher is not None:
            with contextlib.suppress(Exception):  # NATS may be gone already
                await self._watcher.stop()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
