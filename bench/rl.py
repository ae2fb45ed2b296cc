"""Rollouts through the OpenEnv environment (integrations/openenv, docs/training.md), as a trainer
makes them: N sessions at once, each a loop of ten-step rollouts of a scripted random policy (a
random link or button of the tree, clicked) on released tasks drawn by seed, over openenv's own
client. For each N: rollouts a minute (and an hour), calls (resets and steps) a second, the
reset's latency (a trajectory and its first page in the session's cleared tab, p50 and p99), the
memory each session adds (the server and its Chromium, resident), and the machine's CPU seconds
a call costs (every process of the stand: this machine's rate cannot pass its cores over that);
after each N, the sessions and trajectories left open (they must be none).

    .venv/bin/python -m bench.rl [--sessions 1,8,32,64] [--seconds 60] [--steps 10]

The aims of issue 40, on this 2-core machine: reset p50 ≤ 300 ms and ≥ 3,000 ten-step rollouts
an hour at 32 sessions, nothing left open.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from webpagebench_env import WebpagebenchAction, WebpagebenchEnv
from webpagebench_env.server.app import spawned
from webpagebench_env.tree import refs

from bench.common import fresh_stack, percentile, table

AIM_SESSIONS = 32
AIM_RESET_MS = 300
AIM_PER_HOUR = 3000
CLICKABLE = "link|button"


@dataclass
class Load:
    """What one concurrency measured."""

    sessions: int
    window_s: float  # from the first reset to the last rollout's end
    resets: list[float] = field(default_factory=list)
    rollouts: int = 0
    steps: int = 0
    errors: int = 0
    cpu_s: float = 0.0
    rss_mb: float = 0.0

    @property
    def per_minute(self) -> float:
        return self.rollouts / self.window_s * 60


def busy_cpu_s() -> float:
    """The machine's CPU seconds spent so far (every core, all but idle and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = sum(fields) - fields[3] - fields[4]
    return busy / os.sysconf("SC_CLK_TCK")


def tree_rss_mb(pid: int) -> float:
    """The resident memory of a process and its descendants (its Chromium), in MiB."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            status = (entry / "status").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        rss[int(entry.name)] = int(found.group(1)) if found else 0
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += rss.get(current, 0)
        todo.extend(children.get(current, []))
    return total / 1024


def server_pid(port: int) -> int:
    """The OpenEnv server's process: the one whose command line names its port."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "webpagebench_env.server.app" in line and f"--port {port}" in line:
                return int(entry.name)
    raise LookupError("no OpenEnv server process")


async def rollouts(url: str, load: Load, steps: int, deadline: float, seed: int) -> None:
    """One session: ten-step rollouts of the random policy, a new one until the deadline
    (the one under way then is finished)."""
    rng = random.Random(seed)
    async with WebpagebenchEnv(base_url=url, message_timeout_s=600) as env:
        while time.monotonic() < deadline:
            started = time.monotonic()
            try:
                result = await env.reset(seed=rng.randrange(2**31), max_steps=steps)
            except Exception:
                load.errors += 1
                continue
            load.resets.append(time.monotonic() - started)
            for _ in range(steps):
                choices = refs(result.observation.axtree, CLICKABLE)
                action = f"click({rng.choice(choices)[1]!r})" if choices else "scroll(0, 600)"
                result = await env.step(WebpagebenchAction(action=action))
                if result.observation.infra_error:
                    load.errors += 1
                load.steps += 1
                if result.done:
                    break
            load.rollouts += 1


async def measure(url: str, pid: int, sessions: int, seconds: float, steps: int) -> Load:
    """N sessions starting rollouts for `seconds`; the figures over the whole time they took
    (the last rollouts finished)."""
    load = Load(sessions, seconds)
    before_rss = tree_rss_mb(pid)
    started, cpu = time.monotonic(), busy_cpu_s()
    running = [
        asyncio.create_task(rollouts(url, load, steps, started + seconds, seed))
        for seed in range(sessions)
    ]
    await asyncio.sleep(seconds * 0.8)
    load.rss_mb = (tree_rss_mb(pid) - before_rss) / sessions
    await asyncio.gather(*running)
    load.window_s = time.monotonic() - started
    load.cpu_s = busy_cpu_s() - cpu
    return load


def left_open(hub: str, url: str) -> tuple[int, int]:
    """The trajectories the stand holds open, and the browser contexts the server holds
    (after a moment for the last sessions to close)."""
    time.sleep(2)
    metrics = httpx.get(f"{hub}/metrics", timeout=10).text
    found = re.search(r"^wpb_trajectories_open (\S+)", metrics, re.MULTILINE)
    trajectories = int(float(found.group(1))) if found else -1
    held = httpx.get(f"{url}/webpagebench/open", timeout=10).json()
    return trajectories, int(held["contexts"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", default="1,8,32,64", help="sessions at once, each run")
    parser.add_argument("--seconds", type=float, default=60, help="each run's window")
    parser.add_argument("--steps", type=int, default=10, help="a rollout's steps")
    args = parser.parse_args()
    counts = [int(n) for n in args.sessions.split(",") if n]
    rows = []
    with fresh_stack() as stack:
        options = ("--sessions", str(max(counts)), "--max-steps", str(args.steps), "--idle", "120")
        with spawned(stack.hub_url, stack.token, *options) as url:
            pid = server_pid(int(url.rsplit(":", 1)[1]))
            asyncio.run(measure(url, pid, 1, 5, args.steps))  # Chromium started, pages cached
            for sessions in counts:
                load = asyncio.run(measure(url, pid, sessions, args.seconds, args.steps))
                trajectories, held = left_open(stack.hub_url, url)
                resets = [r * 1000 for r in load.resets]
                cpu_step = load.cpu_s / max(load.steps + len(load.resets), 1)
                rows.append(
                    [
                        str(sessions),
                        f"{load.per_minute:.1f}",
                        f"{load.per_minute * 60:.0f}",
                        f"{(load.steps + len(load.resets)) / load.window_s:.2f}",
                        f"{percentile(resets, 50):.0f}" if resets else "-",
                        f"{percentile(resets, 99):.0f}" if resets else "-",
                        f"{statistics.fmean(resets):.0f}" if resets else "-",
                        f"{load.rss_mb:.0f}",
                        f"{cpu_step:.3f}",
                        f"{(os.cpu_count() or 1) / cpu_step:.1f}",
                        str(load.errors),
                        f"{trajectories}/{held}",
                    ]
                )
    table(
        "OpenEnv rollouts (ten-step, random policy) at N sessions",
        [
            "sessions",
            "rollouts/min",
            "rollouts/h",
            "calls/s",
            "reset p50 ms",
            "reset p99 ms",
            "reset mean ms",
            "MiB/session",
            "CPU s/call",
            "ceiling calls/s",
            "errors",
            "left open (traj/ctx)",
        ],
        rows,
    )
    print(
        f"aims at {AIM_SESSIONS} sessions: reset p50 ≤ {AIM_RESET_MS} ms,"
        f" ≥ {AIM_PER_HOUR} rollouts/h, nothing left open"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
