"""The platform's figures, each beside the aim it is held to: trajectory creation, event
ingest against raw JetStream publish (same run, same NATS) and against a bare FastAPI
endpoint that publishes (the floor of any HTTP path), check() at 1,000 events, page
time-to-first-byte, and the whole stack's cold start and idle memory.

    .venv/bin/python -m bench.platform
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import nats

from bench import baseline
from bench.common import Hub, fresh_stack, hub_session, percentile, summary_ms, table
from runner.stack.stack import Stack
from runner.wait import WaitTimeout, until
from services.kit import pagetoken
from services.kit.bus import NATS_USER, event_subject

ROUNDS = 5  # of the ingest rates
IDLE_MIB = 0.5  # a process is idle when its memory moves less than this in half a second
IDLE_WAIT_S = 10.0

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


async def new_trajectory(hub: Hub) -> str:
    return (await hub.api.create(TASK)).trajectory_id


async def creation(hub: Hub, n: int = 200) -> list[float]:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        await new_trajectory(hub)
        times.append(time.perf_counter() - started)
    return times


async def events_url(hub: Hub, tid: str) -> str:
    """The `_events` address of the trajectory's Продукты page, with its page token."""
    page = await hub.send("GET", f"/t/{tid}/grocery/")
    page.raise_for_status()
    return pagetoken.events_url(page.text)


def click(i: int) -> dict:
    return {"id": uuid.uuid4().hex, "type": "click", "params": {"x": i, "y": i, "target": "a"}}


async def post_events(hub: Hub, url: str, batch: int, total: int) -> float:
    """Events per second posted to `url`, `batch` a request, one request at a time."""
    started = time.perf_counter()
    for start in range(0, total, batch):
        answer = await hub.send("POST", url, json=[click(i) for i in range(start, start + batch)])
        answer.raise_for_status()
    return total / (time.perf_counter() - started)


async def raw_publish(stack: Stack, batch: int, total: int) -> float:
    """Events per second published straight to JetStream, `batch` awaited together."""
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
            {**click(i), "trajectory_id": raw_tid, "ts": time.time(), "site": "b", "source": "page"}
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
    rate = total / (time.perf_counter() - started)
    await nc.close()
    return rate


async def bare_endpoint(hub: Hub, url: str, key: str, total: int) -> float:
    """Requests per second to the bare endpoint (one KV read, one acknowledged publish), one
    at a time: what any HTTP path in Python on this machine can do at best."""
    started = time.perf_counter()
    for i in range(total):
        (await hub.send("POST", f"{url}/probe/{key}", json={"agent": i})).raise_for_status()
    return total / (time.perf_counter() - started)


async def check_latency(hub: Hub, semantic: bool, events: int = 1000, n: int = 100) -> list[float]:
    """check() over a log of 1,000 events: cart events of the conditions' own family (which
    the verifier must read, the worst case), or tracking events."""
    tid = await new_trajectory(hub)
    if semantic:
        for i in range(events):
            answer = await hub.send(
                "POST",
                f"/t/{tid}/grocery/cart/g-0052",
                data={"op": "inc" if i % 2 == 0 else "dec"},
                headers={"Accept": "application/json"},
            )
            answer.raise_for_status()
    else:
        await post_events(hub, await events_url(hub, tid), 100, events)
    times = []
    for _ in range(n):
        started = time.perf_counter()
        verdict = await hub.api.check(tid)
        times.append(time.perf_counter() - started)
    assert verdict.total == 2
    return times


async def ttfb(hub: Hub, path: str, n: int = 100) -> list[float]:
    tid = await new_trajectory(hub)
    times = []
    for _ in range(n):
        request = hub.session.get(f"/t/{tid}/grocery{path}", allow_redirects=False)
        started = time.perf_counter()
        async with request as response:
            times.append(time.perf_counter() - started)
            await response.read()
    return times


def memory_mib(pid: int) -> tuple[float, float]:
    """A process's resident memory (RSS) and its proportional share (PSS: a page it shares
    with other processes, such as the Python runtime's libraries, counted by its share)."""
    rss = int(_field(Path(f"/proc/{pid}/status"), "VmRSS:"))
    pss = int(_field(Path(f"/proc/{pid}/smaps_rollup"), "Pss:"))
    return rss / 1024, pss / 1024


def _field(path: Path, name: str) -> str:
    return next(line.split()[1] for line in path.read_text().splitlines() if line.startswith(name))


def whole_stack() -> tuple[float, dict[str, tuple[float, float]]]:
    """The embedded stack with every site (ten processes): seconds from a cold start to
    ready, and each process's memory (RSS, PSS) once idle: no process's changed by more
    than IDLE_MIB in half a second (or as it is after IDLE_WAIT_S)."""
    started = time.perf_counter()
    with fresh_stack() as stack:
        ready = time.perf_counter() - started
        readings = [memory(stack)]

        def idle() -> bool:
            readings.append(memory(stack))
            before, now = readings[-2:]
            return all(
                abs(a - b) <= IDLE_MIB
                for name in now
                for a, b in zip(before.get(name, (0, 0)), now[name], strict=True)
            )

        with contextlib.suppress(WaitTimeout):
            until(idle, IDLE_WAIT_S, "the stack's memory settled", every=0.5)
        return ready, readings[-1]


def memory(stack: Stack) -> dict[str, tuple[float, float]]:
    """Each process's (RSS, PSS) in MiB."""
    return {name: memory_mib(p.pid) for name, p in stack.processes.items() if p.pid}


@dataclass
class Figures:
    created: list[float]
    single: float  # events/s via _events, one a request
    single_raw: float  # events/s published straight, one at a time
    single_bare: float  # requests/s to the bare endpoint, one at a time
    batched: float
    batched_raw: float
    checks: list[float]
    checks_tracking: list[float]
    pages: dict[str, list[float]]


async def measure() -> Figures:
    with fresh_stack("grocery") as stack:
        bare_url = baseline.start(stack)
        async with hub_session(stack) as hub:
            key = await new_trajectory(hub)
            url = await events_url(hub, key)
            # Rates in alternating rounds, the median of each: a drift of the machine's speed
            # (another process, the CPU's clock) falls on both sides of a ratio.
            rounds = [
                (
                    await post_events(hub, url, 1, 500),
                    await raw_publish(stack, 1, 500),
                    await bare_endpoint(hub, bare_url, key, 500),
                    await post_events(hub, url, 100, 5_000),
                    await raw_publish(stack, 100, 5_000),
                )
                for _ in range(ROUNDS)
            ]
            single, single_raw, single_bare, batched, batched_raw = (
                statistics.median(rates) for rates in zip(*rounds, strict=True)
            )
            return Figures(
                created=await creation(hub),
                single=single,
                single_raw=single_raw,
                single_bare=single_bare,
                batched=batched,
                batched_raw=batched_raw,
                checks=await check_latency(hub, semantic=True),
                checks_tracking=await check_latency(hub, semantic=False),
                pages={path: await ttfb(hub, path) for path in ("/", "/c/dairy", "/cart")},
            )


def ms(values: list[float], q: float) -> float:
    return percentile(values, q) * 1000


def aim_row(figure: str, now: str, aim: str, met: bool) -> list[str]:
    return [figure, now, aim, "met" if met else "not met"]


async def main() -> None:
    ready, memory = whole_stack()
    f = await measure()
    single, batched = f.single / f.single_raw, f.batched / f.batched_raw
    table(
        "Latency (ms)",
        ["what", "p50", "p99", "mean"],
        [
            ["create trajectory (n=200)", *summary_ms(f.created)],
            ["check() at 1,000 cart events (n=100)", *summary_ms(f.checks)],
            ["check() at 1,000 tracking events (n=100)", *summary_ms(f.checks_tracking)],
            *[
                [f"TTFB grocery{path} via hub (n=100)", *summary_ms(v)]
                for path, v in f.pages.items()
            ],
        ],
    )
    table(
        "Event ingest (events/s); the bare endpoint: one KV read and one publish a request",
        ["mode", "via _events", "raw JetStream", "ratio", "bare endpoint", "its ratio"],
        [
            [
                "single events",
                f"{f.single:,.0f}",
                f"{f.single_raw:,.0f}",
                f"{single:.2f}",
                f"{f.single_bare:,.0f}",
                f"{f.single_bare / f.single_raw:.2f}",
            ],
            ["batches of 100", f"{f.batched:,.0f}", f"{f.batched_raw:,.0f}", f"{batched:.2f}"],
        ],
    )
    rss, pss = (sum(mib[i] for mib in memory.values()) for i in (0, 1))
    table(
        "The whole embedded stack (ten processes): idle memory (MiB)",
        ["process", "RSS", "PSS"],
        [[name, f"{r:.0f}", f"{p:.0f}"] for name, (r, p) in memory.items()]
        + [["whole stack", f"{rss:.0f}", f"{pss:.0f}"]],
    )
    created, checks, tracking = f.created, f.checks, f.checks_tracking
    table(
        "Against the aims (issue 14)",
        ["figure", "now", "aim", ""],
        [
            aim_row(
                "single events via _events ÷ raw publish", f"{single:.2f}", "≥ 0.33", single >= 0.33
            ),
            aim_row(
                "batches of 100 via _events ÷ raw publish",
                f"{batched:.2f}",
                "≥ 0.8",
                batched >= 0.8,
            ),
            aim_row(
                "check() at 1,000 cart events, p50",
                f"{ms(checks, 50):.1f} ms",
                "≤ 5 ms",
                ms(checks, 50) <= 5,
            ),
            aim_row(
                "check() at 1,000 tracking events, p50",
                f"{ms(tracking, 50):.1f} ms",
                "≤ 5 ms",
                ms(tracking, 50) <= 5,
            ),
            aim_row(
                "trajectory creation, p50 / p99",
                f"{ms(created, 50):.1f} / {ms(created, 99):.1f} ms",
                "≤ 5 / 10 ms",
                ms(created, 50) <= 5 and ms(created, 99) <= 10,
            ),
            aim_row(
                "whole stack idle memory (PSS; RSS counts shared libraries ten times)",
                f"{pss:.0f} MiB (RSS {rss:.0f})",
                "≤ 600 MiB",
                pss <= 600,
            ),
            aim_row("whole stack cold start to ready", f"{ready:.1f} s", "≤ 5 s", ready <= 5),
        ],
    )


if __name__ == "__main__":
    asyncio.run(main())
