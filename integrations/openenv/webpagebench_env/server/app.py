"""The OpenEnv server: `create_app` over WebPageBenchEnvironment, one session per WebSocket
(`/ws`), at most `sessions` at once. `runner openenv` serves it on the stand it finds or
starts; `python -m webpagebench_env.server.app --hub URL` on a stand at that address (the
admin token from WPB_ADMIN_TOKEN or $WPB_HOME/admin-token)."""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from functools import partial
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from openenv.core.env_server.http_server import create_app

from runner.hub import HubAddress
from runner.settings import admin_token, free_port, runner_home
from runner.wait import until
from webpagebench_env.models import (
    WebpagebenchAction,
    WebpagebenchObservation,
    WebpagebenchState,
)
from webpagebench_env.server.environment import Config, WebPageBenchEnvironment, shared_for

ENV_NAME = "webpagebench"
# openenv imports Gradio: a server answers after seconds, more on a busy machine.
READY_S = 90
DEFAULT_HUB = "http://127.0.0.1:8000"


def __getattr__(name: str) -> Any:
    """`app`, what openenv.yaml names: the server of the stand at WPB_HUB_URL (by default
    the embedded stack's address), WPB_OPENENV_SESSIONS sessions at once (64), made when
    first asked for."""
    if name != "app":
        raise AttributeError(name)
    hub = HubAddress(os.environ.get("WPB_HUB_URL", DEFAULT_HUB), admin_token(runner_home()))
    return make_app(Config(hub), int(os.environ.get("WPB_OPENENV_SESSIONS", "64")))


def make_app(config: Config, sessions: int) -> FastAPI:
    app = create_app(
        partial(WebPageBenchEnvironment, config),
        WebpagebenchAction,
        WebpagebenchObservation,
        env_name=ENV_NAME,
        max_concurrent_envs=sessions,
        state_cls=WebpagebenchState,
    )

    @app.get(f"/{ENV_NAME}/open")
    async def still_open() -> dict[str, int]:
        """The episodes open and the browser contexts they hold (none once every session
        has ended: nothing leaks)."""
        common = shared_for(config)
        browser = common.launched.browser
        contexts = len(browser.contexts) if browser else 0
        return {"episodes": sum(s.open for s in common.sessions), "contexts": contexts}

    return app


def serve(config: Config, host: str, port: int, sessions: int) -> None:
    uvicorn.run(make_app(config, sessions), host=host, port=port, log_level="warning")


@contextlib.contextmanager
def spawned(hub: str, token: str, *options: str) -> Iterator[str]:
    """This server in a process of its own on a free port, on the stand at `hub` (its admin
    `token`), with `main`'s `options`; its address once it answers (the tests', bench/rl.py's)."""
    port = free_port()
    command = [sys.executable, "-m", "webpagebench_env.server.app", "--hub", hub]
    server = subprocess.Popen(
        [*command, "--port", str(port), *options],
        env={**os.environ, "WPB_ADMIN_TOKEN": token},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: answers(url) or server.poll() is not None, READY_S, "the OpenEnv server")
        if server.poll() is not None:
            output = server.stdout.read() if server.stdout else ""
            raise RuntimeError(f"the OpenEnv server stopped: {output[-2000:]}")
        yield url
    finally:
        server.terminate()
        server.wait(30)


def answers(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hub", required=True, help="the stand's hub, http://host:port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8010)
    parser.add_argument("--sessions", type=int, default=64, help="sessions at once")
    parser.add_argument("--max-steps", type=int, default=30, help="an episode's step limit")
    parser.add_argument("--idle", type=float, default=600, help="an idle session's seconds")
    args = parser.parse_args()
    if args.sessions < 1 or args.max_steps < 1 or args.idle < 0:
        parser.error("--sessions and --max-steps: 1 or more; --idle: 0 or more")
    hub = HubAddress(args.hub.rstrip("/"), admin_token(runner_home()))
    config = Config(hub, max_steps=args.max_steps, idle_s=args.idle)
    serve(config, args.host, args.port, args.sessions)


if __name__ == "__main__":
    main()
