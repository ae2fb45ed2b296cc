"""`runner openenv`: the OpenEnv environment's server (integrations/openenv, docs/training.md)
on a stand: the one at `--hub`, the embedded stack that runs, or one started for it."""

from __future__ import annotations

from typing import Annotated

import typer

from runner.cli.common import console, fail, stand


def openenv(
    port: Annotated[int, typer.Option(help="the port it listens on")] = 8010,
    host: Annotated[str, typer.Option(help="the address it listens on")] = "127.0.0.1",
    sessions: Annotated[int, typer.Option(help="sessions (WebSockets) at once")] = 64,
    max_steps: Annotated[int, typer.Option(help="an episode's step limit")] = 30,
    idle: Annotated[float, typer.Option(help="an idle session's seconds (0: never)")] = 600,
    hub: Annotated[str | None, typer.Option(help="a stand's hub (else the embedded stack)")] = None,
    today: Annotated[str | None, typer.Option(help="a started stack's today")] = None,
) -> None:
    """Serve WebPageBench as an OpenEnv environment, one episode per WebSocket (`/ws`).

    Each episode has a trajectory on the stand and a browser context of one shared
    Chromium."""
    if sessions < 1 or max_steps < 1 or idle < 0:
        fail("--sessions and --max-steps: 1 or more; --idle: 0 or more")
    # openenv imports Gradio: seconds, so only here.
    from webpagebench_env.server.app import serve
    from webpagebench_env.server.environment import Config

    with stand(hub, today, "the OpenEnv server") as address:
        console.print(f"OpenEnv environment on http://{host}:{port} (stand {address.url})")
        serve(Config(address, max_steps=max_steps, idle_s=idle), host, port, sessions)
