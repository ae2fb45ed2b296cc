"""The work queue (issue 28, docs/scaleout.md) on a 3-node nats-server cluster on this host,
with `runner worker` processes on one embedded stand and episodes of the `sleep` harness
(tests/queue_harnesses.py, declared as a plug-in): episodes a minute at 1, 2 and 3 workers
against the ideal (workers × 60 / episode seconds), dispatch and gather latency, the
redelivery after a worker is killed against the ack wait, the pause after the consumer's
leader node is killed, duplicate and lost keys (both must be 0), and each nats-server's
memory and CPU.

    .venv/bin/python -m bench.queue [--workers 1,2,3] [--episode-s 3] [--per-worker 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.table import Table

from bench.common import console, fresh_stack, percentile
from runner.harnesses.harness import ENTRY_POINT_GROUP
from runner.queue.nats_cluster import NatsCluster
from runner.queue.queue import STREAM, Queue, consumer_name
from runner.queue.submit import gather, new_run_id, submit
from runner.run.evaluate import select_tasks
from runner.run.request import EvalRequest
from runner.settings import REPO, TASKS_DIR
from runner.stack.stack import Stack
from runner.wait import WaitTimeout, until
from services.core.models.queue import Entry

ACK_WAIT_S = 10.0
BEAT_S = 2.0
TESTS = REPO / "tests"
HARNESSES = {"sleep": "queue_harnesses:SleepHarness"}


@contextlib.contextmanager
def sleep_harness(folder: Path) -> Iterator[None]:
    """The tests' `sleep` harness declared as their plug-in is (tests/support/stand.py)."""
    sys.path.insert(0, str(TESTS))
    from support.stand import plugins

    folder.mkdir(parents=True, exist_ok=True)
    with plugins(folder, ENTRY_POINT_GROUP, HARNESSES, "wpbbenchharnesses"):
        yield


class Bench:
    def __init__(self, cluster: NatsCluster, stack: Stack, home: Path, episode_s: float):
        self.cluster, self.stack, self.home, self.episode_s = cluster, stack, home, episode_s
        self.env = {
            **os.environ,
            **cluster.env(),
            "WPB_QUEUE_URLS": cluster.urls,
            "WPB_QUEUE_ACK_WAIT_S": str(ACK_WAIT_S),
            "WPB_QUEUE_BEAT_S": str(BEAT_S),
            "WPB_QUEUE_FETCH_S": "2",
            "WPB_ADMIN_TOKEN": stack.token,
            "WPB_HOME": str(home),
        }
        os.environ.update({k: v for k, v in self.env.items() if k.startswith("WPB_QUEUE_")})
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.keys: Counter[str] = Counter()
        self.expected: set[str] = set()

    def start_worker(self, name: str, pool: str) -> None:
        log = (self.home / f"{name}.log").open("ab")
        self.workers[name] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "runner",
                "worker",
                "--pool",
                pool,
                "--hub",
                self.stack.hub_url,
                "--name",
                name,
            ],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        said = self.home / f"{name}.log"
        try:
            until(lambda: "slot(s) on pool" in said.read_text(errors="replace"), 60, name)
        except WaitTimeout:
            told = said.read_text(errors="replace")[-2000:]
            raise WaitTimeout(f"worker {name}, whose log ends: {told}", 60) from None

    def stop_workers(self) -> None:
        for process in self.workers.values():
            process.terminate()
        for process in self.workers.values():
            process.wait(30)
        self.workers.clear()

    async def run(self, pool: str, episodes: int, during: Any = None) -> dict[str, Any]:
        """Submit `episodes` one-repeat episodes to `pool`, gather them; the timings."""
        queue = await Queue(self.cluster.urls.split(","), "bench").connect()
        try:
            refs = select_tasks(TASKS_DIR, None, episodes)
            run_id = new_run_id("sleep")
            landed: dict[tuple[str, int], float] = {}
            started = time.time()
            request = EvalRequest.model_validate(
                {
                    "harness": "sleep",
                    "option": [f"sleep_s={self.episode_s}"],
                    "time_limit": 60,
                    "today": "2026-11-29",
                    "queue": self.cluster.urls,
                    "pool": pool,
                }
            )
            out = self.home / "runs" / run_id
            await submit(queue, run_id, out, refs, request, {})
            watcher = asyncio.create_task(during(queue, run_id)) if during else None

            def seen(record: Any) -> None:
                landed[record.task, record.repeat] = time.time()

            result = await gather(queue, run_id, out, {}, seen)
            elapsed = time.time() - started
            extra = await watcher if watcher else None
            final = {}
            for key in await queue.keys_of(run_id):
                entry, _ = await queue.entry(key)
                if entry is not None:
                    final[key] = entry
        finally:
            await queue.close()
        for record in result.records:
            self.keys[f"{run_id}.{record.task}.r{record.repeat}"] += 1
        self.expected |= {f"{run_id}.{ref.name}.r1" for ref in refs}
        dispatch = sorted(e.started_at - started for e in final.values())[: len(self.workers)]
        gathered = [
            landed[e.record.task, e.record.repeat] - e.beat_at
            for e in final.values()
            if e.record is not None and (e.record.task, e.record.repeat) in landed
        ]
        return {
            "elapsed": elapsed,
            "dispatch": dispatch,
            "gather": gathered,
            "entries": final,
            "extra": extra,
        }


def usage(pids: list[int]) -> dict[int, tuple[float, float]]:
    """Each process's RSS (MB) and CPU seconds so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") / 1e6
            out[pid] = (rss, (int(fields[11]) + int(fields[12])) / ticks)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.queue")
    parser.add_argument("--workers", default="1,2,3")
    parser.add_argument("--episode-s", type=float, default=3.0)
    parser.add_argument("--per-worker", type=int, default=20, help="episodes per worker")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    shm = Path("/dev/shm")
    store = Path(tempfile.mkdtemp(prefix="wpb-bench-queue-", dir=shm if shm.is_dir() else None))
    with (
        tempfile.TemporaryDirectory(prefix="wpb-bench-queue-") as scratch,
        sleep_harness(Path(scratch) / "plugins"),
        fresh_stack() as stack,
    ):
        cluster = NatsCluster(Path(scratch) / "cluster").start(3, store)
        home = Path(scratch) / "home"
        home.mkdir()
        bench = Bench(cluster, stack, home, args.episode_s)
        pids = [node.pid for node in cluster.nodes if node.pid]
        before, clock = usage(pids), time.monotonic()
        try:
            rows = throughput(bench, counts, args.per_worker)
            redelivery = killed_worker(bench)
            pause = killed_leader(bench)
        finally:
            bench.stop_workers()
            after, spent = usage(pids), time.monotonic() - clock
            cluster.stop()
            shutil.rmtree(store, ignore_errors=True)
    report(bench, rows, redelivery, pause, before, after, spent, args.episode_s)


def throughput(bench: Bench, counts: list[int], per_worker: int) -> list[list[str]]:
    rows = []
    dispatch: list[float] = []
    gathered: list[float] = []
    for count in counts:
        pool = f"w{count}"
        for i in range(count):
            bench.start_worker(f"{pool}-{i}", pool)
        episodes = per_worker * count
        timed = asyncio.run(bench.run(pool, episodes))
        bench.stop_workers()
        rate = episodes * 60 / timed["elapsed"]
        ideal = count * 60 / bench.episode_s
        rows.append(
            [str(count), str(episodes), f"{rate:.1f}", f"{ideal:.1f}", f"{rate / ideal:.2f}"]
        )
        dispatch += timed["dispatch"]
        gathered += timed["gather"]
    bench.latency = (dispatch, gathered)  # type: ignore[attr-defined]
    return rows


def killed_worker(bench: Bench) -> tuple[float, float]:
    """SIGKILL a worker holding an episode: seconds until its next delivery's lease."""
    for i in range(3):
        bench.start_worker(f"kill-{i}", "kill")

    async def kill(queue: Queue, run_id: str) -> float:
        while True:
            for key in await queue.keys_of(run_id):
                entry, _ = await queue.entry(key)
                if entry and entry.state == "running" and entry.trajectory_id:
                    os.kill(int(entry.worker.split("/")[1]), signal.SIGKILL)
                    killed = time.time()
                    while True:
                        again, _ = await queue.entry(key)
                        if again and again.delivery == 2:
                            return again.started_at - killed
                        await asyncio.sleep(0.05)
            await asyncio.sleep(0.1)

    timed = asyncio.run(bench.run("kill", 9, kill))
    bench.stop_workers()
    return timed["extra"], ACK_WAIT_S


def killed_leader(bench: Bench) -> float:
    """SIGKILL the node leading the pool's consumer mid-run: seconds from the kill to the
    first episode entry written after it."""
    for i in range(3):
        bench.start_worker(f"lead-{i}", "lead")

    async def kill(queue: Queue, run_id: str) -> float:
        while len(await _done(queue, run_id)) < 3:
            await asyncio.sleep(0.2)
        info = await queue.js.consumer_info(STREAM, consumer_name("lead", queue.build))
        leader = info.cluster.leader  # type: ignore[union-attr]
        bench.cluster.kill(leader)
        killed = time.time()
        probe = Entry(state="released", delivery=0, worker="bench")
        while True:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    queue.episodes.put(f"{run_id}probe", probe.model_dump_json().encode()), 1
                )
                pause = time.time() - killed
                break
            await asyncio.sleep(0.05)
        await asyncio.to_thread(bench.cluster.restart, leader)
        return pause

    timed = asyncio.run(bench.run("lead", 30, kill))
    bench.stop_workers()
    return timed["extra"]


async def _done(queue: Queue, run_id: str) -> list[str]:
    done = []
    for key in await queue.keys_of(run_id):
        entry, _ = await queue.entry(key)
        if entry is not None and entry.state == "done":
            done.append(key)
    return done


def report(bench, rows, redelivery, pause, before, after, spent, episode_s) -> None:  # type: ignore[no-untyped-def]
    out = Table(title=f"The work queue: {episode_s:.0f}-second episodes, 3 nats-server nodes")
    for column in ("workers", "episodes", "episodes/min", "ideal", "efficiency"):
        out.add_column(column)
    for row in rows:
        out.add_row(*row)
    console.print(out)
    dispatch, gathered = bench.latency
    ms = lambda values, q: f"{percentile(values, q) * 1000:.0f}"  # noqa: E731
    console.print(
        f"dispatch (publish → lease, idle workers): p50 {ms(dispatch, 50)} ms, p95 {ms(dispatch, 95)} ms"  # noqa: E501
    )
    console.print(
        f"gather (record written → records.jsonl): p50 {ms(gathered, 50)} ms, p95 {ms(gathered, 95)} ms"  # noqa: E501
    )
    seconds, ack_wait = redelivery
    console.print(
        f"redelivery after a worker SIGKILL: {seconds:.1f} s (ack wait {ack_wait:.0f} s, heartbeat {BEAT_S:.0f} s)"  # noqa: E501
    )
    console.print(
        f"pause after the consumer's leader node SIGKILL: {pause:.1f} s to the first write"
    )
    duplicates = sum(1 for n in bench.keys.values() if n > 1)
    lost = len(bench.expected - set(bench.keys))
    console.print(f"duplicate keys: {duplicates}   lost keys: {lost}")
    for pid, (rss, cpu) in after.items():
        used = cpu - before.get(pid, (0, 0))[1]
        console.print(
            f"nats-server {pid}: RSS {rss:.0f} MB, CPU {100 * used / spent:.1f}% over {spent:.0f} s"
        )


if __name__ == "__main__":
    main()
