"""`runner`: start the embedded stack, evaluate harnesses, manage tasks."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Annotated

import httpx
import typer
from rich.console import Console

from runner.stack import Stack, StackError, running_stack, stop_recorded

app = typer.Typer(
    help="WebPageBench: instrumented mock sites, typed events, a verifier.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()


def home() -> Path:
    return Path(os.environ.get("WPB_HOME", ".wpb")).resolve()


def fail(message: str) -> None:
    console.print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)


@app.command()
def up(
    detach: Annotated[bool, typer.Option("--detach", "-d", help="leave the stack running")] = False,
    today: Annotated[str | None, typer.Option(help="freeze the stand's today (YYYY-MM-DD)")] = None,
) -> None:
    """Start nats-server and every service on this machine; print the hub URL."""
    if running_stack(home()):
        fail(f"a stack is already running under {home()} (runner status / runner down)")
    stack = Stack(home(), today=today)
    started = time.monotonic()
    try:
        with console.status("starting nats-server and the services…"):
            stack.start(detach=detach)
    except StackError as exc:
        fail(str(exc))
    console.print(f"[green]ready[/green] in {time.monotonic() - started:.1f}s: hub {stack.hub_url}")
    console.print(f"admin token in {stack.home / 'admin-token'}; logs in {stack.home / 'logs'}")
    if detach:
        return
    console.print("Ctrl-C stops the stack.")
    stopping = False

    def on_signal(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    try:
        while not stopping:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    stack.stop()
    console.print("stopped")


@app.command()
def down() -> None:
    """Stop the detached stack."""
    count = stop_recorded(home())
    console.print(f"stopped {count} processes" if count else "no stack was running")


@app.command()
def status() -> None:
    """Readiness of every service of the running stack."""
    state = running_stack(home())
    if state is None:
        fail(f"no stack is running under {home()} (runner up --detach)")
    answer = httpx.get(f"{state['hub_url']}/api/status", timeout=5).json()
    for name, item in answer["services"].items():
        mark = "[green]ready[/green]" if item["ready"] else "[red]not ready[/red]"
        console.print(f"{name:16} {mark}  {item['url']}")
    if answer["status"] != "ready":
        raise typer.Exit(1)
