"""The submitter's side of the queue (runner/queue/queue.py): `runner eval --queue` publishes
one message per episode and gathers the records as the workers write them into the same run
directory a local run writes; `runner gather RUN_ID` gathers a run again (after
`--detach`, or a submitter that died) and `runner eval --resume RUN_ID` publishes again
only the episodes that are neither done, queued nor held by a worker."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import secrets
import tarfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import nats.errors
from nats.js.errors import NotFoundError, ObjectNotFoundError
from pydantic import JsonValue

from runner.errors import QueueError
from runner.harnesses.harness import harness_factory
from runner.queue.queue import STREAM, Queue, episode_subject, retried
from runner.run.evaluate import (
    HarnessFacts,
    Setup,
    TaskRef,
    episodes,
    run_manifest,
    summarize,
    task_set_hash,
)
from runner.run.prices import Price
from runner.run.prices import cost as prices_cost
from runner.run.request import EvalRequest, check_run_id
from runner.settings import RunnerSettings
from services.core.models.folder import Run, RunFolder
from services.core.models.queue import Entry, RunEntry, RunSpec, episode_key
from services.core.models.run import (
    Record,
)

# Seconds without a landing record after which the watch of the run's keys is made again.
REWATCH_S = 30.0


def new_run_id(harness: str) -> str:
    """Today's run-directory name (the UTC stamp, the harness) and 4 hex: runs of a sweep
    submitted in the same second stay apart."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return check_run_id(f"{stamp}-{harness}-{secrets.token_hex(2)}")


def frozen_today(today: str | None) -> str:
    """The run's today: `--today`, else WPB_TODAY, else the submitter's date, never a
    worker host's clock."""
    return today or RunnerSettings().today or date.today().isoformat()


async def submit(
    queue: Queue,
    run_id: str,
    out_dir: Path,
    refs: list[TaskRef],
    request: EvalRequest,
    prices: dict[str, Price],
) -> RunEntry:
    """Record the run in the bucket of runs, write its manifest.json and publish its
    episodes repeat-major (as a local run starts them), each message built from `request`:
    its plan whole (today frozen here), the agent's settings, the docker backend's limits.
    The pool's consumer caps its episodes in flight at `--max-pending` where given; its cap
    is the manifest's workers."""
    info = await queue.consumer(request.pool, request.max_pending, request.harness)
    plan = request.run_plan().model_copy(
        update={"today": frozen_today(request.today), "workers": info.config.max_ack_pending or 1}
    )
    queued: dict[str, JsonValue] = {
        "servers": list(queue.urls),
        "stream": STREAM,
        "pool": request.pool,
        "build": queue.build,
    }
    # What the harness's agent sees and does; its packages, fonts and browser are each
    # worker's.
    made = harness_factory(request.harness)()
    facts = HarnessFacts(
        observation=made.observation,
        action=made.action,
        backend={"kind": "queue", "queue": queued},
        browser=None,
    )
    agent = request.agent_config()
    manifest = run_manifest(Setup(made, agent, prices), refs, plan, facts)
    spec = RunSpec(
        run_id=run_id,
        harness=request.harness,
        agent=agent,
        plan=plan,
        container_cpus=request.container_cpus,
        container_memory=request.container_memory,
        build=queue.build,
    )
    planned = episodes(refs, plan.repeat)
    run = RunEntry(
        manifest=manifest,
        pool=request.pool,
        build=queue.build,
        keys=[episode_key(run_id, ref.name, number) for ref, number in planned],
        spec=spec,
    )
    await retried(lambda: queue.runs.create(run_id, run.model_dump_json().encode()), "run")
    RunFolder(out_dir).start(manifest)
    await publish(queue, run, {ref.name: ref for ref, _ in planned}, range(len(planned)))
    return run


async def publish(
    queue: Queue,
    run: RunEntry,
    tasks: dict[str, TaskRef],
    numbers: range | list[int],
    again: str = "",
) -> int:
    """Publish the episodes `numbers` of `run`; how many. Their key (with `again`, a
    resume's mark) is their message id: one published again inside the duplicate window is
    dropped, and a resume's is not (the first was lost, yet its id is remembered)."""
    run_id = run.spec.run_id
    count = 0
    for n in numbers:
        task = run.keys[n][len(run_id) + 1 :].rpartition(".r")[0]
        spec = run.episode(n, dict(tasks[task].task))
        subject = episode_subject(run.pool, run.build, run_id, n)
        data = spec.model_dump_json().encode()
        await retried(
            functools.partial(
                queue.js.publish,
                subject,
                data,
                stream=STREAM,
                headers={"Nats-Msg-Id": spec.key + again},
            ),
            f"publish {spec.key}",
        )
        count += 1
    return count


async def resume(queue: Queue, run_id: str, refs: list[TaskRef]) -> int:
    """Publish again the episodes of `run_id` that are neither done, queued nor held by a
    worker (a message still in the stream is one of the last two); how many. The tasks
    must be those the run was submitted with (its task set's hash)."""
    run = await run_of(queue, run_id)
    manifest = run.manifest
    by_name = {ref.name: ref for ref in refs}
    missing = [name for name in manifest.task_names if name not in by_name]
    if missing:
        raise QueueError(f"--resume {run_id}: its tasks {missing[:3]} are not in this checkout")
    if task_set_hash([by_name[n] for n in manifest.task_names]) != manifest.task_set_hash:
        raise QueueError(f"--resume {run_id}: the tasks changed since it was submitted")
    again = []
    for n, key in enumerate(run.keys):
        entry, _ = await queue.entry(key)
        if entry is not None and entry.state == "done":
            continue
        if await queue.queued(episode_subject(run.pool, run.build, run_id, n)):
            continue
        again.append(n)
    return await publish(queue, run, by_name, again, f":resumed-{int(time.time())}")


async def run_of(queue: Queue, run_id: str) -> RunEntry:
    run, _ = await queue.run_entry(check_run_id(run_id))
    if run is None:
        raise QueueError(
            f"run {run_id!r}: the queue has no such run (its bucket {queue.runs._name})"
        )
    return run


def priced(record: Record, prices: dict[str, Price]) -> Record:
    """The record's cost from its usage by the submitter's price table (workers price none)."""
    if not record.usage:
        return record
    cost, is_priced = prices_cost(prices, record.usage)
    return record.model_copy(update={"cost": cost, "priced": is_priced})


async def gather(
    queue: Queue,
    run_id: str,
    out_dir: Path,
    prices: dict[str, Price],
    on_record: Callable[[Record], None],
) -> Run:
    """Write the run's directory from the cluster: manifest.json, each final record as it
    lands (records.jsonl, in the order they land), its episode folder out of the object
    store (then deleted there) and, once every key is done, summary.json."""
    run = await run_of(queue, run_id)
    manifest = run.manifest
    folder = RunFolder(out_dir)
    folder.start(manifest)
    wanted = set(run.keys)
    records: dict[str, Record] = {}
    while len(records) < len(wanted):
        # A watch that went quiet is made again (it reads every entry anew; those seen are
        # skipped): an ordered consumer on a node that died may not come back.
        watcher = await retried(
            lambda: queue.episodes.watch(f"{run_id}.>", inactive_threshold=600), "watch"
        )
        try:
            while len(records) < len(wanted):
                try:
                    update = await watcher.updates(timeout=REWATCH_S)
                except nats.errors.TimeoutError:
                    break
                if update is None or update.value is None or update.key not in wanted:
                    continue
                if update.key in records:
                    continue
                entry = Entry.model_validate_json(update.value)
                if entry.state != "done" or entry.record is None:
                    continue
                record = priced(entry.record, prices)
                if entry.artifact:
                    await fetch_artifact(queue, entry.artifact, folder.episodes)
                records[update.key] = record
                folder.append(record)
                on_record(record)
        finally:
            with contextlib.suppress(Exception):
                await watcher.stop()
    order = {key: i for i, key in enumerate(run.keys)}
    ordered = sorted(records.items(), key=lambda item: order[item[0]])
    names = {name: i for i, name in enumerate(manifest.task_names)}
    result = [record for _, record in ordered]
    result.sort(key=lambda r: (names.get(r.task, len(names)), r.repeat))
    summary = summarize(result)
    folder.finish(summary)
    await complete(queue, run_id)
    return Run(folder.name, manifest, result, summary)


async def complete(queue: Queue, run_id: str) -> None:
    """Mark the run complete in the bucket of runs (a later gather rebuilds it the same)."""
    run, revision = await queue.run_entry(run_id)
    if run is None or run.state == "complete":
        return
    done = run.model_copy(update={"state": "complete"})
    with contextlib.suppress(Exception):
        await queue.runs.update(run_id, done.model_dump_json().encode(), last=revision)


async def fetch_artifact(queue: Queue, name: str, episodes_dir: Path) -> None:
    """Unpack an episode folder out of the object store into `episodes/`, then delete it
    there; one already gathered (gone from the store, its folder here) is left as it is."""
    try:
        found = await retried(lambda: queue.artifacts.get(name), f"get {name}")
    except (ObjectNotFoundError, NotFoundError):
        return
    episodes_dir.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(unpack, found.data or b"", episodes_dir)
    with contextlib.suppress(Exception):
        await queue.artifacts.delete(name)


def unpack(data: bytes, into: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        archive.extractall(into, filter="data")
