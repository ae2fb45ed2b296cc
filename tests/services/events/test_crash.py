"""Killing the collector while events flow loses no acknowledged event and stores none twice.
The module has a stack of its own: the shared one never loses its collector."""

from __future__ import annotations

import asyncio
import signal

import httpx
from support.http import create, events_url, run_async, wait_events

from runner.stack.stack import Stack

# Acknowledged events to see before the kill, while the collector is down, and after restart.
STEP = 50


def test_kill_collector_mid_stream(own_hub: httpx.Client, own_stack: Stack) -> None:
    tid = create(own_hub).trajectory_id
    url = events_url(own_hub, f"/t/{tid}/grocery/")
    acked: list[str] = []
    progress = asyncio.Condition()

    async def flow(client: httpx.AsyncClient, stop: asyncio.Event) -> None:
        n = 0
        while not stop.is_set():
            batch = [
                {"id": f"crash{n:05d}x{i}", "type": "scroll", "params": {"y": n * 10 + i}}
                for i in range(5)
            ]
            n += 1
            answer = await client.post(url, json=batch)
            if answer.status_code == 200:
                async with progress:
                    acked.extend(answer.json()["ids"])
                    progress.notify_all()
            # a retry of the same batch must not store anything twice
            if n % 7 == 0:
                await client.post(url, json=batch)

    async def acknowledged(more: int) -> None:
        """Until `more` further events are acknowledged (the hub put them into JetStream)."""
        target = len(acked) + more
        async with progress:
            await asyncio.wait_for(progress.wait_for(lambda: len(acked) >= target), 30)

    async def scenario() -> None:
        stop = asyncio.Event()
        async with httpx.AsyncClient(base_url=own_stack.hub_url, timeout=30) as client:
            writer = asyncio.create_task(flow(client, stop))
            await acknowledged(STEP)
            await asyncio.to_thread(own_stack.kill, "events", signal.SIGKILL)
            await acknowledged(STEP)  # events keep flowing into JetStream meanwhile
            await asyncio.to_thread(own_stack.restart, "events")
            await acknowledged(STEP)
            stop.set()
            await writer

    run_async(scenario())
    assert len(acked) >= 3 * STEP
    events = wait_events(own_hub, tid, "scroll", at_least=len(set(acked)))
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids)), "an event was stored twice"
    assert set(acked) <= set(ids), "an acknowledged event was lost"
    # after the screen that opening the page wrote (seq 1), one seq each, no gap
    assert [e["seq"] for e in events] == list(range(2, len(events) + 2))
