"""Killing the collector while events flow loses no acknowledged event and stores none twice."""

from __future__ import annotations

import asyncio
import signal

import httpx
import pytest
from helpers import create, run_async

pytestmark = pytest.mark.slow


def test_kill_collector_mid_stream(hub: httpx.Client, stack) -> None:
    tid = create(hub)["trajectory_id"]
    acked: list[str] = []

    async def flow(client: httpx.AsyncClient, stop: asyncio.Event) -> None:
        n = 0
        while not stop.is_set():
            batch = [
                {"id": f"crash{n:05d}x{i}", "type": "scroll", "params": {"y": n * 10 + i}}
                for i in range(5)
            ]
            n += 1
            answer = await client.post(f"/t/{tid}/grocery/_events", json=batch)
            if answer.status_code == 200:
                acked.extend(answer.json()["ids"])
            # a retry of the same batch must not store anything twice
            if n % 7 == 0:
                await client.post(f"/t/{tid}/grocery/_events", json=batch)

    async def scenario() -> None:
        stop = asyncio.Event()
        async with httpx.AsyncClient(base_url=stack.hub_url, timeout=30) as client:
            writer = asyncio.create_task(flow(client, stop))
            await asyncio.sleep(1.0)
            await asyncio.to_thread(stack.kill, "events", signal.SIGKILL)
            await asyncio.sleep(1.0)  # events keep flowing into JetStream meanwhile
            await asyncio.to_thread(stack.restart, "events")
            await asyncio.sleep(0.5)
            stop.set()
            await writer

    run_async(scenario())
    assert len(acked) > 50
    events = hub.get(f"/api/trajectories/{tid}/events").json()["events"]
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids)), "an event was stored twice"
    assert set(acked) <= set(ids), "an acknowledged event was lost"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
