"""The platform's figures: trajectory creation, event ingest against raw JetStream publish
(same run, same NATS), check() at 1,000 events, page time-to-first-byte, idle memory.

    .venv/bin/python -m bench.platform
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path

import httpx
import nats

from bench.common import fresh_stack, percentile, summary_ms, table
from runner.stack import Stack
from services.kit import pagetoken
from services.kit.bus import NATS_USER, event_subject

TASK = {
    "test_data": {
        "bench_first_domain": "grocery",
        "task": "На %HOST% добавь кефир.",
        "conditions": [
            {"event_name": "basket_add", "parameters": {"item_id": "g-0052", "amount": 2}},
            {"event_name": "state_changed", "parameters": {"new_state": "bench_grocery_category"}},
        ],
    }
}


async def creation(hub: httpx.AsyncClient, n: int = 200) -> list[float]:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        (await hub.post("/api/trajectories", json={"task": TASK})).raise_for_status()
        times.append(time.perf_counter() - started)
    return times


async def events_url(agent: httpx.AsyncClient, tid: str) -> str:
    """The `_events` address of the trajectory's Продукты page, with its page token."""
    page = await agent.get(f"/t/{tid}/grocery/")
    page.raise_for_status()
    return pagetoken.events_url(page.text)


def click(i: int) -> dict:
    return {"id": uuid.uuid4().hex, "type": "click", "params": {"x": i, "y": i, "target": "a"}}


async def ingest(
    stack: Stack, hub: httpx.AsyncClient, agent: httpx.AsyncClient, batch: int, total: int
) -> tuple[float, float]:
    """Events per second through the hub's `_events` and through raw JetStream publish."""
    tid = (await hub.post("/api/trajectories", json={"task": TASK})).json()["trajectory_id"]
    url = await events_url(agent, tid)
    started = time.perf_counter()
    for start in range(0, total, batch):
        body = [click(i) for i in range(start, start + batch)]
        (await agent.post(url, json=body)).raise_for_status()
    via_hub = total / (time.perf_counter() - started)

    nc = await nats.connect(
        f"nats://127.0.0.1:{stack.processes['nats'].port}",
        user=NATS_USER,
        password=stack.service_token,
    )
    js = nc.jetstream()
    raw_tid = uuid.uuid4().hex
    started = time.perf_counter()
    for start in range(0, total, batch):
        events = [
            {
                **click(i),
                "trajectory_id": raw_tid,
                "ts": time.time(),
                "site": "bench",
                "source": "page",
            }
            for i in range(start, start + batch)
        ]
        await asyncio.gather(
            *(
                js.publish(
                    event_subject(raw_tid),
                    json.dumps(e).encode(),
                    headers={"Nats-Msg-Id": f"{raw_tid}:{e['id']}"},
                )
                for e in events
            )
        )
    raw = total / (time.perf_counter() - started)
    await nc.close()
    return via_hub, raw


async def check_latency(
    hub: httpx.AsyncClient,
    agent: httpx.AsyncClient,
    semantic: bool,
    events: int = 1000,
    n: int = 100,
) -> list[float]:
    """check() over a log of 1,000 events: cart events of the conditions' own family (which
    the verifier must read, the worst case), or tracking events (which it skips)."""
    tid = (await hub.post("/api/trajectories", json={"task": TASK})).json()["trajectory_id"]
    if semantic:
        for i in range(events):
            op = "inc" if i % 2 == 0 else "dec"
            answer = await agent.post(
                f"/t/{tid}/grocery/cart/g-0052",
                data={"op": op},
                headers={"Accept": "application/json"},
            )
            answer.raise_for_status()
    else:
        url = await events_url(agent, tid)
        for start in range(0, events, 100):
            body = [click(i) for i in range(start, start + 100)]
            (await agent.post(url, json=body)).raise_for_status()
    times = []
    for _ in range(n):
        started = time.perf_counter()
        verdict = (await hub.get(f"/api/trajectories/{tid}/check")).json()
        times.append(time.perf_counter() - started)
    assert verdict["total"] == 2
    return times


async def ttfb(
    hub: httpx.AsyncClient, agent: httpx.AsyncClient, path: str, n: int = 100
) -> list[float]:
    tid = (await hub.post("/api/trajectories", json={"task": TASK})).json()["trajectory_id"]
    times = []
    for _ in range(n):
        request = agent.build_request("GET", f"/t/{tid}/grocery{path}")
        started = time.perf_counter()
        response = await agent.send(request, stream=True)
        times.append(time.perf_counter() - started)
        await response.aread()
        await response.aclose()
    return times


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def main() -> None:
    with fresh_stack("grocery") as stack:
        headers = {"Authorization": f"Bearer {stack.token}"}
        async with (
            httpx.AsyncClient(base_url=stack.hub_url, headers=headers, timeout=60) as hub,
            httpx.AsyncClient(base_url=stack.hub_url, timeout=60) as agent,
        ):
            await asyncio.sleep(2)
            memory = {name: rss_mib(p.pid) for name, p in stack.processes.items() if p.pid}
            created = await creation(hub)
            single = await ingest(stack, hub, agent, batch=1, total=1000)
            batched = await ingest(stack, hub, agent, batch=100, total=10_000)
            checks = await check_latency(hub, agent, semantic=True)
            checks_tracking = await check_latency(hub, agent, semantic=False)
            pages = {path: await ttfb(hub, agent, path) for path in ("/", "/c/dairy", "/cart")}
    table(
        "Latency (ms)",
        ["what", "p50", "p99", "mean"],
        [
            ["create trajectory (n=200)", *summary_ms(created)],
            ["check() at 1,000 cart events (n=100)", *summary_ms(checks)],
            ["check() at 1,000 tracking events (n=100)", *summary_ms(checks_tracking)],
            *[[f"TTFB grocery{path} via hub (n=100)", *summary_ms(v)] for path, v in pages.items()],
        ],
    )
    table(
        "Event ingest (events/s)",
        ["mode", "via _events", "raw JetStream", "ratio"],
        [
            [label, f"{hub_rate:,.0f}", f"{raw:,.0f}", f"{hub_rate / raw:.2f}"]
            for label, (hub_rate, raw) in (("single events", single), ("batches of 100", batched))
        ],
    )
    table(
        "Idle memory (RSS, MiB)",
        ["process", "MiB"],
        [[name, f"{mib:.0f}"] for name, mib in memory.items()]
        + [["whole stack", f"{sum(memory.values()):.0f}"]],
    )
    print(
        f"check p50 {percentile([c * 1000 for c in checks], 50):.2f} ms (aim < 10); "
        f"TTFB p50 {percentile([t * 1000 for t in pages['/']], 50):.2f} ms (aim < 20)"
    )


if __name__ == "__main__":
    asyncio.run(main())
