"""Many trajectories at once: K simulated agents over plain HTTP, each replaying a trace of
the reference solver (bench/traces/, from `python -m bench.trace record`) at a set pace and
calling check() after every step as an RL loop would; the same K against a bare endpoint on
the same NATS (bench/baseline.py); 100 trajectories created at once; cart operations under
100 concurrent trajectories.

    .venv/bin/python -m bench.concurrency [--agents 25,50,100,200] [--seconds 20]
        [--each 300] [--profile DIR [--profile-agents K]]

The load generator is this one process (asyncio, one aiohttp session) and it shares the
machine's cores with the stand: every figure includes the generator's own CPU time (about
0.1 ms a request at a hundred at once with aiohttp's pool; httpx's took about 2 ms).

Where a step's CPU goes: at each level, the CPU time each process of the stand spent (its
utime and stime from /proc: the hub, the collector, the verifier, each site, NATS) and this
generator's, over the agent steps done, in milliseconds a step; and what each kind of
request costs on its own (`--each` requests of a kind, 20 at once, one at a time on a
trajectory), in milliseconds a request by process. With `--profile DIR`, one
more pass (`--profile-agents` agents, default the first level's; its figures not reported)
runs with py-spy sampling each Python process of the stand while it holds the GIL (at work,
not waiting on its loop): each one's stacks go to DIR
(`<process>.txt`, py-spy's collapsed format, one stack a line with its sample count) and the
functions that hold the most samples (in themselves, and on the stack) are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiohttp

from bench import baseline, trace
from bench.common import Answer, Hub, fresh_stack, hub_session, percentile, summary_ms, table
from runner.hub import HubFailed, HubRefused
from runner.stack.stack import Stack
from services.kit import pagetoken

Sent = TypeVar("Sent")  # a page's Answer, or a trajectory API answer in its model

AIM = "p99 page ≤ 100 ms and no error"
AIM_AGENTS = 100
KINDS = ("create", "page", "event", "action", "check", "close")
KIND_AT_ONCE = 20  # requests at once when each kind is measured on its own
CART_TASK = "grocery_several_units"
CART_PATH = "/t/{tid}/grocery/cart/g-0052"


@dataclass
class Load:
    """What one load measured: latencies by request kind, the steps (actions) done inside
    its window, and the errors by what went wrong."""

    window_s: float
    started: float = field(default_factory=time.perf_counter)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    actions: int = 0
    # Every step, those after the window too (the CPU time is the whole load's).
    steps: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    # CPU seconds by process over the whole load (`CpuClock`).
    cpu: dict[str, float] = field(default_factory=dict)

    def open(self) -> bool:
        return time.perf_counter() - self.started < self.window_s

    @property
    def rate(self) -> float:
        return self.actions / self.window_s

    @property
    def failed(self) -> int:
        return sum(self.errors.values())

    async def timed(self, kind: str, send: Awaitable[Sent]) -> Sent | None:
        """The answer to one request (a page's, or the trajectory API's in its model), its
        latency kept under `kind`; None (an error counted) for an exception or a status
        other than 2xx/3xx."""
        clock = time.perf_counter()
        try:
            answer = await send
        except (HubFailed, HubRefused) as exc:
            self.errors[f"{kind}: {exc.status or type(exc.__cause__).__name__}"] += 1
            return None
        except (aiohttp.ClientError, TimeoutError) as exc:
            self.errors[f"{kind}: {type(exc).__name__}"] += 1
            return None
        self.latencies[kind].append(time.perf_counter() - clock)
        if isinstance(answer, Answer) and answer.status >= 400:
            self.errors[f"{kind}: {answer.status}"] += 1
            return None
        return answer


GENERATOR = "generator"
TICK = os.sysconf("SC_CLK_TCK")
PY_SPY = str(Path(sys.executable).with_name("py-spy"))
# A frame of py-spy's: `function (path/to/file.py:123)`; the line number dropped.
FRAME_LINE = re.compile(r"\((.*):\d+\)$")


def cpu_seconds(pid: int | str) -> float:
    """A process's CPU time so far (user and system, its threads'), in seconds; 0 where it
    is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def stand_pids(stack: Stack) -> dict[str, int]:
    """The stand's processes (not the bare endpoint beside them): name -> pid."""
    return {n: p.pid for n, p in stack.processes.items() if p.pid and n != baseline.NAME}


class CpuClock:
    """The CPU time of the stand's processes and this generator."""

    def __init__(self, stack: Stack) -> None:
        self.pids = stand_pids(stack)
        self.pids[GENERATOR] = os.getpid()

    def read(self) -> dict[str, float]:
        return {name: cpu_seconds(pid) for name, pid in self.pids.items()}

    def since(self, before: dict[str, float]) -> dict[str, float]:
        return {name: spent - before.get(name, 0.0) for name, spent in self.read().items()}


async def profiled(
    stack: Stack, out: Path, seconds: float, run: Awaitable[Load]
) -> tuple[Load, dict[str, Path]]:
    """`run` with py-spy sampling each Python process of the stand for `seconds`: the load,
    and each process's collapsed stacks."""
    out.mkdir(parents=True, exist_ok=True)
    spies: dict[str, tuple[Path, asyncio.subprocess.Process]] = {}
    for name, pid in stand_pids(stack).items():
        if name == "nats":
            continue
        target = out / f"{name}.txt"
        # Only the samples that hold the GIL: the process at work, not waiting on its loop.
        spy = await asyncio.create_subprocess_exec(
            *(PY_SPY, "record", "--pid", str(pid), "--duration", str(int(seconds)), "--gil"),
            *("--rate", "200", "--format", "raw", "--nonblocking", "--output", str(target)),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        spies[name] = (target, spy)
    load = await run
    for name, (_, spy) in spies.items():
        _, err = await spy.communicate()
        if spy.returncode:
            raise RuntimeError(f"py-spy on {name}: {err.decode(errors='replace')[-500:]}")
    return load, {name: target for name, (target, _) in spies.items()}


def hottest(stacks: Path, top: int = 12) -> list[tuple[str, float, float]]:
    """The functions of a process's collapsed stacks with the most samples: each with the
    share of samples it ran in itself and the share it was on the stack (itself or below)."""
    own: Counter[str] = Counter()
    under: Counter[str] = Counter()
    total = 0
    for line in stacks.read_text(encoding="utf-8").splitlines():
        frames, _, count = line.rpartition(" ")
        if not frames or not count.isdigit():
            continue
        names = [FRAME_LINE.sub(r"(\1)", frame) for frame in frames.split(";")]
        total += int(count)
        own[names[-1]] += int(count)
        for name in set(names):
            under[name] += int(count)
    busiest = sorted(own, key=lambda name: -own[name])[:top]
    return [(name, own[name] / total, under[name] / total) for name in busiest] if total else []


@dataclass
class Level:
    """K agents on the stand, and the same K on the bare endpoint."""

    agents: int
    stand: Load
    bare: Load


class Pace:
    """One agent's clock: a step every `period` seconds on average, jittered by half of it
    either way, from a random start, so that agents never fire in lockstep. An agent late
    for a step (its last answer was slow) does not hurry through the next ones."""

    def __init__(self, period: float) -> None:
        self.period = period
        self.due = time.perf_counter() + random.uniform(0, period)

    async def wait(self) -> None:
        now = time.perf_counter()
        await asyncio.sleep(max(0.0, self.due - now))
        self.due = max(self.due, now) + self.period * random.uniform(0.5, 1.5)


async def episode(hub: Hub, load: Load, recorded: trace.Trace, pace: Pace) -> None:
    """One trajectory: create it, replay the trace with check() after each step, close it;
    the final verdict must pass."""
    await pace.wait()
    created = await load.timed("create", hub.api.create(recorded.task, recorded.name))
    if created is None:
        return
    tid = created.trajectory_id
    # Where the page last loaded on each site posts its events: `_events` path -> with token.
    events: dict[str, str] = {}
    for step in steps_of(recorded, tid):
        await pace.wait()
        kind = step["kind"]
        if kind == "event" and step["path"] not in events:
            load.errors["event: no page served before it"] += 1
            continue
        answer = await load.timed(kind, step_request(hub, step, events))
        keep_events_url(answer, events)
        await load.timed("check", hub.api.check(tid))
        load.actions += load.open()
        load.steps += 1
    await load.timed("close", hub.api.close_trajectory(tid, True))
    verdict = await load.timed("check", hub.api.check(tid))
    if verdict is not None and verdict.ems != 1:
        load.errors[f"final verdict failed: {recorded.name}"] += 1


def steps_of(recorded: trace.Trace, tid: str) -> list[dict[str, Any]]:
    """The trace's steps for the trajectory `tid`."""
    steps: list[dict[str, Any]] = json.loads(json.dumps(recorded.steps).replace("{tid}", tid))
    return steps


def step_request(hub: Hub, step: dict[str, Any], events: dict[str, str]) -> Awaitable[Answer]:
    """A step's request: an event batch (fresh ids) to where the page last served on its
    site posts them (`events`, an `_events` path -> with its token), or the recorded one."""
    if step["kind"] == "event":
        batch = [{**event, "id": uuid.uuid4().hex} for event in step["body"]]
        return hub.send("POST", events[step["path"]], json=batch)
    headers = {"Accept": step["accept"]} if "accept" in step else None
    return hub.send(step["method"], step["path"], data=step["body"], headers=headers)


def keep_events_url(answer: object, events: dict[str, str]) -> None:
    """Where a page (a step's answer) posts its events, kept in `events`."""
    if isinstance(answer, Answer) and 'name="wpb-page"' in (html := answer.text):
        url = pagetoken.events_url(html)
        events[url.partition("?")[0]] = url


async def stand_level(
    hub: Hub, recorded: list[trace.Trace], agents: int, seconds: float, pace: float
) -> Load:
    """`agents` agents, each taking the traces in turn, starting trajectories until the
    window ends and finishing the one it is in."""
    load = Load(seconds)

    async def agent(index: int) -> None:
        clock = Pace(pace)
        while load.open():
            await episode(hub, load, recorded[index % len(recorded)], clock)
            index += 1

    await asyncio.gather(*(agent(i) for i in range(agents)))
    return load


async def repeat(load: Load, agents: int, action: Callable[[int], Awaitable[None]]) -> None:
    """`agents` loops of `action` (given the agent's index) until the load's window ends."""

    async def loop(index: int) -> None:
        while load.open():
            await action(index)
            load.actions += load.open()

    await asyncio.gather(*(loop(i) for i in range(agents)))


async def baseline_level(
    hub: Hub, url: str, key: str, agents: int, seconds: float, pace: float
) -> Load:
    """The same agents at the same pace against the bare endpoint, one request per step."""
    load = Load(seconds)
    clocks = [Pace(pace) for _ in range(agents)]

    async def step(index: int) -> None:
        await clocks[index].wait()
        await load.timed("probe", hub.send("POST", f"{url}/probe/{key}", json={"agent": index}))

    await repeat(load, agents, step)
    return load


async def create_many(hub: Hub, recorded: trace.Trace, n: int) -> tuple[Load, list[str]]:
    """`n` trajectories of the recorded task created at once: the latencies, and their ids."""
    load = Load(0)
    answers = await asyncio.gather(
        *(load.timed("create", hub.api.create(recorded.task, recorded.name)) for _ in range(n))
    )
    return load, [a.trajectory_id for a in answers if a is not None]


async def cart_level(hub: Hub, grocery: trace.Trace, seconds: float) -> Load:
    """AIM_AGENTS trajectories, each adding one more of a product and taking it away again,
    back to back."""
    _, tids = await create_many(hub, grocery, AIM_AGENTS)
    done = [0] * len(tids)
    load = Load(seconds)

    async def toggle(index: int) -> None:
        done[index] += 1
        op = {"op": "inc" if done[index] % 2 else "dec"}
        json_please = {"Accept": "application/json"}
        cart = hub.send("POST", CART_PATH.format(tid=tids[index]), data=op, headers=json_please)
        await load.timed("cart", cart)

    await repeat(load, len(tids), toggle)
    return load


async def warm_up(hub: Hub, recorded: list[trace.Trace]) -> None:
    """Every trace once, at full speed, before any figure: templates and connections are
    warm, and a trace that no longer solves its task stops the benchmark here."""
    load = Load(0)
    await asyncio.gather(*(episode(hub, load, r, Pace(0)) for r in recorded))
    if load.errors:
        raise RuntimeError(f"the traces do not replay cleanly: {dict(load.errors)}")


Send = Callable[[], Awaitable[object]]  # one request, sent again at each call


async def kind_costs(
    hub: Hub, clock: CpuClock, recorded: list[trace.Trace], each: int, at_once: int
) -> dict[str, Load]:
    """The CPU time of each kind of request on its own: the traces replayed on at least
    `at_once` trajectories, every trace on the same number (no check between steps); then,
    kind by kind, `each` requests of that kind taken from the trajectories in turn (of the
    actions, those that can be taken twice), `at_once` at a time but one at a time on a
    trajectory, as its agent sends them, with the stand's processes' CPU time read around
    them (a `Load` a kind: `steps` its requests, `cpu` its time)."""
    made: dict[str, list[list[Send]]] = defaultdict(list)
    replay = Load(0)
    for recorded_trace in recorded * -(-at_once // len(recorded)):
        created = await hub.api.create(recorded_trace.task, recorded_trace.name)
        mine: dict[str, list[Send]] = defaultdict(list)
        turn = asyncio.Lock()  # the trajectory's agent: one request at a time
        events: dict[str, str] = {}
        for step in steps_of(recorded_trace, created.trajectory_id):
            answer = await replay.timed(step["kind"], step_request(hub, step, events))
            keep_events_url(answer, events)
            mine[step["kind"]].append(partial(step_request, hub, step, dict(events)))
        # The actions that can be taken again (not an order already placed: 409).
        mine["action"] = [a for a in mine["action"] if await Load(0).timed("again", a())]
        mine["check"].append(partial(hub.api.check, created.trajectory_id))
        for kind, sends in mine.items():
            made[kind].append([partial(in_turn, turn, send) for send in sends])
    if replay.errors:
        raise RuntimeError(f"the traces do not replay cleanly: {dict(replay.errors)}")
    opened: list[str] = []

    async def create(index: int) -> None:
        chosen = recorded[index % len(recorded)]
        opened.append((await hub.api.create(chosen.task, chosen.name)).trajectory_id)

    made["create"] = [[partial(create, index) for index in range(each)]]
    costs: dict[str, Load] = {}
    for kind in KINDS:
        if kind == "close":
            made[kind] = [[partial(hub.api.close_trajectory, tid, True) for tid in opened]]
        before = clock.read()
        costs[kind] = await send_each(kind, interleaved(made[kind]), each, at_once)
        costs[kind].cpu = clock.since(before)
    return costs


async def in_turn(turn: asyncio.Lock, request: Send) -> object:
    async with turn:
        return await request()


def interleaved(lists: list[list[Send]]) -> list[Send]:
    """The first of each list, then the second of each, …"""
    longest = max((len(sends) for sends in lists), default=0)
    return [sends[i] for i in range(longest) for sends in lists if i < len(sends)]


async def send_each(kind: str, sends: list[Send], count: int, at_once: int) -> Load:
    """`count` requests of `sends` in turn (each at most once where it is a `close`),
    `at_once` at a time: their latencies and errors, `steps` their number."""
    load = Load(0)
    load.steps = min(count, len(sends)) if kind == "close" else count
    gate = asyncio.Semaphore(at_once)

    async def one(index: int) -> None:
        async with gate:
            await load.timed(kind, sends[index % len(sends)]())

    await asyncio.gather(*(one(index) for index in range(load.steps)))
    return load


@dataclass
class Measured:
    levels: list[Level]
    created: Load
    cart: Load
    # Each request kind on its own (`kind_costs`).
    kinds: dict[str, Load]
    # Where `--profile` wrote each process's stacks (none without it).
    stacks: dict[str, Path] = field(default_factory=dict)


async def measure(
    levels: list[int],
    seconds: float,
    pace: float,
    profile: Path | None,
    profile_agents: int,
    each: int,
) -> Measured:
    """Every level against the stand (its processes' CPU time read around it) and the bare
    endpoint, then the creation burst, the cart operations and each request kind on its own
    (`each` of a kind), all on one fresh stack; with
    `profile`, one more pass of `profile_agents` agents under py-spy (its figures not
    reported: the sampling costs CPU too)."""
    recorded = trace.load()
    grocery = next(r for r in recorded if r.name == CART_TASK)
    with fresh_stack() as stack:
        bare_url = baseline.start(stack)
        clock = CpuClock(stack)
        async with hub_session(stack, max([*levels, AIM_AGENTS, profile_agents]) + 20) as hub:
            await warm_up(hub, recorded)
            _, (key,) = await create_many(hub, grocery, 1)
            measured = []
            for agents in levels:
                before = clock.read()
                stand = await stand_level(hub, recorded, agents, seconds, pace)
                stand.cpu = clock.since(before)
                bare = await baseline_level(hub, bare_url, key, agents, seconds, pace)
                measured.append(Level(agents, stand, bare))
            created, _ = await create_many(hub, grocery, AIM_AGENTS)
            cart = await cart_level(hub, grocery, seconds)
            kinds = await kind_costs(hub, clock, recorded, each, KIND_AT_ONCE)
            stacks: dict[str, Path] = {}
            if profile is not None:
                level = stand_level(hub, recorded, profile_agents, seconds, pace)
                _, stacks = await profiled(stack, profile, seconds, level)
    return Measured(measured, created, cart, kinds, stacks)


def ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q) * 1000:.1f}" if values else "-"


def aim(level: Level) -> str:
    if level.agents != AIM_AGENTS:
        return ""
    met = percentile(level.stand.latencies["page"], 99) <= 0.1 and not level.stand.failed
    return f"{AIM}: {'met' if met else 'not met'}"


def cpu_report(levels: list[Level]) -> None:
    """Each process's CPU time a step at each level (a row a process, a column a level), the
    stand's in all and the generator's beside."""
    names = sorted(
        {name for level in levels for name in level.stand.cpu} - {GENERATOR},
        key=lambda name: (name not in ("hub", "events", "verifier", "nats"), name),
    )

    def per_step(level: Level, spent: float) -> str:
        return f"{spent / max(level.stand.steps, 1) * 1000:.2f}"

    rows = [
        [name, *(per_step(level, level.stand.cpu.get(name, 0.0)) for level in levels)]
        for name in names
    ]
    rows.append(
        [
            "stand",
            *(per_step(level, sum(level.stand.cpu.get(n, 0.0) for n in names)) for level in levels),
        ]
    )
    rows.append(
        [GENERATOR, *(per_step(level, level.stand.cpu.get(GENERATOR, 0.0)) for level in levels)]
    )
    rows.append(["(steps)", *(str(level.stand.steps) for level in levels)])
    table(
        "The stand's CPU time an agent step (ms), by process; the load generator's beside",
        ["process", *(f"{level.agents} agents" for level in levels)],
        rows,
    )


def kind_report(kinds: dict[str, Load]) -> None:
    """Each kind's CPU time a request, by process (the sites together), the stand's in all."""
    core = ("hub", "events", "verifier", "nats")

    def per_request(load: Load, names: list[str]) -> str:
        return f"{sum(load.cpu.get(n, 0.0) for n in names) / max(load.steps, 1) * 1000:.2f}"

    rows = []
    for kind, load in kinds.items():
        sites = [name for name in load.cpu if name.startswith("site-")]
        rows.append(
            [kind, str(load.steps), str(load.failed)]
            + [per_request(load, [name]) for name in core]
            + [per_request(load, sites), per_request(load, [*core, *sites])]
        )
    table(
        f"The stand's CPU time a request, by kind on its own ({KIND_AT_ONCE} at once; ms)",
        ["kind", "n", "errors", *core, "sites", "stand"],
        rows,
    )
    for load in kinds.values():
        for what, count in load.errors.most_common(5):
            print(f"error: {what} × {count}")


def profile_report(stacks: dict[str, Path]) -> None:
    for name, path in stacks.items():
        table(
            f"py-spy, {name}: the functions with the most samples ({path})",
            ["function (file)", "own", "on the stack"],
            [[function, f"{own:.1%}", f"{under:.1%}"] for function, own, under in hottest(path)],
        )


def report(levels: list[Level], created: Load, cart: Load) -> None:
    table(
        "The stand under K agents: latency by request kind (ms)",
        ["agents", "kind", "n", "p50", "p99", "mean"],
        [
            [str(level.agents), kind, str(len(times)), *summary_ms(times)]
            for level in levels
            for kind in KINDS
            if (times := level.stand.latencies[kind])
        ],
    )
    table(
        "Actions/s and errors; the bare endpoint (KV read + acked publish) at the same load",
        ["agents", "actions/s", "errors", "page p99", "bare/s", "bare p50", "bare p99",
         "page p99 ÷ bare p99", "aim"],
        [
            [str(level.agents), f"{level.stand.rate:.1f}", str(level.stand.failed),
             ms(page, 99), f"{level.bare.rate:.1f}", ms(probe, 50), ms(probe, 99),
             f"{percentile(page, 99) / percentile(probe, 99):.1f}" if page and probe else "-",
             aim(level)]
            for level in levels
            for page, probe in [(level.stand.latencies["page"], level.bare.latencies["probe"])]
        ],
    )  # fmt: skip
    table(
        "At scale",
        ["what", "figure", "aim"],
        [
            [f"{AIM_AGENTS} trajectories created at once, p99 (errors {created.failed})",
             f"{ms(created.latencies['create'], 99)} ms", "≤ 500 ms"],
            [f"cart operations under {AIM_AGENTS} concurrent trajectories, sustained "
             f"(p99 {ms(cart.latencies['cart'], 99)} ms, errors {cart.failed})",
             f"{cart.rate:.0f}/s", "≥ 320/s"],
        ],
    )  # fmt: skip
    errors = Counter[str]()
    for load in (*(x for level in levels for x in (level.stand, level.bare)), created, cart):
        errors.update(load.errors)
    for what, count in errors.most_common(10):
        print(f"error: {what} × {count}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.concurrency", description=__doc__)
    parser.add_argument("--agents", default="25,50,100,200", help="levels of K, comma-separated")
    parser.add_argument("--seconds", type=float, default=20, help="steady window per level")
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between an agent's steps")
    parser.add_argument(
        "--each", type=int, default=300, help="requests of each kind measured on its own"
    )
    parser.add_argument("--profile", type=Path, help="py-spy the stand's processes, stacks here")
    parser.add_argument("--profile-agents", type=int, help="the profiled pass's K (the first)")
    args = parser.parse_args(argv)
    levels = [int(k) for k in args.agents.split(",")]
    if args.profile is not None and not Path(PY_SPY).exists():
        parser.error(f"--profile needs py-spy beside the interpreter ({PY_SPY}): make setup")
    result = asyncio.run(
        measure(
            levels,
            args.seconds,
            args.pace,
            args.profile,
            args.profile_agents or levels[0],
            args.each,
        )
    )
    report(result.levels, result.created, result.cart)
    cpu_report(result.levels)
    kind_report(result.kinds)
    profile_report(result.stacks)


if __name__ == "__main__":
    main()
