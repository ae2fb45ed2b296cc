"""The collector: a durable JetStream consumer that persists every event, and the query API.

A batch is committed to SQLite before its messages are acked, so a crash loses nothing
that was acked and a redelivery is dropped by the (trajectory, id) key.

check(): the collector also matches conditions against a trajectory's log, held parsed in
memory (`RecentLogs`) so that a call after each step costs a match, not a read of the log.

Consistency: every message of the stream passes through this one consumer, and stream
sequences have no gaps, so the collector keeps a watermark — the highest sequence N such
that every message 1..N is committed. A query waits until the watermark reaches the
stream sequence of the trajectory's last event: then nothing a site was acknowledged for
is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from fastapi import FastAPI, Query, Request
from fastapi.responses import Response
from nats.errors import TimeoutError as NatsTimeout
from nats.js.api import AckPolicy, ConsumerConfig
from prometheus_client import Counter, Gauge

from services.core import keys
from services.core.errors import FieldError
from services.core.matching import check, event_types, validate_conditions
from services.core.models.api import TrajectoryCheck, Verdict
from services.core.models.events import Condition
from services.events.recent import RecentLogs
from services.events.store import EventStore
from services.kit.bus import EVENTS_STREAM, EVENTS_SUBJECT, Bus
from services.kit.settings import EventsSettings
from services.kit.web import create_service_app, json_body, json_object

log = logging.getLogger("wpb.events")
DURABLE = "collector"
CHECK_WAIT_S = 10.0  # how long check() waits for the collector to catch up

INGESTED = Counter("wpb_events_ingested_total", "Events committed to the store (new ones only)")
LAG = Gauge(
    "wpb_events_ingest_lag",
    "Events in the stream not yet committed: the stream's last sequence minus the watermark",
)


class Collector:
    def __init__(self, bus: Bus, store: EventStore, batch_size: int, recent_events: int) -> None:
        self.bus = bus
        self.store = store
        self.batch_size = batch_size
        self.recent = RecentLogs(recent_events)
        # A batch's commit and the logs' growth, or a log's first read, one at a time.
        self._store_lock = asyncio.Lock()
        self.watermark = 0
        self._above: set[int] = set()  # committed sequences beyond the watermark
        self.advanced = asyncio.Condition()
        self.running = False
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._read_lock = asyncio.Lock()  # one reader thread on the read connection

    async def start(self) -> None:
        assert self.bus.js is not None
        self.sub = await self.bus.js.pull_subscribe(
            f"{EVENTS_SUBJECT}.>",
            durable=DURABLE,
            stream=EVENTS_STREAM,
            # A batch takes milliseconds; what a crashed collector held comes back within
            # ack_wait, inside a query's wait.
            config=ConsumerConfig(
                ack_policy=AckPolicy.EXPLICIT, ack_wait=3, max_ack_pending=20_000
            ),
        )
        # Everything at or below the ack floor was committed before it was acked.
        info = await self.sub.consumer_info()
        self.watermark = int(info.ack_floor.stream_seq or 0) if info.ack_floor else 0
        self._task = asyncio.create_task(self._run())
        self.running = True

    async def stop(self) -> None:
        """Finish the batch in hand (commit, then ack) and stop fetching."""
        self._stop.set()
        if self._task:
            await self._task
        await self.sub.unsubscribe()
        self.running = False

    async def _run(self) -> None:
        while not self._stop.is_set():
            try:
                msgs = await self.sub.fetch(self.batch_size, timeout=0.5)
            except NatsTimeout:
                continue
            except Exception:
                log.exception("fetch failed; retrying")
                await asyncio.sleep(0.5)
                continue
            await self._persist(msgs)

    async def _persist(self, msgs: list) -> None:
        rows = []
        for msg in msgs:
            try:
                rows.append((json.loads(msg.data), msg.metadata.sequence.stream))
            except (ValueError, KeyError):
                log.error("dropping a malformed message on %s", msg.subject)
                await msg.term()
        async with self._store_lock:
            stored = await asyncio.to_thread(self.store.insert, rows)
            self.recent.extend(stored)
        INGESTED.inc(len(stored))
        await asyncio.gather(*(msg.ack() for msg in msgs))
        async with self.advanced:
            self._above.update(msg.metadata.sequence.stream for msg in msgs)
            while self.watermark + 1 in self._above:
                self.watermark += 1
                self._above.discard(self.watermark)
            self._above = {seq for seq in self._above if seq > self.watermark}
            self.advanced.notify_all()

    async def measure_lag(self) -> None:
        """Set LAG from the stream's last sequence; kept as it was while NATS is away."""
        assert self.bus.js is not None
        try:
            info = await self.bus.js.stream_info(EVENTS_STREAM)
        except Exception as exc:
            log.warning("ingest lag not measured (%s)", exc)
            return
        LAG.set(max(0, int(info.state.last_seq) - self.watermark))

    async def caught_up(self, trajectory_id: str, wait_s: float) -> None:
        """Wait until all the trajectory has in JetStream is stored (503 after `wait_s`)."""
        last = await self.bus.last_event_seq(trajectory_id)
        if last > self.watermark:
            async with self.advanced:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        self.advanced.wait_for(lambda: self.watermark >= last), wait_s
                    )
            if self.watermark < last:
                raise FieldError("events", "the collector has not caught up yet; retry", 503)

    async def query(
        self, trajectory_id: str, after: int, wait_s: float, types: list[str] | None = None
    ) -> str:
        """A trajectory's events as a JSON array, once all it has in JetStream is stored."""
        await self.caught_up(trajectory_id, wait_s)
        async with self._read_lock:
            return await asyncio.to_thread(self.store.events_json, trajectory_id, after, types)

    async def check(
        self, trajectory_id: str, conditions: list[Condition], wait_s: float
    ) -> Verdict:
        """The verdict of conditions on a trajectory's log (naming it), once all it has is
        stored."""
        await self.caught_up(trajectory_id, wait_s)
        log = self.recent.get(trajectory_id)
        if log is None:
            async with self._store_lock, self._read_lock:
                rows = await asyncio.to_thread(self.store.events, trajectory_id)
                log = self.recent.load(trajectory_id, rows)
        wanted = set(event_types(conditions))
        verdict = check(conditions, [event for event in log if event["type"] in wanted])
        return verdict.model_copy(update={"trajectory_id": trajectory_id})


def create_app(settings: EventsSettings | None = None) -> FastAPI:
    settings = settings or EventsSettings()

    async def startup(app: FastAPI) -> None:
        store = EventStore(settings.database())
        app.state.collector = Collector(
            app.state.bus, store, settings.batch_size, settings.recent_events
        )
        await app.state.collector.start()
        log.info("collecting into %s", settings.database())

    async def shutdown(app: FastAPI) -> None:
        await app.state.collector.stop()
        app.state.collector.store.close()

    app = create_service_app(
        "events",
        settings,
        startup=startup,
        shutdown=shutdown,
        ready=lambda a: bool(getattr(a.state, "collector", None) and a.state.collector.running),
        on_scrape=lambda a: a.state.collector.measure_lag(),
        trajectories=False,
    )

    @app.get("/trajectories/{tid}/events")
    async def trajectory_events(
        request: Request,
        tid: str,
        after: int = Query(
            0, ge=0, le=2**63 - 1, description="return events with seq greater than this"
        ),
        wait: float = Query(10.0, ge=0, le=30, description="seconds to wait for the collector"),
        types: str | None = Query(None, description="only these types (comma-separated)"),
    ) -> Response:
        keys.trajectory_id(tid)
        wanted = [t for t in types.split(",") if t] if types else None
        events = await request.app.state.collector.query(tid, after, wait, wanted)
        body = f'{{"trajectory_id":"{tid}","events":{events}}}'
        return Response(body.encode(), media_type="application/json")

    @app.post("/trajectories/{tid}/check", openapi_extra=json_body(TrajectoryCheck))
    async def trajectory_check(request: Request, tid: str) -> Response:
        """check() of the body's `conditions` on the trajectory's log (the verifier's)."""
        keys.trajectory_id(tid)
        body = TrajectoryCheck.checked(await json_object(request))
        conditions = validate_conditions(body.conditions)
        verdict = await request.app.state.collector.check(tid, conditions, CHECK_WAIT_S)
        return Response(verdict.answer(), media_type="application/json")

    return app
