"""Trajectories as the services see them: metadata in the KV bucket, addressed by the path's
tid, kept in each service's memory by a `TrajectoryCache`."""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date
from typing import Literal, NotRequired, TypedDict, cast

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import DeliverPolicy

from services.core.keys import TRAJECTORY_ID
from services.core.models.api import Selection
from services.core.models.events import Condition
from services.core.models.task import Taxonomy
from services.kit.bus import TRAJECTORIES_BUCKET, Bus

log = logging.getLogger("wpb.bus")


def new_trajectory_id() -> str:
    """128 random bits, hex: unguessable and safe in a NATS subject and a URL."""
    return secrets.token_hex(16)


class Fault(TypedDict):
    """A 5xx the hub answered the agent on the trajectory's paths (the API's `InfraFault`)."""

    domain: str
    status: int
    at: float


class Meta(TypedDict):
    """A trajectory's metadata as the hub writes it to the KV bucket (the API answers it as
    the `TrajectoryMeta` model of services/core/models/api.py; a test holds the two to the
    same fields)."""

    trajectory_id: str
    task_id: str | None
    status: Literal["open", "closed"]
    created_at: float
    today: str
    date_shift_days: int
    url: str
    prompt: str
    first_domain: str | None
    # The conditions with their dates shifted to the trajectory's today.
    conditions: list[Condition]
    ui_taxonomy: Taxonomy | None
    ui_variants: Selection
    # The canary secret (services/core/inject.py); absent in a trajectory older than it.
    canary: NotRequired[str]
    # Once closed: when, and what the agent said.
    closed_at: NotRequired[float]
    completion: NotRequired[bool]
    final_message: NotRequired[str]
    # Written by services/hub/faults.py.
    infra_faults: NotRequired[list[Fault]]


@dataclass(frozen=True)
class Trajectory:
    """One run of one task, read from the KV bucket at request time."""

    meta: Meta
    revision: int

    @property
    def id(self) -> str:
        return self.meta["trajectory_id"]

    @property
    def today(self) -> date:
        """The stand's today when the trajectory was created; its task's dates follow it."""
        return date.fromisoformat(self.meta["today"])

    @property
    def is_open(self) -> bool:
        return self.meta.get("status") == "open"

    @property
    def canary(self) -> str | None:
        return self.meta.get("canary")

    def variants(self, domain: str) -> dict[str, str]:
        return dict(self.meta.get("ui_variants", {}).get(domain, {}))

    def variant(self, domain: str, key: str) -> str | None:
        return self.variants(domain).get(key)


# The header with which the hub tells a service the lowest revision of the trajectory it may
# answer from (the hub's own, which a close it made has already raised).
REVISION_HEADER = "x-wpb-trajectory-revision"


class TrajectoryCache:
    """The trajectories' metadata as one service last read it: from the KV bucket on first
    use, then kept fresh by a subscription to the bucket's writes, so that a request reads
    memory instead of asking NATS.

    Every write to the bucket, by any service, reaches the subscription within a NATS
    delivery; `get(tid, at_least=revision)` reads the bucket again when the cached entry is
    older than a revision the caller knows of (the hub passes its own with every request it
    forwards, and updates its own entry as soon as it closes a trajectory: a closed
    trajectory is refused at once). While NATS is away, nothing is cached; after a reconnect
    the cache starts empty and subscribes again.
    """

    def __init__(self, bus: Bus, size: int = 1024) -> None:
        self.bus = bus
        self.size = size
        self._entries: OrderedDict[str, Trajectory] = OrderedDict()
        self._subscription: Subscription | None = None
        self._subscribed_at = -1  # the bus's reconnect count when the subscription was made
        self._prefix = f"$KV.{TRAJECTORIES_BUCKET}."

    async def start(self) -> None:
        self.bus.on_reconnect.append(self._resubscribe)
        await self._subscribe()

    async def stop(self) -> None:
        if self._subscription is not None:
            with contextlib.suppress(Exception):  # NATS may be gone already
                await self._subscription.unsubscribe()
            self._subscription = None

    async def _subscribe(self) -> None:
        assert self.bus.js is not None
        self._subscription = await self.bus.js.subscribe(
            f"{self._prefix}>",
            stream=f"KV_{TRAJECTORIES_BUCKET}",
            cb=self._written,
            ordered_consumer=True,
            deliver_policy=DeliverPolicy.NEW,
        )
        self._subscribed_at = self.bus.reconnects

    async def _resubscribe(self) -> None:
        await self.stop()
        self._entries.clear()
        try:
            await self._subscribe()
        except Exception as exc:  # reads go to the bucket until the next reconnect
            log.warning("trajectory cache not subscribed again (%s)", exc)

    async def _written(self, msg: Msg) -> None:
        tid = msg.subject.removeprefix(self._prefix)
        if msg.headers and msg.headers.get("KV-Operation") in ("DEL", "PURGE"):
            self._entries.pop(tid, None)
            return
        try:
            self.keep(Trajectory(json.loads(msg.data), msg.metadata.sequence.stream))
        except (ValueError, KeyError):
            self._entries.pop(tid, None)

    def keep(self, trajectory: Trajectory) -> None:
        """Cache a trajectory's metadata unless a newer revision is cached already."""
        held = self._entries.get(trajectory.id)
        if held is not None and held.revision > trajectory.revision:
            return
        self._entries[trajectory.id] = trajectory
        self._entries.move_to_end(trajectory.id)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    @property
    def live(self) -> bool:
        """Whether the subscription delivers every write: made on the current connection."""
        return (
            self._subscription is not None
            and self.bus.connected
            and self._subscribed_at == self.bus.reconnects
        )

    async def get(self, trajectory_id: str, at_least: int = 0) -> Trajectory | None:
        """The trajectory's metadata, at revision `at_least` or newer when it has one; None
        for an unknown id."""
        held = self._entries.get(trajectory_id)
        if held is not None and held.revision >= at_least and self.live:
            self._entries.move_to_end(trajectory_id)
            return held
        return await self.fetch(trajectory_id)

    async def fetch(self, trajectory_id: str) -> Trajectory | None:
        """The trajectory's metadata read from the bucket (and cached); None for an unknown
        id, a malformed one too (never sent to NATS)."""
        if not TRAJECTORY_ID.fullmatch(trajectory_id):
            return None
        meta, revision = await self.bus.get_json(TRAJECTORIES_BUCKET, trajectory_id)
        if not meta:
            return None
        trajectory = Trajectory(cast(Meta, meta), revision)
        if self.live:
            self.keep(trajectory)
        return trajectory
