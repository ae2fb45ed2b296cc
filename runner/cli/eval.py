"""`runner eval`: its options, read into an `EvalRequest` (runner/run/request.py), and the
evaluation on a stand with a progress bar (`run_on_stack`, which `runner tasks audit` uses
too)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from runner.agents.gui_families import GuiFamily
from runner.cli.common import (
    AgentsNetworkOption,
    BackendOption,
    EvalSuiteOption,
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
from runner.errors import ModelRefused
from runner.harnesses.containers import DockerBackend
from runner.harnesses.harness import Harness
from runner.harnesses.placement import Backend
from runner.hub import HubAddress
from runner.run.evaluate import Setup, StandNotReady, TaskRef, evaluate, select_tasks
from runner.run.metrics import RUNNER_PORT
from runner.run.prices import Price, PriceError, load_prices
from runner.run.request import EvalRequest, TaskSelection, refusal
from runner.settings import TASKS_DIR, runner_home
from runner.stack.stack import StackError
from services.core.errors import FieldError
from services.core.models.folder import Run
from services.core.models.task import RELEASED
from services.core.tasks import GENERATED, load_task, suite_of, task_files

# `runner eval`'s options that say how the result is printed, not what is run.
OUTPUT_OPTIONS = frozenset({"wide", "json_"})


def eval_(
    ctx: typer.Context,
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
    max_tokens: Annotated[
        int | None,
        typer.Option(min=1, help="completion tokens asked of each model call"),
    ] = None,
    family: Annotated[str | None, typer.Option(help=f"gui: {', '.join(GuiFamily)}")] = None,
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
    suite: EvalSuiteOption = RELEASED,
    tasks_dir: Annotated[
        Path | None,
        typer.Option(help="a generated folder (runner tasks generate --out): its suite's tasks"),
    ] = None,
    task_family: Annotated[
        str | None, typer.Option(help="--suite generated: a family of tasks/families/, or all")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="--suite generated: the seed")] = None,
    count: Annotated[int | None, typer.Option(help="--suite generated: instances in all")] = None,
    tasks: Annotated[
        str | None, typer.Option(help="comma-separated sites, names or globs of the suite")
    ] = None,
    max_tasks: Annotated[int | None, typer.Option(min=1, help="at most this many tasks")] = None,
    workers: Annotated[int, typer.Option(min=1, max=32, help="tasks run at once")] = 1,
    time_limit: Annotated[float, typer.Option(min=1, help="seconds per task")] = 180,
    repeat: Annotated[
        int, typer.Option(min=1, max=100, help="attempts per task (for pass@k and pass^k)")
    ] = 1,
    today: Annotated[str | None, typer.Option(help="stand's today for an ephemeral stack")] = None,
    viewport: Annotated[
        str,
        typer.Option(
            help="every browser's page size in CSS px, WIDTHxHEIGHT: 390x844 is a phone's"
            " (a mobile context, the sites' narrow layout), 1920x1080 a large screen"
        ),
    ] = "1280x800",
    zoom: Annotated[
        float, typer.Option(help="the device scale factor the pages render at (0.5 to 4)")
    ] = 1.0,
    metrics_port: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=65535,
            help=f"serve the runner's metrics here during the run ({RUNNER_PORT} is where"
            " Prometheus looks); default $WPB_METRICS_PORT, else off",
        ),
    ] = None,
    hub: HubOption = None,
    backend: BackendOption = Backend.local,
    agents_network: AgentsNetworkOption = DockerBackend.network,
    container_cpus: Annotated[
        float, typer.Option(min=0.1, help="docker: CPUs of each container")
    ] = DockerBackend.cpus,
    container_memory: Annotated[
        str, typer.Option(help="docker: memory of each container (Docker's units: 2g)")
    ] = DockerBackend.memory,
    queue: Annotated[
        str | None,
        typer.Option(
            help="run on `runner worker`s: the queue's NATS servers, nats://n1:4222,nats://n2:4222"
        ),
    ] = None,
    pool: PoolOption = "default",
    max_pending: Annotated[
        int | None,
        typer.Option(min=1, help="queue: the pool's cap on episodes at once, all workers together"),
    ] = None,
    detach: Annotated[
        bool, typer.Option(help="queue: submit, print the run id, return (`runner gather`)")
    ] = False,
    resume: Annotated[
        str | None,
        typer.Option(help="queue: publish again what a run (its id) has neither done nor queued"),
    ] = None,
    wide: WideOption = False,
    json_: JsonOption = False,
) -> None:
    """Run a harness on tasks, write $WPB_HOME/runs/<UTC timestamp>-<harness>/ and print the
    result.

    Without --hub it runs on the embedded stack that runs, or on one started for the run.
    The tables fit the terminal (--wide: every column); --json prints summary.json instead."""
    # The options, by their names, are the request's fields (but how the result is printed):
    # checked there, refused here.
    fields = {k: v for k, v in ctx.params.items() if k not in OUTPUT_OPTIONS}
    try:
        request = EvalRequest.model_validate(fields)
    except ValidationError as exc:
        fail(refusal(exc))
    chosen = chosen_harness(request)
    try:
        price_table = load_prices(request.prices or runner_home() / "prices.toml")
    except PriceError as exc:
        fail(f"--prices: {exc}")
    if request.queue is not None:
        from runner.cli.queue import eval_on_queue

        gathered = eval_on_queue(request, selected(request), price_table)
        if gathered is None:
            return
        result, out_dir = gathered
    else:
        result, out_dir, _ = run_on_stack(request, chosen, selected(request), price_table)
    show_run(result, out_dir, wide, json_)


def chosen_harness(request: EvalRequest) -> Harness:
    """The harness the request names: in containers of its own on the docker backend (when
    this machine can run them), else in the runner's process or a process of its own."""
    placement = request.placement()
    if placement.backend is Backend.docker and (why := placement.missing(request.harness)):
        fail(f"--backend docker: {why}")
    return placement.harness(request.harness)


def selected(request: TaskSelection) -> list[TaskRef]:
    """The tasks of `--suite` that `--tasks` and `--max-tasks` select; none is refused."""
    tasks_dir, suite = task_source(request)
    refs = select_tasks(tasks_dir, request.tasks, request.max_tasks, suite)
    if not refs:
        if request.tasks:
            fail(f"no task matches {request.tasks!r} in the {suite} suite ({tasks_dir})")
        fail(f"the {suite} suite has no task under {tasks_dir}")
    return refs


def task_source(request: TaskSelection) -> tuple[Path, str]:
    """Where the run's tasks are and their suite: the task folder and `--suite`; a
    generated folder (`--tasks-dir`) and its suite; or, with `--suite generated`, a suite
    generated now into $WPB_HOME/generated/ (docs/tasks.md, "Generated suites")."""
    from runner.suite.generate import generate, suite_name

    if request.suite == GENERATED:
        family, seed, count = request.task_family or "", request.seed or 0, request.count or 1
        folder = runner_home() / "generated" / f"{suite_name(family, seed)}-{count}"
        try:
            generate(TASKS_DIR, family, seed, count, folder)
        except FieldError as exc:
            fail(str(exc).replace("--family", "--task-family").replace("--out", "$WPB_HOME"))
        return folder, suite_name(family, seed)
    if request.tasks_dir is None:
        return TASKS_DIR, request.suite
    suites = {suite_of(load_task(p)) for p in task_files(request.tasks_dir)}
    if request.suite == RELEASED and len(suites) == 1:
        return request.tasks_dir, suites.pop()
    return request.tasks_dir, request.suite


def run_on_stack(
    request: EvalRequest,
    harness: Harness,
    refs: list[TaskRef],
    prices: dict[str, Price] | None = None,
    then: Callable[[HubAddress, Run], Any] | None = None,
) -> tuple[Run, Path, Any]:
    """Evaluate on the stand at `--hub` (one this runner did not start: compose's), on the
    running embedded stack, or on one started for it and stopped after, with a progress bar
    and, with `--metrics-port`, the runner's metrics served there; `then(hub, result)` runs
    while the stack is still up. Returns the result, the run directory and
    what `then` returned. SIGTERM or SIGINT ends every agent and browser of the run and
    exits 128 + the signal's number (the records so far stay)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out_dir = runner_home() / "runs" / f"{stamp}-{harness.name}"
    setup = Setup(harness, request.agent_config(), prices or {})
    attempts = len(refs) * request.repeat
    try:
        with (
            stand(request.hub, request.today, "this run") as address,
            recording(
                harness.name,
                setup.agent.model,
                len(refs),
                attempts,
                setup.prices,
                request.metrics_port,
            ) as finished,
        ):
            result = asyncio.run(
                stoppable(evaluate(address, setup, refs, out_dir, request, finished))
            )
            after = then(address, result) if then else None
    except (StackError, StandNotReady) as exc:
        fail(str(exc))
    except ModelRefused as exc:
        fail(f"{exc}; the run stopped, no task of it is scored ({out_dir})")
    except Stopped as exc:
        console.print(
            f"[red]stopped by {exc}[/red]: every agent and browser of the run ended; "
            f"the records so far are in {out_dir}"
        )
        raise typer.Exit(exc.exit_code) from None
    return result, out_dir, after
