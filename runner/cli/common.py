"""What every `runner` command shares: the console it prints on, how it refuses, and how a
long command stops on a signal."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import signal
import sys
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from runner.cli.tables import print_run
from runner.harnesses.placement import Backend
from runner.hub import HubAddress
from runner.run.metrics import RunMetrics, serving
from runner.run.prices import Price
from runner.settings import RunnerSettings, runner_home
from runner.stack.stack import StackError, stand_at
from services.core.errors import FieldError
from services.core.models.folder import Run
from services.core.models.run import Record
from services.core.tasks import GENERATED, SUITE_NAMES, check_suite

F = TypeVar("F", bound=Callable[..., Any])


def prose(doc: str | None) -> str | None:
    """A docstring as `--help` shows it: each paragraph one line, for the terminal to wrap
    (its first, one sentence, is the command's summary in its group's list)."""
    if doc is None:
        return None
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


class App(typer.Typer):
    """A command group whose commands (and own callback) take their help from their
    docstrings as `prose` reads them, not with the docstrings' line ends."""

    def command(self, name: str | None = None, **settings: Any) -> Callable[[F], F]:  # type: ignore[override]
        def register(function: F) -> F:
            settings.setdefault("help", prose(function.__doc__))
            return typer.Typer.command(self, name, **settings)(function)

        return register

    def callback(self, **settings: Any) -> Callable[[F], F]:  # type: ignore[override]
        def register(function: F) -> F:
            settings.setdefault("help", prose(function.__doc__))
            return typer.Typer.callback(self, **settings)(function)

        return register


console = Console()
if not console.is_terminal:  # CI logs and pipes: wide enough for the task names
    console = Console(width=140)


WideOption = Annotated[
    bool,
    typer.Option("--wide", help="every column of each table, however wide (a pipe gets them all)"),
]


def _json_alone(value: bool) -> bool:
    """`--json`: what the command says on the way goes to stderr, the JSON alone to stdout."""
    if value:
        console.file = sys.stderr
    return value


JsonOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="print the JSON instead of the tables (progress on stderr)",
        callback=_json_alone,
    ),
]


def print_json(text: str) -> None:
    """`--json`: the document alone on stdout (the console prints on stderr meanwhile)."""
    sys.stdout.write(text + "\n")


def show_run(result: Run, out_dir: Path, wide: bool = False, json_: bool = False) -> None:
    """A finished run's tables (`--wide`: every column), or its summary.json (`--json`) and
    its directory on stderr."""
    if json_:
        assert result.summary is not None, "a finished run"
        print_json(result.summary.dumps(indent=2))
        console.print(f"run directory {out_dir}")  # on stderr with --json
    else:
        print_run(console, result, out_dir, wide)


def fail(message: str) -> NoReturn:
    """The message as it is: no markup, no `:emoji:` codes (a `site:<domain>:` stays text)."""
    console.print(f"[red]error:[/red] {escape(message)}", emoji=False)
    raise typer.Exit(2)


def known_suite(name: str) -> str:
    """`--suite NAME`: a suite's name, or the command is refused naming the option and the
    suites."""
    try:
        return check_suite(name, "--suite")
    except FieldError as exc:
        fail(str(exc))


SuiteOption = Annotated[
    str, typer.Option(help=f"the suite of tasks: {SUITE_NAMES}", callback=known_suite)
]


def known_or_generated(name: str) -> str:
    return name if name == GENERATED else known_suite(name)


EvalSuiteOption = Annotated[
    str,
    typer.Option(
        help=f"the suite of tasks: {SUITE_NAMES}; or {GENERATED} (with --task-family, --seed"
        " and --count)",
        callback=known_or_generated,
    ),
]


T = TypeVar("T")
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stopped(Exception):
    """A command was stopped by a signal, after its work was cancelled and cleaned up."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


async def stoppable(work: Coroutine[Any, Any, T]) -> T:
    """`work`, cancelled by SIGTERM or SIGINT (as `timeout`, CI or a process manager stop a
    command): its own cleanup runs (every agent process and browser it started is ended),
    then Stopped is raised."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        task.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await task
    except asyncio.CancelledError:
        if received:
            raise Stopped(received[0]) from None
        raise
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


@contextlib.contextmanager
def recording(
    harness: str,
    model: str | None,
    tasks: int,
    attempts: int,
    prices: dict[str, Price],
    port: int | None = None,
) -> Iterator[Callable[[Record], None]]:
    """The progress bar of a run's attempts and, with a metrics port, the runner's metrics
    served there; yields what each record is given to (a local run's, a queue's alike)."""
    metrics = RunMetrics(harness, model, prices) if port else None
    with (
        serving(port, RunnerSettings().metrics_host) if port else contextlib.nullcontext(),
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        ) as progress,
    ):
        bar = progress.add_task(f"{harness} on {tasks} tasks", total=attempts)

        def finished(record: Record) -> None:
            progress.advance(bar)
            if metrics is not None:
                metrics.observe(record)

        yield finished


@contextlib.contextmanager
def stand(hub: str | None, today: str | None, purpose: str) -> Iterator[HubAddress]:
    """The stand `runner eval`, `runner worker` and `runner openenv` run on
    (`runner.stack.stack.stand_at`): a stack started for `purpose` where none runs."""
    starting = functools.partial(console.status, f"no stack running: starting one for {purpose}…")
    try:
        with stand_at(runner_home(), hub, today, starting) as address:
            yield address
    except StackError as exc:
        fail(str(exc))


# The options `runner eval` and `runner worker` share, declared once (a test holds
# `runner eval`'s to EvalRequest's fields, in name and default).
PoolOption = Annotated[
    str, typer.Option(help="the queue's pool: a run's episodes go to it, a worker takes from it")
]
BackendOption = Annotated[
    Backend,
    typer.Option(
        help="agent harnesses: local (a process and the runner's Chromium) or docker "
        "(a browser and an agent container per episode on --hub's agents network)"
    ),
]
HubOption = Annotated[
    str | None,
    typer.Option(
        help="a running stand's hub, e.g. compose's http://127.0.0.1:8000; default: the "
        "embedded stack, started for the command where none runs"
    ),
]
AgentsNetworkOption = Annotated[
    str, typer.Option(help="docker: the compose stand's agents network")
]
