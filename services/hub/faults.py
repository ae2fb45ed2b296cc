"""What the stand did wrong, as the hub saw it: each time it answered the agent with a 5xx
(a site unreachable or failing, NATS down), per trajectory; and the restarts the embedded
stack's supervisor counted. The runner reads both to tell an infrastructure failure from the
agent's (`infra_error`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import REGISTRY, Collector
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from services.core.models.api import InfraFault
from services.core.models.stack import STACK_FILE, StackFile
from services.kit.bus import TRAJECTORIES_BUCKET, Bus, KeyWrongLastSequenceError
from services.kit.web import ObservedSend

log = logging.getLogger("wpb.hub")

AGENT_PATH = re.compile(r"^/t/(?P<tid>[0-9a-f]{32})/(?:(?P<domain>[^/]+)/)?")
KEEP_TRAJECTORIES = 10_000  # in memory, the most recent; older ones live in their metadata
SAVE_TIMEOUT_S = 3.0


class FaultLog:
    """Faults per trajectory in the hub's memory (NATS may be what is down)."""

    def __init__(self) -> None:
        self.by_trajectory: OrderedDict[str, list[InfraFault]] = OrderedDict()

    def add(self, tid: str, fault: InfraFault) -> None:
        self.by_trajectory.setdefault(tid, []).append(fault)
        self.by_trajectory.move_to_end(tid)
        while len(self.by_trajectory) > KEEP_TRAJECTORIES:
            self.by_trajectory.popitem(last=False)

    def merged(self, tid: str, stored: list[InfraFault]) -> list[InfraFault]:
        """The faults in the metadata and those only in memory, once each, in time order."""
        seen = {(f.at, f.domain, f.status): f for f in [*self.by_trajectory.get(tid, []), *stored]}
        return [seen[key] for key in sorted(seen)]


class RecordFaults:
    """Records every 5xx the hub answers on an agent path (`/t/{tid}/…`): logged, kept in
    `app.state.faults`, and added to the trajectory's metadata when NATS takes it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.saving: set[asyncio.Task[None]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = AGENT_PATH.match(scope["path"]) if scope["type"] == "http" else None
        if found is None:
            await self.app(scope, receive, send)
            return
        observed = ObservedSend(send)
        try:
            await self.app(scope, receive, observed)
        except ClientDisconnect:
            raise  # the agent left (a page closed mid-post): nobody was answered
        except Exception:
            observed.status = 500
            raise
        finally:
            if observed.status >= 500:
                self.record(scope, found["tid"], found["domain"] or "hub", observed.status)

    def record(self, scope: Scope, tid: str, domain: str, status: int) -> None:
        fault = InfraFault(domain=domain, status=status, at=round(time.time(), 3))
        log.warning(
            "answered %d to the agent: %s %s",
            status,
            scope["method"],
            scope["path"],
            extra={"trajectory_id": tid},
        )
        app = scope["app"]
        app.state.faults.add(tid, fault)
        task = asyncio.create_task(save(app.state.bus, tid, fault))
        self.saving.add(task)
        task.add_done_callback(self.saving.discard)


async def save(bus: Bus, tid: str, fault: InfraFault) -> None:
    """Append a fault to the trajectory's `infra_faults`; given up quietly when NATS fails."""
    try:
        async with asyncio.timeout(SAVE_TIMEOUT_S):
            for _ in range(10):
                meta, revision = await bus.get_json(TRAJECTORIES_BUCKET, tid)
                if meta is None:
                    return
                meta["infra_faults"] = [*meta.get("infra_faults", []), fault.model_dump()]
                with contextlib.suppress(KeyWrongLastSequenceError):
                    await bus.put_json(TRAJECTORIES_BUCKET, tid, meta, revision)
                    return
    except Exception as exc:  # memory still holds it
        log.warning("fault not saved to metadata (%s)", exc, extra={"trajectory_id": tid})


def restarts(home: Path) -> dict[str, int]:
    """Restarts per service that the embedded stack's supervisor counted ($WPB_HOME/
    stack.json); empty where no such stack runs (compose)."""
    state = StackFile.read_if(home / STACK_FILE)
    return state.restarts if state else {}


class RestartsCollector(Collector):
    """`wpb_service_restarts_total{service=…}` on the hub's /metrics, read at each scrape."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "wpb_service_restarts",
            "Restarts of a service by the stack's supervisor",
            labels=["service"],
        )
        for service, count in sorted(restarts(self.home).items()):
            family.add_metric([service], count)
        yield family


_collector: RestartsCollector | None = None


def expose_restarts(home: Path) -> None:
    """Serve the restarts of the stack under `home` on this process's /metrics (one hub a
    process; a second app in the same process takes the place of the first)."""
    global _collector
    if _collector is None:
        _collector = RestartsCollector(home)
        REGISTRY.register(_collector)
    _collector.home = home
