"""The work queue of episodes on a NATS JetStream cluster (docs/scaleout.md): its assets, the
subjects that carry a build id, and the key-value buckets that hold each episode's lease and
then its final record, moved only by compare-and-swap, and each run's entry. The messages
and entries themselves are the core's models (services/core/models/queue.py).

`runner worker` (runner/queue/worker.py) takes episodes from it; `runner eval --queue` and
`runner gather` (runner/queue/submit.py) put them there and gather their records.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import nats
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    ConsumerInfo,
    DiscardPolicy,
    KeyValueConfig,
    ObjectStoreConfig,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)
from nats.js.errors import (
    BadRequestError,
    KeyNotFoundError,
    KeyWrongLastSequenceError,
    NotFoundError,
)
from nats.js.kv import KeyValue
from nats.js.object_store import ObjectStore
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from runner.errors import QueueError
from runner.harnesses.environments import package_version
from runner.run.provenance import commit
from services.core.models.queue import Entry, RunEntry
from services.kit.bus import MAX_PINGS_OUT, PING_EVERY_S, RECONNECT_WAIT_S

log = logging.getLogger("wpb.queue")

STREAM = "WPB_EPISODES"
SUBJECT = "wpb.episodes"
RUNS_BUCKET = "wpb_runs"
EPISODES_BUCKET = "wpb_episodes"
ARTIFACTS_BUCKET = "wpb_artifacts"
# A publish again of an episode (a retried one, `--resume`'s) inside this window is dropped.
DUPLICATE_WINDOW_S = 3600.0
DAY_S = 86400.0
# The queue's one client user on a cluster made by `runner nats-cluster` (deploy/nats-cluster.conf).
QUEUE_USER = "wpb-queue"
# How long a JetStream call waits for its answer (a leader election takes 4-9 s).
API_TIMEOUT_S = 10.0
# How long the first connection to the queue may take, every server tried.
CONNECT_S = 15.0


class Fenced(RuntimeError):
    """A compare-and-swap on an episode's entry lost: another worker holds its lease, or it
    is done. The loser writes nothing more for it."""


class QueueSettings(BaseSettings):
    """`WPB_QUEUE_*`: the queue's credentials and timings (the tests shorten them)."""

    model_config = SettingsConfigDict(env_prefix="WPB_QUEUE_", env_file=".env", extra="ignore")

    user: str | None = None
    password: str | None = None
    # Copies of each stream and bucket; None: 3 on a clustered server, 1 on a single one.
    replicas: int | None = Field(default=None, ge=1, le=5)
    # Seconds a delivered episode stays its worker's without a heartbeat (a new pool's).
    ack_wait_s: float = Field(default=60.0, gt=0)
    # Seconds between a worker's heartbeats; None: a quarter of the pool's ack wait.
    beat_s: float | None = Field(default=None, gt=0)
    # Deliveries that run an episode; one more ends it as an unscored infra_error record.
    deliveries: int = Field(default=3, ge=1, le=20)
    # The build workers and submitters agree on; None: the version and the git commit's.
    build: str | None = None
    # The object store's quota for episode folders not yet gathered (None: what the nodes'
    # JetStream storage holds; each node must have room for all of it).
    artifact_bytes: int | None = Field(default=None, gt=0)
    # How long a free slot's pull waits for an episode before it asks again.
    fetch_s: float = Field(default=5.0, gt=0)


def build_id(settings: QueueSettings | None = None) -> str:
    """The first 8 hex of sha256(version + the checkout's commit): workers of another code
    version bind to another consumer and never take this build's episodes (WPB_QUEUE_BUILD
    overrides)."""
    settings = settings or QueueSettings()
    if settings.build:
        return settings.build
    return hashlib.sha256(f"{package_version()}+{commit()}".encode()).hexdigest()[:8]


def run_subjects(pool: str, build: str, run_id: str) -> str:
    """Every episode subject of a run (a filter)."""
    return f"{SUBJECT}.{pool}.{build}.{run_id}.*"


def episode_subject(pool: str, build: str, run_id: str, n: int) -> str:
    """An episode's own subject: whether it is still queued is a look-up of its last
    message."""
    return f"{SUBJECT}.{pool}.{build}.{run_id}.{n}"


def consumer_name(pool: str, build: str) -> str:
    """The pool's durable pull consumer for one build: a worker binds to its own build's."""
    return f"pool_{pool}_{build}"


T = TypeVar("T")


# JetStream's "no suitable peers for placement": a cluster whose nodes have not all joined
# its meta group yet (starting, or one starting again); they join within seconds.
NO_PEERS = 10005


def placement_refused(exc: Exception) -> bool:
    return isinstance(exc, nats.js.errors.BadRequestError) and exc.err_code == NO_PEERS


async def retried(call: Callable[[], Awaitable[T]], what: str, attempts: int = 6) -> T:
    """`call()` again after a NATS timeout, a lost connection (a leader election, a node
    that went away) or a placement refused for want of peers (a cluster still forming), with
    backoff; the last failure propagates."""
    for attempt in range(attempts):
        try:
            return await call()
        except nats.js.errors.BadRequestError as exc:
            if not placement_refused(exc) or attempt == attempts - 1:
                raise
            log.warning("%s: %s; again", what, exc.description)
            await asyncio.sleep(min(0.5 * 2**attempt, 5))
        except (
            nats.errors.TimeoutError,
            nats.errors.ConnectionClosedError,
            nats.js.errors.ServiceUnavailableError,  # no leader yet: an election
            # No stream answers a publish while its node is gone and no leader is elected.
            nats.js.errors.NoStreamResponseError,
            nats.errors.NoRespondersError,
            TimeoutError,
        ) as exc:
            if attempt == attempts - 1:
                raise
            log.warning("%s: %s; again", what, type(exc).__name__)
            await asyncio.sleep(min(0.5 * 2**attempt, 5))
    raise AssertionError("unreachable")


class Queue:
    """One connection to the queue's cluster, with its streams and buckets."""

    def __init__(self, urls: list[str], name: str, settings: QueueSettings | None = None):
        self.urls = urls
        self.name = name
        self.settings = settings or QueueSettings()
        self.build = build_id(self.settings)
        self.nc: Client | None = None
        self._js: JetStreamContext | None = None
        self._episodes: KeyValue | None = None
        self._runs: KeyValue | None = None
        self._artifacts: ObjectStore | None = None

    @property
    def js(self) -> JetStreamContext:
        assert self._js is not None, "Queue.connect() first"
        return self._js

    @property
    def episodes(self) -> KeyValue:
        assert self._episodes is not None
        return self._episodes

    @property
    def runs(self) -> KeyValue:
        assert self._runs is not None
        return self._runs

    @property
    def artifacts(self) -> ObjectStore:
        assert self._artifacts is not None
        return self._artifacts

    async def connect(self) -> Queue:
        """Connect to any of the servers (nats-py learns the others from the cluster) and
        make the streams and buckets that are missing; QueueError when none answers."""
        where = ", ".join(self.urls)
        credentials: dict[str, Any] = {}
        if self.settings.user:
            credentials = {"user": self.settings.user, "password": self.settings.password or ""}
        try:
            # nats-py tries the servers again without end when reconnects are unlimited:
            # the first connection has a deadline of its own.
            self.nc = await asyncio.wait_for(self._connect(credentials), CONNECT_S)
        except (nats.errors.NoServersError, OSError, TimeoutError) as exc:
            why = str(exc) or type(exc).__name__
            raise QueueError(f"--queue: no NATS server answers at {where} ({why})") from None
        except nats.errors.Error as exc:  # authorization refused, among others
            raise QueueError(f"--queue: {where} refused the connection: {exc}") from None
        self._js = self.nc.jetstream(timeout=API_TIMEOUT_S)
        try:
            await retried(self._ensure_layout, "the queue's streams")
        except nats.errors.Error as exc:
            await self.close()
            raise QueueError(f"--queue: {where} has no JetStream that answers ({exc})") from None
        return self

    async def _connect(self, credentials: dict[str, Any]) -> Client:
        return await nats.connect(
            servers=self.urls,
            name=self.name,
            max_reconnect_attempts=-1,
            reconnect_time_wait=RECONNECT_WAIT_S,
            ping_interval=PING_EVERY_S,
            max_outstanding_pings=MAX_PINGS_OUT,
            connect_timeout=3,
            allow_reconnect=True,
            error_cb=self._error,
            **credentials,
        )

    async def _error(self, error: Exception) -> None:
        log.warning("queue connection: %s: %s", type(error).__name__, error)

    @property
    def replicas(self) -> int:
        """The replicas setting, else 3 where the server is one of a cluster."""
        if self.settings.replicas is not None:
            return self.settings.replicas
        info = getattr(self.nc, "_server_info", {}) or {}
        return 3 if info.get("cluster") else 1

    async def _ensure_layout(self) -> None:
        """The stream of episodes (work-queue retention: a message goes once a worker acks
        it; `discard=new`: a full stream refuses new work instead of deleting queued work;
        no age limit), the bucket of episodes, the bucket of runs and the object store of
        episode folders, every one at `replicas` copies from the start (a work queue
        scaled from one copy to three later stops removing what was acked, nats-server
        #3953)."""
        replicas = self.replicas
        config = StreamConfig(
            name=STREAM,
            subjects=[f"{SUBJECT}.>"],
            retention=RetentionPolicy.WORK_QUEUE,
            discard=DiscardPolicy.NEW,
            storage=StorageType.FILE,
            num_replicas=replicas,
            duplicate_window=DUPLICATE_WINDOW_S,
            max_age=0,
        )
        try:
            await self.js.add_stream(config)
        except BadRequestError as exc:  # there already (another made it), unless refused
            if placement_refused(exc):
                raise
        self._episodes = await self._bucket(EPISODES_BUCKET, 30 * DAY_S, replicas)
        self._runs = await self._bucket(RUNS_BUCKET, 30 * DAY_S, replicas)
        try:
            self._artifacts = await self.js.object_store(ARTIFACTS_BUCKET)
        except NotFoundError:
            self._artifacts = await self.js.create_object_store(
                ARTIFACTS_BUCKET,
                ObjectStoreConfig(
                    ttl=7 * DAY_S,
                    storage=StorageType.FILE,
                    replicas=replicas,
                    max_bytes=self.settings.artifact_bytes or -1,
                ),
            )

    async def _bucket(self, name: str, ttl: float, replicas: int) -> KeyValue:
        try:
            return await self.js.key_value(name)
        except NotFoundError:
            return await self.js.create_key_value(
                KeyValueConfig(
                    bucket=name,
                    history=1,
                    ttl=ttl,
                    storage=StorageType.FILE,
                    replicas=replicas,
                    # Reads go to the leader: a follower may answer a read of a lease
                    # stale (docs/scaleout.md, "Why the leader answers").
                    direct=False,
                )
            )

    async def close(self) -> None:
        if self.nc is not None and not self.nc.is_closed:
            await self.nc.close()

    # -- the pool's consumer ---------------------------------------------------------

    async def consumer(
        self, pool: str, max_pending: int | None = None, harness: str | None = None
    ) -> ConsumerInfo:
        """The pool's consumer for this build, made where missing (with WPB_QUEUE_ACK_WAIT_S
        and one delivery more than WPB_QUEUE_DELIVERIES); `max_pending` caps the episodes
        it has out across all its workers at once, and `harness` is added to those the
        pool's workers must have (its metadata)."""
        name = consumer_name(pool, self.build)
        try:
            info = await self.js.consumer_info(STREAM, name)
        except NotFoundError:
            config = ConsumerConfig(
                durable_name=name,
                filter_subject=f"{SUBJECT}.{pool}.{self.build}.>",
                ack_policy=AckPolicy.EXPLICIT,
                ack_wait=self.settings.ack_wait_s,
                max_deliver=self.settings.deliveries + 1,
                max_ack_pending=max_pending or 1000,
                metadata={"harnesses": harness or ""},
            )
            try:
                return await self.js.add_consumer(STREAM, config)
            except BadRequestError:  # made meanwhile by another
                info = await self.js.consumer_info(STREAM, name)
        config = info.config
        wanted = set(pool_harnesses(info))
        if harness:
            wanted.add(harness)
        changed: dict[str, Any] = {}
        if max_pending and config.max_ack_pending != max_pending:
            changed["max_ack_pending"] = max_pending
        if wanted != set(pool_harnesses(info)):
            changed["metadata"] = {**(config.metadata or {}), "harnesses": ",".join(sorted(wanted))}
        if not changed:
            return info
        return await self.js.add_consumer(STREAM, config.evolve(**changed))  # an update

    # -- episode entries -------------------------------------------------------------

    async def keys_of(self, run_id: str) -> list[str]:
        """The run's episode keys in the bucket (none yet: []), as the server lists the
        bucket stream's subjects (nats-py's keys() ends its watch early now and then; no
        episode key is ever deleted)."""
        prefix = f"$KV.{EPISODES_BUCKET}."
        info = await retried(
            lambda: self.js.stream_info(
                f"KV_{EPISODES_BUCKET}", subjects_filter=f"{prefix}{run_id}.>"
            ),
            f"list the episodes of {run_id}",
        )
        return sorted(subject[len(prefix) :] for subject in info.state.subjects or {})

    async def entry(self, key: str) -> tuple[Entry | None, int]:
        """An episode's entry and its revision; (None, 0) when it has none."""
        try:
            found = await retried(lambda: self.episodes.get(key), f"get {key}")
        except KeyNotFoundError:
            return None, 0
        if found.value is None:
            return None, int(found.revision or 0)
        return Entry.model_validate_json(found.value), int(found.revision or 0)

    async def swap(self, key: str, entry: Entry, last: int) -> int:
        """Write `entry` only if the key's revision is still `last` (0: it has none); its
        new revision. Fenced when another writer moved it first. A write whose answer was
        lost (a leader election) and that was applied all the same is told by its write
        id, read back."""
        data = entry.model_dump_json().encode()

        async def write() -> int:
            if last == 0:
                return await self.episodes.create(key, data)
            return await self.episodes.update(key, data, last=last)

        try:
            return await retried(write, f"write {key}")
        except KeyWrongLastSequenceError:
            current, revision = await self.entry(key)
            if current is not None and current.write_id == entry.write_id:
                return revision
            holder = f"{current.state} by {current.worker}" if current else "gone"
            raise Fenced(f"{key} was moved meanwhile ({holder})") from None

    async def run_entry(self, run_id: str) -> tuple[RunEntry | None, int]:
        try:
            found = await retried(lambda: self.runs.get(run_id), f"get run {run_id}")
        except KeyNotFoundError:
            return None, 0
        if found.value is None:
            return None, 0
        return RunEntry.model_validate_json(found.value), int(found.revision or 0)

    async def queued(self, subject: str) -> bool:
        """Whether an episode's message is still in the stream: queued, or delivered and not
        yet acknowledged (a worker holds it)."""
        try:
            await retried(lambda: self.js.get_last_msg(STREAM, subject), f"look up {subject}")
        except NotFoundError:
            return False
        return True


def pool_harnesses(info: ConsumerInfo) -> list[str]:
    """The harnesses the runs submitted to a pool use (its consumer's metadata)."""
    text = (info.config.metadata or {}).get("harnesses", "")
    return [name for name in text.split(",") if name]
