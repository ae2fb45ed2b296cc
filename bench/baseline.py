"""The floor `bench.concurrency` measures the stand against: a bare FastAPI endpoint that
does one KV read of the trajectories bucket and one acknowledged JetStream publish to the
events stream, on the stand's own NATS, under uvicorn with the flags the stand's services
run with. It is started by the benchmark, in a process of its own:

    WPB_NATS_URL=... WPB_SERVICE_TOKEN=... uvicorn --factory bench.baseline:create_app
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from runner.settings import free_port
from runner.stack.stack import Stack
from services.kit.bus import TRAJECTORIES_BUCKET, Bus
from services.kit.settings import Settings


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    # Its events go to a trajectory of their own, so they never mix with a real one's.
    own_trajectory = uuid.uuid4().hex

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.bus = Bus(settings.nats_url, "bench-baseline", settings.service_token)
        await app.state.bus.connect()
        yield
        await app.state.bus.close()

    app = FastAPI(lifespan=lifespan)

    @app.post("/probe/{key}")
    async def probe(key: str, body: dict[str, Any]) -> dict[str, Any]:
        """Read trajectory `key`'s metadata, publish one event, answer the stream sequence."""
        bus: Bus = app.state.bus
        meta, revision = await bus.get_json(TRAJECTORIES_BUCKET, key)
        event = {
            "id": uuid.uuid4().hex,
            "trajectory_id": own_trajectory,
            "ts": time.time(),
            "site": "bench",
            "source": "page",
            "type": "click",
            "params": body,
        }
        return {
            "found": meta is not None,
            "revision": revision,
            "seq": (await bus.publish_events([event]))[0],
        }

    @app.get("/ready")
    async def ready() -> dict[str, str]:
        return {"status": "ready"}

    return app


NAME = "bench-baseline"  # its process's name among the stack's


def start(stack: Stack) -> str:
    """Start the bare endpoint as one more process of the stack, so that it runs as the
    services do (their uvicorn flags, their NATS and credential, a log beside theirs) and
    stops with them; its address."""
    name = NAME
    env = {
        "WPB_NATS_URL": f"nats://127.0.0.1:{stack.processes['nats'].port}",
        "WPB_SERVICE_TOKEN": stack.service_token,
    }
    stack.processes[name] = Stack.service_process(name, "bench.baseline", free_port(), env)
    stack.spawn(name)
    stack.wait_ready(names=[name])
    return stack.processes[name].url
