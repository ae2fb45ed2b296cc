"""`runner worker`: slots that take episodes from a pool of the queue (runner/queue/queue.py)
and run each as `runner eval` runs an attempt (`run_with_retries`, runner/run/evaluate.py)
on this host's stand.

Per episode: the lease is taken by compare-and-swap on its key (a new one, or a dead
holder's taken over, its trajectory listed as lost); while it runs, a heartbeat tells the
server it is in progress and moves the lease on, again by compare-and-swap. A heartbeat or
the final write that loses its swap means another worker took the episode over: this one is
fenced (its agent killed, its trajectory closed, nothing written, no ack). The final record
is written, and a copy of the episode folder put into the object store, before the ack; the
folder stays in this host's runs, where its stand's pages show it. docs/scaleout.md tells the
whole protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import io
import json
import logging
import os
import signal
import socket
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import nats.errors
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from pydantic import ValidationError

from runner.errors import InfraError, ModelRefused
from runner.harnesses.placement import Placement
from runner.hub import HubAddress, HubFailed, HubRefused
from runner.queue.queue import (
    STREAM,
    SUBJECT,
    Fenced,
    Queue,
    consumer_name,
    pool_harnesses,
    retried,
)
from runner.run.evaluate import RunContext, Setup, Stand, TaskRef, run_context, run_with_retries
from services.core.errors import FieldError, field_path
from services.core.models.folder import RunFolder
from services.core.models.queue import Entry, EpisodeSpec
from services.core.models.run import LostAttempt, Record, Status
from services.core.tasks import check_task

log = logging.getLogger("wpb.worker")

# Every process an episode starts inherits it: the next incarnation of the worker finds
# and ends those its predecessor left (a harness strips WPB_* from an agent's environment).
WORKER_ENV = "WEBPAGEBENCH_WORKER"
# After an infrastructure failure of every attempt, the episode goes back to the queue for
# another host after this many seconds.
HAND_ON_DELAY_S = 5.0


class WorkerRefused(RuntimeError):
    """The worker cannot join the pool (a harness it lacks, a second worker of its name)."""


@dataclass
class Taken:
    """A message this worker took, leased or not: its spec, the queue's entry for its key (None
    before any) and that entry's revision."""

    msg: Msg
    spec: EpisodeSpec
    entry: Entry | None
    revision: int

    @property
    def delivery(self) -> int:
        delivered: int = self.msg.metadata.num_delivered
        return delivered


@dataclass
class Holding:
    """The episode a slot holds: its message, its lease's last revision and entry."""

    msg: Msg
    spec: EpisodeSpec
    entry: Entry
    revision: int
    trajectory_id: str | None = None
    fenced: str | None = None


@dataclass(frozen=True)
class Seat:
    """A worker's place in the queue: the pool it takes from, its episodes at once, and its
    name on this host (the same at each restart)."""

    pool: str
    slots: int
    name: str


class Worker:
    """A worker of a pool: `seat.slots` episodes at once on the stand at `hub`, its runs'
    folders under `home`, its harnesses placed by `placement`."""

    def __init__(
        self, queue: Queue, seat: Seat, hub: HubAddress, home: Path, placement: Placement
    ) -> None:
        self.queue = queue
        self.pool = seat.pool
        self.slots = seat.slots
        self.name = seat.name
        self.placement = placement
        self.stand = Stand(hub.connect())
        self.folder = home / "worker" / seat.name
        # Where its episodes go: the runs' folder of this host's stand, whose viewer reads
        # them there as it reads a local run's (`runs/<run id>/episodes/<trajectory>/`).
        self.runs = home / "runs"
        self.contexts: dict[str, RunContext] = {}
        self.context_lock = asyncio.Lock()
        self.cleanup = contextlib.AsyncExitStack()
        self.held: dict[int, Holding] = {}
        self.beat_s = 1.0
        self.deliveries = queue.settings.deliveries
        self.refused: str | None = None
        self.done = 0
        self.fenced = 0
        self._lock: IO[str] | None = None

    def label(self, slot: int) -> str:
        return f"{self.name}/{os.getpid()}/{slot}"

    # -- joining ---------------------------------------------------------------------

    def claim(self) -> None:
        """One worker of a name on a host: its lock file, held while it runs."""
        self.folder.mkdir(parents=True, exist_ok=True)
        handle = (self.folder / "lock").open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise WorkerRefused(
                f"a worker named {self.name!r} already runs on this host ({self.folder}); "
                "give this one another --name"
            ) from None
        self._lock = handle

    async def sweep(self) -> None:
        """End what a previous incarnation of this worker left: the processes its episodes
        started (Chromium, agents: they run in sessions of their own and outlive a killed
        worker), the containers of its trajectories, the trajectories it left open."""
        os.environ[WORKER_ENV] = self.name
        killed = kill_left_processes(self.name)
        if killed:
            log.info("sweep: ended %d process(es) a previous worker %s left", killed, self.name)
        for slot_file in sorted(self.folder.glob("slot-*.json")):
            try:
                left = json.loads(slot_file.read_text())
            except (OSError, ValueError):
                left = {}
            tid = left.get("trajectory_id")
            if tid:
                remove_containers(tid)
                with contextlib.suppress(HubRefused, HubFailed):
                    await self.stand.hub.close_trajectory(tid, False, "")
                    log.info("sweep: closed trajectory %s (%s)", tid, left.get("key"))
            slot_file.unlink(missing_ok=True)

    async def join(self) -> None:
        """Bind to the pool's consumer (made where missing); refuse a pool whose runs use a
        harness this host cannot run, naming it."""
        info = await self.queue.consumer(self.pool)
        for harness in pool_harnesses(info):
            why = self.placement.missing(harness)
            if why:
                raise WorkerRefused(f"pool {self.pool!r} runs harness {harness!r}: {why}")
        ack_wait = float(info.config.ack_wait or 60)
        configured = self.queue.settings.beat_s
        self.beat_s = min(configured or ack_wait / 4, ack_wait / 4)
        self.deliveries = int(info.config.max_deliver or self.deliveries + 1) - 1
        await self.warn_other_builds()

    async def warn_other_builds(self) -> None:
        """Say where the pool holds episodes of other builds only (their workers take them)."""
        prefix = f"{SUBJECT}.{self.pool}."
        with contextlib.suppress(nats.errors.Error):
            info = await self.queue.js.stream_info(STREAM, subjects_filter=f"{prefix}>")
            builds = {
                subject[len(prefix) :].split(".", 1)[0] for subject in info.state.subjects or {}
            }
            others = sorted(builds - {self.queue.build})
            if others and self.queue.build not in builds:
                log.warning(
                    "pool %s holds episodes of build(s) %s only; this worker is build %s "
                    "and takes none of them (run the same code version)",
                    self.pool,
                    ", ".join(others),
                    self.queue.build,
                )

    # -- the slots -------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Serve until `stop` is set (SIGTERM, SIGINT) or the pool is refused; what a slot
        holds then is handed back to the queue."""
        self.claim()
        await self.sweep()
        await self.join()
        log.info(
            "worker %s: %d slot(s) on pool %s, build %s, heartbeat every %.1fs",
            self.name,
            self.slots,
            self.pool,
            self.queue.build,
            self.beat_s,
        )
        async with self.cleanup:
            self.cleanup.push_async_callback(self.stand.hub.close)
            slots = [asyncio.create_task(self.slot(i)) for i in range(self.slots)]
            stopping = asyncio.create_task(stop.wait())
            await asyncio.wait([stopping, *slots], return_when=asyncio.FIRST_COMPLETED)
            for task in slots:
                task.cancel()
            results = await asyncio.gather(*slots, return_exceptions=True)
            stopping.cancel()
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                raise result
        if self.refused:
            raise WorkerRefused(self.refused)

    async def slot(self, slot: int) -> None:
        """Pull one episode when free (no prefetch), run it, and again."""
        durable = consumer_name(self.pool, self.queue.build)
        js: JetStreamContext = self.queue.js
        sub = await js.pull_subscribe_bind(durable=durable, stream=STREAM)
        try:
            while self.refused is None:
                try:
                    msgs = await sub.fetch(1, timeout=self.queue.settings.fetch_s)
                except (nats.errors.TimeoutError, TimeoutError):
                    continue
                except nats.errors.Error as exc:  # the cluster is electing, reconnecting
                    log.warning("slot %d: fetch: %s", slot, exc)
                    await asyncio.sleep(1)
                    continue
                for msg in msgs:
                    try:
                        await self.episode(slot, msg)
                    except (nats.errors.Error, TimeoutError) as exc:  # cut off past the retries
                        log.warning(
                            "slot %d: %s: %s; the queue redelivers it after its ack wait",
                            slot,
                            msg.subject,
                            type(exc).__name__,
                        )
        finally:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

    async def episode(self, slot: int, msg: Msg) -> None:
        delivery = msg.metadata.num_delivered
        try:
            spec = EpisodeSpec.model_validate_json(msg.data)
        except ValidationError as exc:
            await self.unparseable(msg, exc)
            return
        entry, revision = await self.queue.entry(spec.key)
        if entry is not None and entry.state == "done":  # a redelivery of a scored episode
            await self.ack(msg)
            return
        lost = carried_losses(entry, self.queue.settings.ack_wait_s)
        if delivery > self.deliveries:  # it ended every worker that ran it: poison
            record = unscored(
                spec,
                Status.INFRA_ERROR,
                f"no result after {self.deliveries} deliveries",
                lost,
            )
            await self.final(Taken(msg, spec, entry, revision), record)
            return
        why = self.placement.missing(spec.harness)
        if why:
            self.refused = f"pool {self.pool!r} runs harness {spec.harness!r}: {why}"
            await msg.nak()
            return
        try:
            check_task(spec.task, "task")
        except FieldError as exc:
            record = unscored(spec, Status.TASK_ERROR, f"{exc.field}: {exc.message}", lost)
            await self.final(Taken(msg, spec, entry, revision), record, terminate=True)
            return
        lease = Entry(state="running", delivery=delivery, worker=self.label(slot), lost=lost)
        try:
            revision = await self.queue.swap(spec.key, lease, revision)
        except Fenced:  # another worker took it meanwhile: its delivery, not ours
            return
        held = Holding(msg, spec, lease, revision)
        self.held[slot] = held
        try:
            await self.hold(slot, held)
        finally:
            self.held.pop(slot, None)
            (self.folder / f"slot-{slot}.json").unlink(missing_ok=True)

    async def hold(self, slot: int, held: Holding) -> None:
        """Run the held episode with its heartbeat; write its record, or hand it back."""
        spec = held.spec
        run = await self.context(spec)

        async def created(tid: str) -> None:
            held.trajectory_id = tid
            (self.folder / f"slot-{slot}.json").write_text(
                json.dumps({"key": spec.key, "trajectory_id": tid})
            )

        ref = TaskRef(spec.task_id, Path(f"{spec.task_id}.json"), spec.task)  # type: ignore[arg-type]
        attempt = asyncio.create_task(
            run_with_retries(dataclasses.replace(run, on_created=created), ref)
        )
        beat = asyncio.create_task(self.beat(held, attempt))
        try:
            record = await attempt
        except asyncio.CancelledError:
            if held.fenced is None:  # stopped (SIGTERM): hand it back
                await self.close_open(held)
                await self.hand_back(held, "the worker was stopped")
                raise
            record = None
        except ModelRefused as exc:
            record = ref.record(status=Status.INFRA_ERROR, error=f"model refused: {exc}")
        except Exception as exc:  # the runner's own failure on this host: another host may do
            log.exception("slot %d: %s", slot, spec.key)
            await self.close_open(held)
            await self.hand_back(held, f"{type(exc).__name__}: {exc}", HAND_ON_DELAY_S)
            return
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        if held.fenced is not None or record is None:
            await self.close_open(held)
            self.fenced += 1
            log.warning("slot %d: fenced on %s (%s): nothing written", slot, spec.key, held.fenced)
            return
        record = record.model_copy(
            update={
                "repeat": spec.repeat,
                "attempts": len(held.entry.lost) + record.attempts,
                "infra_errors": [*held.entry.lost, *record.infra_errors],
            }
        )
        if record.status == Status.INFRA_ERROR and held.entry.delivery < self.deliveries:
            # Every attempt here failed on infrastructure: this host's, maybe; another's next.
            await self.hand_back(held, record.error or "infra_error", HAND_ON_DELAY_S, record)
            return
        await self.final(Taken(held.msg, spec, held.entry, held.revision), record, run)

    async def beat(self, held: Holding, attempt: asyncio.Task[Record]) -> None:
        """Tell the server the episode is in progress and move the lease on, every beat;
        a lost swap fences the episode (its attempt is cancelled: agent and browser end)."""
        while True:
            await asyncio.sleep(self.beat_s)
            try:
                await held.msg.in_progress()
                moved = held.entry.moved(
                    beat=held.entry.beat + 1, beat_at=time.time(), trajectory_id=held.trajectory_id
                )
                held.revision = await self.queue.swap(held.spec.key, moved, held.revision)
                held.entry = moved
            except Fenced as exc:
                held.fenced = str(exc)
                attempt.cancel()
                return
            except (nats.errors.Error, TimeoutError) as exc:  # cut off: the next beat tries again
                log.warning("heartbeat of %s: %s", held.spec.key, type(exc).__name__)

    async def context(self, spec: EpisodeSpec) -> RunContext:
        """What the episodes of one run share on this worker (made at its first episode)."""
        async with self.context_lock:
            run = self.contexts.get(spec.run_id)
            if run is None:
                harness = self.placement.harness(
                    spec.harness, spec.container_cpus, spec.container_memory
                )
                run = await self.cleanup.enter_async_context(
                    run_context(
                        self.stand,
                        Setup(harness, spec.agent),
                        RunFolder(self.runs / spec.run_id),
                        spec.plan,
                        spec.plan.today,
                    )
                )
                self.contexts[spec.run_id] = run
            return run

    # -- writing ---------------------------------------------------------------------

    async def final(
        self, taken: Taken, record: Record, run: RunContext | None = None, terminate: bool = False
    ) -> None:
        """Put a copy of the episode folder into the object store (for the submitter; the
        folder stays where this host's stand shows it), write the final record by swap, and
        only then acknowledge (or terminate) the message. A lost swap writes nothing."""
        msg, spec, entry = taken.msg, taken.spec, taken.entry
        folder = run.folder.episode(record.trajectory_id) if run and record.trajectory_id else None
        artifact = None
        if folder is not None and folder.is_dir():
            artifact = f"{spec.run_id}/{record.trajectory_id}.tar.gz"
            data = await asyncio.to_thread(packed, folder)
            await retried(lambda: self.queue.artifacts.put(artifact, data), f"put {artifact}")
        done = Entry(
            state="done",
            delivery=taken.delivery,
            worker=f"{self.name}/{os.getpid()}",
            trajectory_id=record.trajectory_id,
            lost=entry.lost if entry else [],
            record=record,
            artifact=artifact,
            started_at=entry.started_at if entry and entry.state == "running" else time.time(),
        )
        try:
            await self.queue.swap(spec.key, done, taken.revision)
        except Fenced as exc:
            self.fenced += 1
            log.warning("%s: fenced at its final write (%s): nothing written", spec.key, exc)
            if artifact:
                with contextlib.suppress(Exception):
                    await self.queue.artifacts.delete(artifact)
            return
        self.done += 1
        if terminate:
            await retried(msg.term, f"terminate {spec.key}")
        else:
            await self.ack(msg)

    async def ack(self, msg: Msg) -> None:
        """Acknowledge, waiting for the server's answer (a lost one: the redelivery finds
        the key done and is acknowledged then)."""
        with contextlib.suppress(nats.errors.Error, TimeoutError):
            await retried(lambda: msg.ack_sync(timeout=API_ACK_S), "ack")

    async def hand_back(
        self, held: Holding, why: str, delay: float | None = None, record: Record | None = None
    ) -> None:
        """Give the episode back to the queue at once (a nak): its lease released, this
        delivery's trajectories listed as lost, for whichever worker takes it next."""
        lost = list(record.infra_errors) if record is not None else [*held.entry.lost]
        if record is None and held.trajectory_id:
            lost.append(LostAttempt(trajectory_id=held.trajectory_id, error=f"handed back: {why}"))
        released = held.entry.moved(state="released", lost=lost, trajectory_id=None)
        try:
            await self.queue.swap(held.spec.key, released, held.revision)
        except Fenced:
            return  # another worker has it already
        except (nats.errors.Error, TimeoutError):
            log.warning(
                "%s: lease not released; the queue redelivers it after its ack wait", held.spec.key
            )
            return
        with contextlib.suppress(nats.errors.Error, TimeoutError):
            await held.msg.nak(delay=delay)
        log.info("%s handed back (%s)", held.spec.key, why)

    async def close_open(self, held: Holding) -> None:
        """Close the trajectory of an episode that will write nothing (already closed: so be it)."""
        if held.trajectory_id:
            with contextlib.suppress(HubRefused, HubFailed, InfraError):
                await self.stand.hub.close_trajectory(held.trajectory_id, False, "")

    async def unparseable(self, msg: Msg, error: ValidationError) -> None:
        """A message no worker can read: an unscored task_error record where its run names
        its key, and the message terminated (never delivered again)."""
        first = error.errors()[0]
        why = f"the episode's message: {field_path(first['loc']) or 'the message'}: {first['msg']}"
        parts = msg.subject.split(".")
        run_id, n = parts[-2], parts[-1]
        run, _ = await self.queue.run_entry(run_id)
        if run is not None and n.isdigit() and int(n) < len(run.keys):
            key = run.keys[int(n)]
            task, _, repeat = key[len(run_id) + 1 :].rpartition(".r")
            entry, revision = await self.queue.entry(key)
            if entry is None or entry.state != "done":
                record = Record(task=task, repeat=int(repeat), status=Status.TASK_ERROR, error=why)
                done = Entry(
                    state="done",
                    delivery=msg.metadata.num_delivered,
                    worker=self.name,
                    record=record,
                )
                with contextlib.suppress(Fenced):
                    await self.queue.swap(key, done, revision)
        log.error("%s: %s; terminated", msg.subject, why)
        await retried(msg.term, f"terminate {msg.subject}")


API_ACK_S = 5.0


def carried_losses(entry: Entry | None, ack_wait: float) -> list[LostAttempt]:
    """The attempts lost before this delivery: those the entry lists, and where a worker
    still held the lease (it stopped beating: killed, stalled, cut off), its trajectory."""
    if entry is None:
        return []
    lost = list(entry.lost)
    if entry.state == "running":
        lost.append(
            LostAttempt(
                trajectory_id=entry.trajectory_id,
                error=f"worker {entry.worker} lost delivery {entry.delivery}: "
                f"no heartbeat within the ack wait ({ack_wait:.0f}s)",
            )
        )
    return lost


def unscored(spec: EpisodeSpec, status: Status, error: str, lost: list[LostAttempt]) -> Record:
    """An unscored final record of an episode no attempt ran to its end."""
    ref = TaskRef(spec.task_id, Path(f"{spec.task_id}.json"), spec.task)  # type: ignore[arg-type]
    try:
        record = ref.record(status=status, error=error)
    except (KeyError, TypeError, AttributeError, ValueError, FieldError):  # a task we cannot read
        record = Record(task=spec.task_id, status=status, error=error)
    return record.model_copy(
        update={"repeat": spec.repeat, "attempts": max(1, len(lost)), "infra_errors": lost}
    )


def packed(folder: Path) -> bytes:
    """An episode folder as a gzipped tar, its files under the folder's own name."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=folder.name)
    return buffer.getvalue()


def kill_left_processes(name: str) -> int:
    """Kill every process of this user that a worker of `name` started (its environment
    says so), except this one: what a killed incarnation left. Linux's /proc."""
    marker = f"{WORKER_ENV}={name}".encode()
    killed = 0
    for proc in Path("/proc").glob("[0-9]*"):
        pid = int(proc.name)
        if pid == os.getpid():
            continue
        try:
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if marker in environ.split(b"\0"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


def remove_containers(trajectory_id: str) -> None:
    """Remove the docker backend's containers of a trajectory, where an engine answers."""
    from runner.harnesses.containers import LABEL

    try:
        import docker

        client = docker.from_env()
    except Exception:  # no engine here: the local backend left no containers
        return
    try:
        for container in client.containers.list(
            all=True, filters={"label": f"{LABEL}={trajectory_id}"}
        ):
            with contextlib.suppress(Exception):
                container.remove(force=True)
    finally:
        client.close()


def default_name() -> str:
    return socket.gethostname().split(".")[0] or "worker"


__all__ = ["Worker", "WorkerRefused", "default_name"]
