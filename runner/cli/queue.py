"""The queue's commands (docs/scaleout.md): `runner worker` takes episodes from a pool,
`runner eval --queue` submits a run to it (its part here: `eval_on_queue`), `runner gather`
writes a submitted run's directory, `runner nats-cluster` runs a cluster on this host."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from pathlib import Path
from typing import Annotated

import typer

from runner.cli.common import (
    AgentsNetworkOption,
    App,
    BackendOption,
    HubOption,
    JsonOption,
    PoolOption,
    Stopped,
    WideOption,
    console,
    fail,
    recording,
    show_run,
    stand,
    stoppable,
)
from runner.errors import QueueError
from runner.harnesses.containers import DockerBackend
from runner.harnesses.placement import Backend, Placement
from runner.hub import HubAddress
from runner.queue.nats_cluster import ClusterError, NatsCluster
from runner.queue.queue import Queue
from runner.queue.submit import gather, new_run_id, resume, run_of, submit
from runner.queue.worker import Seat, Worker, WorkerRefused, default_name
from runner.run.evaluate import TaskRef
from runner.run.prices import Price, PriceError, load_prices
from runner.run.request import EvalRequest, check_pool, servers
from runner.settings import runner_home
from services.core.models.folder import Run

QueueOption = Annotated[
    str,
    typer.Option(
        "--queue",
        envvar="WPB_QUEUE_URLS",
        help="the queue's NATS servers: nats://n1:4222,nats://n2:4222,nats://n3:4222",
    ),
]


def worker(
    queue: QueueOption,
    pool: PoolOption = "default",
    slots: Annotated[int, typer.Option(min=1, max=64, help="episodes at once")] = 1,
    backend: BackendOption = Backend.local,
    hub: HubOption = None,
    name: Annotated[
        str | None,
        typer.Option(help="this worker's name, the same at each restart (default: the host's)"),
    ] = None,
    agents_network: AgentsNetworkOption = DockerBackend.network,
) -> None:
    """Take episodes from a pool of the queue and run them on this host's stand until SIGTERM.

    Each runs as `runner eval` runs one. What the worker holds at SIGTERM goes back to the
    queue."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    try:
        urls = servers(queue)
        check_pool(pool)
    except QueueError as exc:
        fail(str(exc))
    if backend is Backend.docker and hub is None:
        fail("--backend docker: --hub, the compose stand's hub on this host, is needed")
    seat = Seat(pool, slots, name or default_name())
    placement = Placement(backend, DockerBackend(network=agents_network))

    async def serve(address: HubAddress) -> None:
        queue_ = await Queue(urls, f"worker {seat.name}").connect()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        try:
            await Worker(queue_, seat, address, runner_home(), placement).run(stop)
        finally:
            await queue_.close()

    with stand(hub, None, "this worker") as address:
        try:
            asyncio.run(serve(address))
        except (QueueError, WorkerRefused) as exc:
            fail(str(exc))


def gather_(
    run_id: Annotated[str, typer.Argument(help="the run id `runner eval --queue` printed")],
    queue: QueueOption,
    prices: Annotated[
        Path | None, typer.Option(help="price table (TOML); default $WPB_HOME/prices.toml")
    ] = None,
    wide: WideOption = False,
    json_: JsonOption = False,
) -> None:
    """Write a queued run's directory ($WPB_HOME/runs/RUN_ID/) from the cluster and print it.

    It waits for the episodes not yet done. The tables fit the terminal (--wide: every
    column); --json prints summary.json instead."""
    table = price_table(prices)
    try:
        urls = servers(queue)
    except QueueError as exc:
        fail(str(exc))

    async def work() -> tuple[Run, Path]:
        queue_ = await Queue(urls, "gather").connect()
        try:
            out_dir = runner_home() / "runs" / run_id
            return await gathered(queue_, run_id, out_dir, table), out_dir
        finally:
            await queue_.close()

    result, out_dir = run_stopped(work())
    show_run(result, out_dir, wide, json_)


def price_table(path: Path | None) -> dict[str, Price]:
    try:
        return load_prices(path or runner_home() / "prices.toml")
    except PriceError as exc:
        fail(f"--prices: {exc}")


async def gathered(
    queue: Queue,
    run_id: str,
    out_dir: Path,
    prices: dict[str, Price],
    port: int | None = None,
) -> Run:
    """`gather` with the progress bar of a local run (and its metrics on `port`)."""
    run = await run_of(queue, run_id)
    manifest = run.manifest
    with recording(
        manifest.harness, manifest.model, manifest.tasks, len(run.keys), prices, port
    ) as seen:
        return await gather(queue, run_id, out_dir, prices, seen)


def run_stopped(work):  # type: ignore[no-untyped-def]
    """Run `work`; a QueueError is refused, a signal stops it as `runner eval` stops."""
    try:
        return asyncio.run(stoppable(work))
    except QueueError as exc:
        fail(str(exc))
    except Stopped as exc:
        console.print(
            f"[red]stopped by {exc}[/red]: the episodes go on on the workers; "
            "`runner gather RUN_ID` writes the run's directory"
        )
        raise typer.Exit(exc.exit_code) from None


def eval_on_queue(
    request: EvalRequest, refs: list[TaskRef], prices: dict[str, Price]
) -> tuple[Run, Path] | None:
    """`runner eval --queue`: submit (or `--resume`) and gather, returning the run and its
    directory; or with `--detach` print the run id and return None."""
    assert request.queue is not None
    try:
        urls = servers(request.queue)
    except QueueError as exc:
        fail(str(exc))
    home = runner_home()

    async def work() -> tuple[str, Run | None]:
        queue = await Queue(urls, "submitter").connect()
        try:
            if request.resume:
                run_id = request.resume
                entry = await run_of(queue, run_id)
                if entry.manifest.harness != request.harness:
                    raise QueueError(
                        f"--resume {run_id}: the run's harness is "
                        f"{entry.manifest.harness!r}, not {request.harness!r}"
                    )
                again = await resume(queue, run_id, refs)
                console.print(f"{run_id}: {again} episode(s) published again")
            else:
                run_id = new_run_id(request.harness)
                entry = await submit(queue, run_id, home / "runs" / run_id, refs, request, prices)
                console.print(f"{run_id}: {len(entry.keys)} episode(s) on pool {request.pool}")
            if request.detach:
                return run_id, None
            out_dir = home / "runs" / run_id
            return run_id, await gathered(queue, run_id, out_dir, prices, request.metrics_port)
        finally:
            await queue.close()

    run_id, result = run_stopped(work())
    if result is None:
        print(run_id)
        return None
    return result, home / "runs" / run_id


# -- the cluster on one host -----------------------------------------------------------

cluster_app = App(help="The queue's NATS cluster on this host, for trying it out.")


def cluster_folder() -> Path:
    return runner_home() / "nats-cluster"


@cluster_app.command("up")
def cluster_up(
    nodes: Annotated[int, typer.Option(min=1, max=5, help="nats-server nodes")] = 3,
) -> None:
    """Start N nats-server nodes with routes and JetStream on loopback; print the --queue
    URLs and the variables workers and submitters need."""
    folder = cluster_folder()
    if NatsCluster.running(folder) is not None:
        fail(f"a cluster runs already ({folder}); `runner nats-cluster down` first")
    try:
        cluster = NatsCluster(folder).start(nodes)
    except ClusterError as exc:
        fail(str(exc))
    console.print(f"{nodes} node(s) up; logs and stores under {folder}")
    console.print(f"export WPB_QUEUE_URLS={cluster.urls}")
    console.print(f"export WPB_QUEUE_USER={cluster.env()['WPB_QUEUE_USER']}")
    console.print(f"export WPB_QUEUE_PASSWORD=$(jq -r .password {cluster.state_file})")


@cluster_app.command("down")
def cluster_down() -> None:
    """Stop the cluster `up` started (its stores stay)."""
    cluster = NatsCluster.running(cluster_folder())
    if cluster is None:
        fail("no cluster runs here")
    with contextlib.suppress(OSError):
        cluster.stop()
    console.print("cluster stopped")


__all__ = ["cluster_app", "eval_on_queue", "gather_", "worker"]
