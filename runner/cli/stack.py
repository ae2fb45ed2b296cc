"""`runner up`, `down`, `restart`, `status`, `compose-env` and `prometheus`: the embedded
stack on this machine."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from runner.cli.common import console, fail
from runner.hub import HubClient, HubFailed
from runner.run.metrics import PROMETHEUS_PORT, RUNNER_PORT, embedded_config, prometheus_argv
from runner.settings import admin_token, runner_home, service_credential, write_private
from runner.stack.stack import Stack, StackError, restart_recorded, running_stack, stop_recorded
from runner.wait import WaitTimeout, until
from services.core.models.api import StandStatus
from services.core.models.stack import StackFile


def up(
    detach: Annotated[bool, typer.Option("--detach", "-d", help="leave the stack running")] = False,
    today: Annotated[str | None, typer.Option(help="freeze the stand's today (YYYY-MM-DD)")] = None,
) -> None:
    """Start nats-server and every service on this machine, supervised, and print the hub URL.

    A service that dies is started again. With --detach the supervisor runs in the background
    (its log: $WPB_HOME/logs/runner.log) until `runner down`."""
    home = runner_home()
    if running_stack(home):
        fail(f"a stack is already running under {home} (runner status / runner down)")
    started = time.monotonic()
    if detach:
        with console.status("starting nats-server and the services…"):
            hub_url = start_detached(today)
        console.print(f"[green]ready[/green] in {time.monotonic() - started:.1f}s: hub {hub_url}")
        console.print(f"admin token in {home / 'admin-token'}; logs in {home / 'logs'}")
        return
    stack = Stack(home, today=today)
    try:
        with console.status("starting nats-server and the services…"):
            stack.start(detach=True)
    except StackError as exc:
        fail(str(exc))
    console.print(f"[green]ready[/green] in {time.monotonic() - started:.1f}s: hub {stack.hub_url}")
    console.print(f"admin token in {stack.home / 'admin-token'}; logs in {stack.home / 'logs'}")
    console.print("Ctrl-C stops the stack.")
    stopping = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: stopping.set())
    stack.supervise(until=stopping)
    stack.stop()
    console.print("stopped")


def start_detached(today: str | None, timeout: float = 120) -> str:
    """`runner up` (the foreground supervisor) in a session of its own, its output in
    logs/runner.log; its hub URL once the stack is ready."""
    home = runner_home()
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / "runner.log").open("ab") as log:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "runner", "up", *(["--today", today] if today else [])],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def supervised() -> StackFile | None:
        if supervisor.poll() is not None:  # ends the wait: it will not come
            raise StackError("the supervisor exited")
        state = running_stack(home)
        return state if state is not None and state.supervisor is not None else None

    try:
        state = until(supervised, timeout, "the detached stack ready", every=0.2)
    except (WaitTimeout, StackError):
        supervisor.kill()
        tail = (logs / "runner.log").read_text(errors="replace")[-2000:]
        fail(f"the stack did not start; logs/runner.log ends:\n{tail}")
    return state.hub_url


def down() -> None:
    """Stop the detached stack: its supervisor and every service."""
    count = stop_recorded(runner_home())
    console.print(f"stopped {count} processes" if count else "no stack was running")


def restart(
    service: Annotated[str, typer.Argument(help="nats, events, verifier, hub or site-DOMAIN")],
) -> None:
    """Restart one service of the running stack (its supervisor starts it again)."""
    home = runner_home()
    running(home)
    try:
        pid, restarts = restart_recorded(home, service)
    except StackError as exc:
        fail(str(exc))
    console.print(f"[green]restarted[/green] {service} (pid {pid}; {restarts} restarts in all)")


def compose_env(
    new: Annotated[bool, typer.Option("--new", help="a new service credential")] = False,
) -> None:
    """Write $WPB_HOME/compose.env (0600) for `docker compose --env-file`.

    It holds the admin token (this runner's, so `runner eval --hub` needs nothing more) and a
    service credential, kept from the file if there is one (unless --new)."""
    home = runner_home()
    path = home / "compose.env"
    values = {}
    if path.exists():
        values = dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    if new or not values.get("WPB_SERVICE_TOKEN"):
        values["WPB_SERVICE_TOKEN"] = service_credential()
    values["WPB_ADMIN_TOKEN"] = admin_token(home)
    write_private(path, "".join(f"{k}={values[k]}\n" for k in sorted(values)))
    console.print(f"{path}: docker compose --env-file {path} up -d --wait")


def status() -> None:
    """Show the readiness and restarts of every service of the running stack."""
    home = runner_home()
    state = running(home)
    token = admin_token(home)

    async def ask() -> StandStatus:
        async with HubClient.connect(state.hub_url, token, timeout=5) as hub:
            return await hub.status()

    try:
        answer = asyncio.run(ask())
    except HubFailed as exc:
        fail(f"the hub at {state.hub_url}: {exc}")
    for name, item in answer.services.items():
        mark = "[green]ready[/green]" if item.ready else "[red]not ready[/red]"
        count = state.restarts.get(name.replace(":", "-"), 0)
        why = f"  [red]{escape(item.error)}[/red]" if item.error else ""
        console.print(f"{name:16} {mark}  {item.url}  restarts {count}{why}")
    if state.supervisor is None:
        console.print("[yellow]no supervisor[/yellow]: a service that dies stays down")
    if answer.status != "ready":
        raise typer.Exit(1)


def prometheus(
    port: Annotated[int, typer.Option(help="Prometheus's port on 127.0.0.1")] = PROMETHEUS_PORT,
    scrape_interval: Annotated[str, typer.Option(help="e.g. 5s, 1s")] = "5s",
    runner_port: Annotated[
        int, typer.Option(help="where `runner eval --metrics-port` serves")
    ] = RUNNER_PORT,
) -> None:
    """Run Prometheus over the running stack and the runner until Ctrl-C.

    It is Debian's `prometheus`, with deploy/prometheus/prometheus.yml pointed at the stack's
    ports. Start it again after `runner up`: the ports change."""
    home = runner_home()
    running(home)
    try:
        argv = prometheus_argv(home, embedded_config(home, scrape_interval, runner_port), port)
    except StackError as exc:
        fail(str(exc))
    console.print(f"Prometheus at http://127.0.0.1:{port}; config {argv[1].split('=', 1)[1]}")
    console.print(f"evaluate with --metrics-port {runner_port} to add the runner's metrics")
    sys.stdout.flush()
    os.execv(argv[0], argv)


def running(home: Path) -> StackFile:
    """The state of the stack running under `home`; without one the command is refused."""
    state = running_stack(home)
    if state is None:
        fail(f"no stack is running under {home} (runner up --detach)")
    return state
