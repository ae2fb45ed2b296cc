"""`runner`: start the embedded stack, evaluate harnesses, manage tasks."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Annotated, NoReturn

import httpx
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from runner.evaluate import evaluate, select_tasks
from runner.harness import get_harness
from runner.report import print_run
from runner.settings import RunnerSettings
from runner.stack import TASKS_DIR, Stack, StackError, admin_token, running_stack, stop_recorded

app = typer.Typer(
    help="WebPageBench: instrumented mock sites, typed events, a verifier.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
if not console.is_terminal:  # CI logs and pipes: wide enough for the task names
    console = Console(width=140)


def home() -> Path:
    return RunnerSettings().home.resolve()


def fail(message: str) -> NoReturn:
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


@app.command("eval")
def eval_(
    harness: Annotated[str, typer.Option(help="harness name: oracle, noop, or a plug-in")],
    model: Annotated[str | None, typer.Option(help="model name passed to the harness")] = None,
    tasks: Annotated[str | None, typer.Option(help="comma-separated sites, names or globs")] = None,
    max_tasks: Annotated[int | None, typer.Option(min=1, help="at most this many tasks")] = None,
    workers: Annotated[int, typer.Option(min=1, max=32, help="tasks run at once")] = 1,
    time_limit: Annotated[float, typer.Option(min=1, help="seconds per task")] = 180,
    today: Annotated[str | None, typer.Option(help="stand's today for an ephemeral stack")] = None,
) -> None:
    """Run a harness on tasks; write $WPB_HOME/runs/<UTC timestamp>-<harness>/ and print a table."""
    try:
        chosen = get_harness(harness)
    except KeyError as exc:
        fail(str(exc.args[0]))
    refs = select_tasks(TASKS_DIR, tasks, max_tasks)
    if not refs:
        fail(f"no task matches {tasks!r} under {TASKS_DIR}")
    state = running_stack(home())
    stack = None
    if state is None:
        stack = Stack(home(), today=today)
        with console.status("no stack running: starting one for this evaluation…"):
            try:
                stack.start()
            except StackError as exc:
                fail(str(exc))
        hub_url = stack.hub_url
    else:
        hub_url = state["hub_url"]
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out_dir = home() / "runs" / f"{stamp}-{harness}"
    try:
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        ) as progress:
            bar = progress.add_task(f"{harness} on {len(refs)} tasks", total=len(refs))
            result = asyncio.run(
                evaluate(
                    hub_url,
                    admin_token(home()),
                    chosen,
                    refs,
                    out_dir,
                    workers,
                    time_limit,
                    model,
                    lambda _: progress.advance(bar),
                    today,
                )
            )
    finally:
        if stack is not None:
            stack.stop()
    print_run(console, result, out_dir)
