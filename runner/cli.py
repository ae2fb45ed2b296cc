"""`runner`: start the embedded stack, evaluate harnesses, manage tasks."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from datetime import date
from pathlib import Path
from typing import Annotated, NoReturn

import httpx
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from runner.evaluate import evaluate, select_tasks
from runner.harness import get_harness
from runner.report import print_run
from runner.settings import RunnerSettings
from runner.stack import TASKS_DIR, Stack, StackError, admin_token, running_stack, stop_recorded
from runner.tasks import build as build_variants
from runner.tasks import counts, shown_prompt, validate_paths
from services.kit.tasks import TaskError, find_task, task_files

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


tasks_app = typer.Typer(
    help="The task suite: build variants, validate, list, show.", no_args_is_help=True
)
app.add_typer(tasks_app, name="tasks")


@tasks_app.command("build")
def tasks_build(
    check: Annotated[bool, typer.Option(help="only check the committed files are current")] = False,
) -> None:
    """Write tasks/variants/ from tasks/variants.toml (or --check that they are current)."""
    try:
        wanted = build_variants(TASKS_DIR, write=not check)
    except TaskError as exc:
        fail(str(exc))
    if check:
        present = set(task_files(TASKS_DIR / "variants"))
        stale = [
            p
            for p, text in wanted.items()
            if not p.exists() or p.read_text(encoding="utf-8") != text
        ]
        extra = present - set(wanted)
        if stale or extra:
            fail(
                f"variants are not current ({len(stale)} differ, {len(extra)} extra): "
                "run `runner tasks build`"
            )
    total = len(task_files(TASKS_DIR))
    console.print(f"{len(wanted)} variants; {total} tasks in all")


@tasks_app.command("validate")
def tasks_validate(
    paths: Annotated[list[Path] | None, typer.Argument(help="files or folders")] = None,
) -> None:
    """Check task files: schema, screens, events and parameters, catalog ids, variants, dates."""
    report = validate_paths(paths or [TASKS_DIR])
    bad = {path: problems for path, problems in report.items() if problems}
    for path, problems in bad.items():
        for problem in problems:
            console.print(f"[red]✗[/red] {path}: {problem}", soft_wrap=True)
    console.print(f"{len(report) - len(bad)} of {len(report)} task files valid")
    if bad or not report:
        raise typer.Exit(1)


@tasks_app.command("list")
def tasks_list() -> None:
    """Counts by site, UI class (primary and all), canonical versus variant."""
    tally = counts(TASKS_DIR)
    table = Table(title=f"{sum(tally['kind'].values())} tasks")
    table.add_column("facet")
    table.add_column("group")
    table.add_column("tasks", justify="right")
    for facet, label in (
        ("kind", "kind"),
        ("site", "site"),
        ("primary", "UI primary"),
        ("class", "UI class (any)"),
    ):
        for group, n in sorted(tally[facet].items()):
            table.add_row(label, group, str(n))
    console.print(table)


@tasks_app.command("show")
def tasks_show(
    name: Annotated[str, typer.Argument(help="task file stem")],
    today: Annotated[str | None, typer.Option(help="the stand's today, YYYY-MM-DD")] = None,
) -> None:
    """Print a task's prompt as an agent would receive it today (dates shifted)."""
    path = find_task(TASKS_DIR, name)
    if path is None:
        fail(f"no task named {name!r} under {TASKS_DIR}")
    try:
        day = date.fromisoformat(today) if today else RunnerSettings().today_date()
    except ValueError:
        fail("--today: expected YYYY-MM-DD")
    task = json.loads(path.read_text(encoding="utf-8"))
    prompt, shift = shown_prompt(task, day, "http://127.0.0.1:8000/t/<trajectory>/")
    data = task["test_data"]
    console.print(
        f"[bold]{name}[/bold] · {data.get('bench_first_domain')} · "
        f"{(data.get('ui_taxonomy') or {}).get('primary', '?')} · "
        f"profile {data.get('ui_variant_profile', 'canonical')} · "
        f"dates shifted {shift} days (today {day})"
    )
    console.print(prompt, soft_wrap=True)
