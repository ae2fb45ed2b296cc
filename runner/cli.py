"""`runner`: start the embedded stack, evaluate harnesses, manage tasks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn

import httpx
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from runner import containers
from runner.agents.gui_families import FAMILIES as GUI_FAMILIES
from runner.containers import DockerBackend
from runner.environments import ENVIRONMENTS, HarnessEnvError
from runner.evaluate import StandNotReady, TaskRef, evaluate, select_tasks
from runner.harness import AgentConfig, Harness, available, get_harness
from runner.harnesses.oracle.ui import PATHS as ORACLE_PATHS
from runner.metrics import (
    PROMETHEUS_PORT,
    RUNNER_PORT,
    RunMetrics,
    embedded_config,
    prometheus_argv,
    serving,
)
from runner.prices import Price, PriceError, load_prices
from runner.report import print_run
from runner.settings import (
    TASKS_DIR,
    RunnerSettings,
    admin_token,
    runner_home,
    service_credential,
    write_private,
)
from runner.stack import Stack, StackError, restart_recorded, running_stack, stop_recorded
from runner.tasks import build as build_variants
from runner.tasks import counts, shown_prompt, validate_paths
from runner.wait import WaitTimeout, until
from services.core.errors import FieldError
from services.core.tasks import find_task, task_files

app = typer.Typer(
    help="WebPageBench: instrumented mock sites, typed events, a verifier.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
if not console.is_terminal:  # CI logs and pipes: wide enough for the task names
    console = Console(width=140)


class Backend(StrEnum):
    """Where `runner eval` runs an agent harness's episodes (docs/harnesses.md)."""

    local = "local"
    docker = "docker"


def fail(message: str) -> NoReturn:
    """The message as it is (no markup, no `:emoji:` codes: `site:books:` stays text)."""
    console.print(f"[red]error:[/red] {escape(message)}", emoji=False)
    raise typer.Exit(2)


@app.command()
def up(
    detach: Annotated[bool, typer.Option("--detach", "-d", help="leave the stack running")] = False,
    today: Annotated[str | None, typer.Option(help="freeze the stand's today (YYYY-MM-DD)")] = None,
) -> None:
    """Start nats-server and every service on this machine, supervised (a service that dies
    is started again); print the hub URL. With --detach the supervisor runs in the
    background (its log: $WPB_HOME/logs/runner.log) until `runner down`."""
    if running_stack(runner_home()):
        fail(f"a stack is already running under {runner_home()} (runner status / runner down)")
    started = time.monotonic()
    if detach:
        with console.status("starting nats-server and the services…"):
            hub_url = start_detached(today)
        console.print(f"[green]ready[/green] in {time.monotonic() - started:.1f}s: hub {hub_url}")
        console.print(
            f"admin token in {runner_home() / 'admin-token'}; logs in {runner_home() / 'logs'}"
        )
        return
    stack = Stack(runner_home(), today=today)
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
    logs = runner_home() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / "runner.log").open("ab") as log:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "runner", "up", *(["--today", today] if today else [])],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def supervised() -> dict[str, Any] | None:
        if supervisor.poll() is not None:  # ends the wait: it will not come
            raise StackError("the supervisor exited")
        state = running_stack(runner_home())
        return state if state is not None and state.get("supervisor") is not None else None

    try:
        state = until(supervised, timeout, "the detached stack ready", every=0.2)
    except (WaitTimeout, StackError):
        supervisor.kill()
        tail = (logs / "runner.log").read_text(errors="replace")[-2000:]
        fail(f"the stack did not start; logs/runner.log ends:\n{tail}")
    return str(state["hub_url"])


@app.command()
def down() -> None:
    """Stop the detached stack: its supervisor and every service."""
    count = stop_recorded(runner_home())
    console.print(f"stopped {count} processes" if count else "no stack was running")


@app.command()
def restart(
    service: Annotated[str, typer.Argument(help="nats, events, verifier, hub or site-DOMAIN")],
) -> None:
    """Restart one service of the running stack (its supervisor starts it again)."""
    if running_stack(runner_home()) is None:
        fail(f"no stack is running under {runner_home()} (runner up --detach)")
    try:
        pid, restarts = restart_recorded(runner_home(), service)
    except StackError as exc:
        fail(str(exc))
    console.print(f"[green]restarted[/green] {service} (pid {pid}; {restarts} restarts in all)")


@app.command("compose-env")
def compose_env(
    new: Annotated[bool, typer.Option("--new", help="a new service credential")] = False,
) -> None:
    """Write $WPB_HOME/compose.env (0600) for `docker compose --env-file`: the admin token
    (this runner's, so `runner eval --hub` needs nothing more) and a service credential,
    kept from the file if there is one (unless --new)."""
    path = runner_home() / "compose.env"
    values = {}
    if path.exists():
        values = dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    if new or not values.get("WPB_SERVICE_TOKEN"):
        values["WPB_SERVICE_TOKEN"] = service_credential()
    values["WPB_ADMIN_TOKEN"] = admin_token(runner_home())
    write_private(path, "".join(f"{k}={values[k]}\n" for k in sorted(values)))
    console.print(f"{path}: docker compose --env-file {path} up -d --wait")


@app.command()
def status() -> None:
    """Readiness and restarts of every service of the running stack."""
    state = running_stack(runner_home())
    if state is None:
        fail(f"no stack is running under {runner_home()} (runner up --detach)")
    token = admin_token(runner_home())
    answer = httpx.get(
        f"{state['hub_url']}/api/status", headers={"Authorization": f"Bearer {token}"}, timeout=5
    ).json()
    restarts = {n: p.get("restarts", 0) for n, p in state["processes"].items()}
    for name, item in answer["services"].items():
        mark = "[green]ready[/green]" if item["ready"] else "[red]not ready[/red]"
        count = restarts.get(name.replace(":", "-"), 0)
        why = f"  [red]{escape(item['error'])}[/red]" if item.get("error") else ""
        console.print(f"{name:16} {mark}  {item['url']}  restarts {count}{why}")
    if state.get("supervisor") is None:
        console.print("[yellow]no supervisor[/yellow]: a service that dies stays down")
    if answer["status"] != "ready":
        raise typer.Exit(1)


@app.command()
def prometheus(
    port: Annotated[int, typer.Option(help="Prometheus's port on 127.0.0.1")] = PROMETHEUS_PORT,
    scrape_interval: Annotated[str, typer.Option(help="e.g. 5s, 1s")] = "5s",
    runner_port: Annotated[
        int, typer.Option(help="where `runner eval --metrics-port` serves")
    ] = RUNNER_PORT,
) -> None:
    """Prometheus (Debian's `prometheus`) scraping the running stack and the runner, with
    deploy/prometheus/prometheus.yml pointed at the stack's ports; until Ctrl-C. Start it
    again after `runner up`: the ports change."""
    if running_stack(runner_home()) is None:
        fail(f"no stack is running under {runner_home()} (runner up --detach)")
    try:
        argv = prometheus_argv(
            runner_home(), embedded_config(runner_home(), scrape_interval, runner_port), port
        )
    except StackError as exc:
        fail(str(exc))
    console.print(f"Prometheus at http://127.0.0.1:{port}; config {argv[1].split('=', 1)[1]}")
    console.print(f"evaluate with --metrics-port {runner_port} to add the runner's metrics")
    sys.stdout.flush()
    os.execv(argv[0], argv)


@app.command("eval")
def eval_(
    harness: Annotated[
        str,
        typer.Option(help="oracle, noop, browser-use, openhands, dom, gui, external, or a plug-in"),
    ],
    model: Annotated[str | None, typer.Option(help="the model's name at --base-url")] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8001/v1"),
    ] = None,
    api_key_env: Annotated[
        str, typer.Option(help="the NAME of the variable holding the API key (never the key)")
    ] = "OPENAI_API_KEY",
    temperature: Annotated[float, typer.Option(min=0, max=2)] = 0.0,
    max_steps: Annotated[int, typer.Option(min=1, help="agent steps per task")] = 30,
    family: Annotated[
        str | None, typer.Option(help="gui: uitars, qwen3vl, opencua or fara")
    ] = None,
    page_geometry: Annotated[
        bool, typer.Option(help="gui: send element boxes with each request (for the test model)")
    ] = False,
    option: Annotated[
        list[str] | None,
        typer.Option(help="a harness option KEY=VALUE (JSON value or text), repeatable"),
    ] = None,
    agent_cmd: Annotated[
        str | None, typer.Option(help="external: the agent's command (gets INPUT.json)")
    ] = None,
    prices: Annotated[
        Path | None, typer.Option(help="price table (TOML); default $WPB_HOME/prices.toml")
    ] = None,
    tasks: Annotated[str | None, typer.Option(help="comma-separated sites, names or globs")] = None,
    max_tasks: Annotated[int | None, typer.Option(min=1, help="at most this many tasks")] = None,
    workers: Annotated[int, typer.Option(min=1, max=32, help="tasks run at once")] = 1,
    time_limit: Annotated[float, typer.Option(min=1, help="seconds per task")] = 180,
    repeat: Annotated[
        int, typer.Option(min=1, max=100, help="attempts per task (for pass@k and pass^k)")
    ] = 1,
    today: Annotated[str | None, typer.Option(help="stand's today for an ephemeral stack")] = None,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=65535,
            help=f"serve the runner's metrics here during the run ({RUNNER_PORT} is where"
            " Prometheus looks); default $WPB_METRICS_PORT, else off",
        ),
    ] = None,
    hub: Annotated[
        str | None,
        typer.Option(help="a running stand's hub, e.g. compose's http://127.0.0.1:8000"),
    ] = None,
    backend: Annotated[
        Backend,
        typer.Option(
            help="agent harnesses: local (a process and the runner's Chromium) or docker "
            "(a browser and an agent container per episode on --hub's agents network)"
        ),
    ] = Backend.local,
    agents_network: Annotated[
        str, typer.Option(help="docker: the compose stand's agents network")
    ] = DockerBackend.network,
    container_cpus: Annotated[
        float, typer.Option(min=0.1, help="docker: CPUs of each container")
    ] = DockerBackend.cpus,
    container_memory: Annotated[
        str, typer.Option(help="docker: memory of each container (Docker's units: 2g)")
    ] = DockerBackend.memory,
) -> None:
    """Run a harness on tasks; write $WPB_HOME/runs/<UTC timestamp>-<harness>/ and print a table.
    Without --hub: on the embedded stack that runs, or on one started for the run."""
    if backend is Backend.docker:
        if hub is None:
            fail("--backend docker: --hub, the compose stand's hub, is needed (make stand)")
        settings = DockerBackend(
            network=agents_network, cpus=container_cpus, memory=container_memory
        )
        why = containers.missing(settings, harness)
        if why:
            fail(f"--backend docker: {why}")
        chosen: Harness = containers.ContainerAgentHarness(harness, settings)
    else:
        try:
            chosen = get_harness(harness)
        except KeyError as exc:
            fail(str(exc.args[0]))
    agent = agent_config(
        harness,
        model,
        base_url,
        api_key_env,
        temperature,
        max_steps,
        family,
        page_geometry,
        option or [],
        agent_cmd,
    )
    try:
        price_table = load_prices(prices or runner_home() / "prices.toml")
    except PriceError as exc:
        fail(f"--prices: {exc}")
    if prices is not None and not prices.exists():
        fail(f"--prices: no file {prices}")
    refs = select_tasks(TASKS_DIR, tasks, max_tasks)
    if not refs:
        fail(f"no task matches {tasks!r} under {TASKS_DIR}")
    result, out_dir, _ = run_on_stack(
        chosen,
        refs,
        workers,
        time_limit,
        today,
        agent=agent,
        prices=price_table,
        metrics_port=metrics_port or RunnerSettings().metrics_port,
        hub=hub,
        repeat=repeat,
    )
    print_run(console, result, out_dir)


def run_on_stack(
    harness: Harness,
    refs: list[TaskRef],
    workers: int,
    time_limit: float,
    today: str | None,
    agent: AgentConfig | None = None,
    prices: dict[str, Price] | None = None,
    then: Callable[[str, str, dict[str, Any]], Any] | None = None,
    metrics_port: int | None = None,
    hub: str | None = None,
    repeat: int = 1,
) -> tuple[dict[str, Any], Path, Any]:
    """Evaluate on the stand at `hub` (one this runner did not start: compose's), on the
    running embedded stack, or on one started for it and stopped after, with a progress bar
    and, with `metrics_port`, the runner's metrics served there; `then(hub_url, token,
    result)` runs while the stack is still up. Returns the result, the run directory and
    what `then` returned."""
    state = running_stack(runner_home()) if hub is None else {"hub_url": hub_answering(hub)}
    stack = None
    if state is None:
        stack = Stack(runner_home(), today=today)
        with console.status("no stack running: starting one for this run…"):
            try:
                stack.start()
            except StackError as exc:
                fail(str(exc))
        hub_url = stack.hub_url
    else:
        hub_url = state["hub_url"]
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out_dir = runner_home() / "runs" / f"{stamp}-{harness.name}"
    token = admin_token(runner_home())
    metrics = (
        RunMetrics(harness.name, (agent or AgentConfig()).model, prices or {})
        if metrics_port
        else None
    )
    try:
        with (
            serving(metrics_port, RunnerSettings().metrics_host)
            if metrics_port
            else contextlib.nullcontext(),
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
            ) as progress,
        ):
            attempts = len(refs) * repeat
            bar = progress.add_task(f"{harness.name} on {len(refs)} tasks", total=attempts)

            def finished(record: dict[str, Any]) -> None:
                progress.advance(bar)
                if metrics is not None:
                    metrics.observe(record)

            result = asyncio.run(
                evaluate(
                    hub_url,
                    token,
                    harness,
                    refs,
                    out_dir,
                    workers,
                    time_limit,
                    finished,
                    today,
                    agent,
                    prices,
                    repeat,
                )
            )
        after = then(hub_url, token, result) if then else None
    except (StackError, StandNotReady) as exc:
        fail(str(exc))
    finally:
        if stack is not None:
            stack.stop()
    return result, out_dir, after


def hub_answering(url: str) -> str:
    """`url` without its trailing slash, once its hub answers `/alive`."""
    url = url.rstrip("/")
    try:
        httpx.get(f"{url}/alive", timeout=5).raise_for_status()
    except httpx.HTTPError as exc:
        fail(f"--hub: no hub answers at {url} ({exc})")
    return url


def agent_config(
    harness: str,
    model: str | None,
    base_url: str | None,
    api_key_env: str,
    temperature: float,
    max_steps: int,
    family: str | None,
    page_geometry: bool,
    option: list[str],
    agent_cmd: str | None,
) -> AgentConfig:
    """The agent harness's settings from `runner eval`'s options, refused early when wrong."""
    if harness in ENVIRONMENTS or harness == "external":
        if not model:
            fail(f"--model: the {harness} harness needs a model name")
        if not base_url:
            fail(f"--base-url: the {harness} harness needs an OpenAI-compatible endpoint")
        if not base_url.startswith(("http://", "https://")):
            fail(f"--base-url: expected http(s)://…, got {base_url!r}")
    if harness == "gui" and family not in GUI_FAMILIES:
        fail(f"--family: the gui harness needs one of {', '.join(GUI_FAMILIES)}")
    if harness == "external":
        argv = shlex.split(agent_cmd or "")
        if not argv:
            fail("--agent-cmd: the external harness needs the agent's command")
        if shutil.which(argv[0]) is None:
            fail(f"--agent-cmd: {argv[0]!r} is not an executable file or on PATH")
    options: dict[str, Any] = {}
    for item in option:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            fail(f"--option: expected KEY=VALUE, got {item!r}")
        try:
            options[key.strip()] = json.loads(value)
        except ValueError:
            options[key.strip()] = value
    if harness == "oracle" and options.get("path", ORACLE_PATHS[0]) not in ORACLE_PATHS:
        fail(f"--option path: the oracle takes one of {', '.join(ORACLE_PATHS)}")
    if family:
        options["family"] = family
    if page_geometry:
        options["page_geometry"] = True
    return AgentConfig(
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        temperature=temperature,
        max_steps=max_steps,
        options=options,
        command=agent_cmd,
    )


harness_app = typer.Typer(help="Agent harness environments: install, list.", no_args_is_help=True)
app.add_typer(harness_app, name="harness")


@harness_app.command("install")
def harness_install(
    name: Annotated[str, typer.Argument(help="browser-use, openhands, dom or gui")],
    python: Annotated[
        str | None, typer.Option(help="the interpreter for its venv (else found on PATH/pyenv)")
    ] = None,
    force: Annotated[bool, typer.Option(help="reinstall even when ready")] = False,
) -> None:
    """Prepare a harness's environment: a venv under $WPB_HOME/harnesses/NAME/."""
    environment = ENVIRONMENTS.get(name)
    if environment is None:
        fail(f"unknown harness environment {name!r}; known: {', '.join(ENVIRONMENTS)}")
    if not force and environment.state(runner_home()) is not None:
        console.print(f"{name} is ready ({environment.folder(runner_home())}); --force reinstalls")
        return
    started = time.monotonic()
    try:
        state = environment.install(runner_home(), python, log=lambda line: console.print(line))
    except HarnessEnvError as exc:
        fail(str(exc))
    packages = ", ".join(f"{k} {v}" for k, v in state.get("packages", {}).items()) or "none"
    console.print(
        f"[green]ready[/green] {name} in {time.monotonic() - started:.0f}s: "
        f"Python {state.get('python')}, {packages}"
    )


@harness_app.command("list")
def harness_list() -> None:
    """Every harness, where it runs and whether it is ready."""
    table = Table(title="Harnesses")
    for column in ("Harness", "Ready", "Environment", "What it is"):
        table.add_column(column)
    for name in sorted(available()):
        environment = ENVIRONMENTS.get(name)
        if environment is None:
            where = "the runner's process" if name != "external" else "--agent-cmd"
            table.add_row(name, "[green]yes[/green]", where, "")
            continue
        state = environment.state(runner_home())
        where = (
            str(environment.folder(runner_home()))
            if environment.own_venv
            else f"the runner's Python {sys.version.split()[0]}"
        )
        if state and environment.own_venv:
            versions = ", ".join(f"{k} {v}" for k, v in state.get("packages", {}).items())
            where += f" (Python {state.get('python')}; {versions})"
        ready = "[green]yes[/green]" if state else "[red]no[/red] (runner harness install)"
        table.add_row(name, ready, where, environment.about)
    console.print(table)


@app.command()
def testmodel(
    port: Annotated[int, typer.Option(help="port on 127.0.0.1")] = 8011,
    scripts: Annotated[
        Path | None, typer.Option(help="folder of scripts (default: the repo's)")
    ] = None,
) -> None:
    """Serve the deterministic test model (OpenAI-compatible) at http://127.0.0.1:PORT/v1."""
    import uvicorn

    from runner.testmodel.server import SCRIPTS_DIR, create_app

    folder = scripts or SCRIPTS_DIR
    if not folder.is_dir():
        fail(f"--scripts: no folder {folder}")
    console.print(f"test model at http://127.0.0.1:{port}/v1 (scripts in {folder})")
    uvicorn.run(create_app(folder), host="127.0.0.1", port=port, log_level="warning")


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
    except FieldError as exc:
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


@tasks_app.command("audit")
def tasks_audit(
    tasks: Annotated[str | None, typer.Option(help="comma-separated sites, names or globs")] = None,
    max_tasks: Annotated[int | None, typer.Option(min=1, help="at most this many tasks")] = None,
    workers: Annotated[int, typer.Option(min=1, max=32, help="tasks run at once")] = 1,
    time_limit: Annotated[float, typer.Option(min=1, help="seconds per task")] = 120,
    today: Annotated[str | None, typer.Option(help="stand's today for an ephemeral stack")] = None,
    report: Annotated[Path | None, typer.Option(help="write the full result as JSON")] = None,
    kinds: Annotated[
        str | None, typer.Option(help="near misses to make: drop,param,free,last,forbid")
    ] = None,
) -> None:
    """Run the reference solver, then check that near misses of its logs fail and that each
    task's primary UI class is exercised (docs/tasks.md, "The audit")."""
    from runner.audit import KINDS, audit_suite, collect, suite_line

    chosen_kinds = [k.strip() for k in (kinds or ",".join(KINDS)).split(",") if k.strip()]
    if not chosen_kinds or set(chosen_kinds) - set(KINDS):
        fail(f"--kinds: expected some of {','.join(KINDS)}, got {kinds!r}")

    refs = select_tasks(TASKS_DIR, tasks, max_tasks)
    if not refs:
        fail(f"no task matches {tasks!r} under {TASKS_DIR}")
    _, _, items = run_on_stack(
        get_harness("oracle"),
        refs,
        workers,
        time_limit,
        today,
        then=lambda hub_url, token, run: asyncio.run(collect(hub_url, token, refs, run["records"])),
    )
    summary = audit_suite(items, kinds=chosen_kinds)
    table = Table(title="Task audit")
    for column in ("task", "tried", "caught", "survive without a reason", "class"):
        table.add_column(column, overflow="fold")
    for name, result in summary["tasks"].items():
        check = result.get("class_check") or {}
        if result["ems"] != 1:
            survivors = f"[red]the reference log fails (conditions {result['failed_conditions']})"
        else:
            survivors = "\n".join(result["survivors"]) or "[green]none"
        problems = result["exception_problems"] + [
            f"unused exception {p!r}" for p in result["unused_exceptions"]
        ]
        if problems:
            survivors += "\n[yellow]" + "\n".join(problems)
        if check.get("ok"):
            verdict = f"[green]{check['class']}"
        else:
            missing = [
                where
                for where, key in (("log", "in_log"), ("conditions", "in_conditions"))
                if not check.get(key)
            ]
            verdict = f"[red]{check.get('class')}: not in {' or '.join(missing)}"
        table.add_row(name, str(result["tried"]), str(result["caught"]), survivors, verdict)
    console.print(table)
    console.print(suite_line(summary))
    if summary["original_failures"]:
        failing = ", ".join(summary["original_failures"])
        console.print(f"[red]the reference log fails[/red] for {failing}", soft_wrap=True)
    if report is not None:
        report.write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
        console.print(f"report in {report}")
    if not summary["ok"]:
        raise typer.Exit(1)


board_app = typer.Typer(
    help="The leaderboard over runs: the terminal table (no command) or `export DIR`."
)
app.add_typer(board_app, name="board")

SuiteOption = Annotated[
    str | None, typer.Option(help="the task-set hash to show (default: the one most rows share)")
]
EveryOption = Annotated[
    bool, typer.Option("--all", help="every run, not only the newest per model × harness")
]


@board_app.callback(invoke_without_command=True)
def board(
    ctx: typer.Context,
    site: Annotated[str | None, typer.Option(help="only this site's tasks")] = None,
    ui: Annotated[str | None, typer.Option(help="only this UI class (primary)")] = None,
    kind: Annotated[str | None, typer.Option(help="canonical or variant")] = None,
    suite: SuiteOption = None,
    every: EveryOption = False,
) -> None:
    """The board of the runs under $WPB_HOME/runs: newest run per model × harness on one
    task set (others listed apart), every rate with its 95% interval (docs/results.md)."""
    if ctx.invoked_subcommand:
        return
    from runner.board import print_board
    from services.core.results.board import KINDS, Filter, build, finished_runs

    if kind is not None and kind not in KINDS:
        fail(f"--kind: expected one of {', '.join(KINDS)}")
    runs = finished_runs(runner_home() / "runs")
    if not runs:
        fail(f"no finished run under {runner_home() / 'runs'} (runner eval)")
    print_board(console, build(runs, Filter(site, ui, kind), latest=not every, suite=suite))


@board_app.command("export")
def board_export(
    folder: Annotated[Path, typer.Argument(help="where to write index.html and the rest")],
    suite: SuiteOption = None,
    every: EveryOption = False,
) -> None:
    """Write the board as a static site: index.html (a page per filter, the comparisons),
    assets/, board.json and board.csv; publishable as it is."""
    from runner.board import export
    from services.core.results.board import finished_runs

    runs = finished_runs(runner_home() / "runs")
    if not runs:
        fail(f"no finished run under {runner_home() / 'runs'} (runner eval)")
    index = export(runs, folder, latest=not every, suite=suite)
    console.print(f"board written: {index.resolve()}")


@app.command("compare")
def compare_runs(
    run_a: Annotated[str, typer.Argument(help="a run's folder name under $WPB_HOME/runs")],
    run_b: Annotated[str, typer.Argument(help="the run to set against it")],
    html: Annotated[Path | None, typer.Option(help="also write the page to this file")] = None,
) -> None:
    """Run B against run A on their common attempts: flipped tasks, EMS deltas by site, UI
    class and kind with 95% intervals, McNemar's exact test."""
    from runner.board import print_compare
    from services.core.results.board import compare, read_run
    from services.core.results.page import render_compare

    runs = []
    for name in (run_a, run_b):
        run = read_run(runner_home() / "runs" / name) if name and "/" not in name else None
        if run is None:
            fail(f"no run named {name!r} under {runner_home() / 'runs'}")
        runs.append(run)
    result = compare(*runs)
    print_compare(console, result)
    if html is not None:
        html.write_text(render_compare(result, "/view/board/assets"), encoding="utf-8")
        console.print(f"page written: {html}")


@app.command("export")
def export_run(
    run: Annotated[str, typer.Argument(help="a run's folder name under $WPB_HOME/runs")],
    format: Annotated[str, typer.Option("--format", help="upstream: its results.json")] = (
        "upstream"
    ),
    out: Annotated[Path | None, typer.Option(help="default: results.json in the run")] = None,
) -> None:
    """Write a run in another tool's layout (upstream WebPageBench's results.json)."""
    from runner.interchange import to_upstream
    from services.core.results.board import read_run

    if format != "upstream":
        fail(f"--format: only upstream is known, got {format!r}")
    found = read_run(runner_home() / "runs" / run) if run and "/" not in run else None
    if found is None:
        fail(f"no run named {run!r} under {runner_home() / 'runs'}")
    target = out or runner_home() / "runs" / run / "results.json"
    data = to_upstream(found, TASKS_DIR)
    target.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    console.print(f"{len(data['tests'])} tests written: {target}")


@app.command("import")
def import_run(
    file: Annotated[Path, typer.Argument(help="an upstream WebPageBench results.json")],
) -> None:
    """Read an upstream results.json in as a run under $WPB_HOME/runs (for the board)."""
    from runner.interchange import InterchangeError, import_file

    try:
        folder = import_file(file, runner_home() / "runs", TASKS_DIR)
    except InterchangeError as exc:
        fail(str(exc))
    console.print(f"imported as run {folder.name}")
