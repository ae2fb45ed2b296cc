"""The oracle on the suite at 1, 2 and 4 workers: wall time, tasks per minute, memory peak,
and where a task's time goes (browser, pages, events, check); then the robustness
measurements (a start state's cost at creation).

    .venv/bin/python -m bench.suite [--tasks FILTER] [--workers 1,2,4]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.common import fresh_stack, hub_session, summary_ms, table
from runner.evaluate import RunPlan, evaluate, select_tasks
from runner.harness import get_harness
from runner.settings import TASKS_DIR
from runner.stack import Stack
from services.core.models.task import Task, TestData
from services.kit.web import service_headers


def memory_used_mib() -> float:
    """Memory in use on the machine (MemTotal - MemAvailable)."""
    info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    return (int(info["MemTotal"].split()[0]) - int(info["MemAvailable"].split()[0])) / 1024


class PeakMemory:
    """Samples memory in use every 0.2 s; `peak` is the highest minus the baseline."""

    def __init__(self) -> None:
        self.baseline = memory_used_mib()
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, memory_used_mib() - self.baseline)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def server_seconds(stack: Stack) -> dict[str, float]:
    """Seconds each service spent answering requests so far (Prometheus histogram sums)."""
    spent = {}
    for name, process in stack.processes.items():
        if name == "nats":
            continue
        credential = service_headers(stack.service_token)
        text = httpx.get(f"{process.url}/metrics", headers=credential).text
        sums = re.findall(r"^wpb_http_request_seconds_sum\{[^}]*\} (\S+)$", text, re.M)
        spent[name] = sum(float(value) for value in sums)  # over the service's routes
    return spent


# A start state of ten events on Продукты: ten cart lines, each replayed by the site.
START_ITEMS = [f"g-{n:04d}" for n in range(1, 11)]
CREATIONS = 30  # trajectories created of each kind, interleaved


def start_state_task(events: int) -> Task:
    """A grocery task whose start state holds `events` cart lines (none: an empty one)."""
    data: TestData = {
        "bench_first_domain": "grocery",
        "bench_first_state": "bench_grocery_basket",
        "task": "На %HOST% положи в корзину что-нибудь.",
        "conditions": [{"event_name": "basket_add"}],
    }
    if events:
        data["start_state"] = [
            {"event_name": "basket_add", "parameters": {"item_id": item}}
            for item in START_ITEMS[:events]
        ]
    return {"test_data": data}


async def start_state_creation(stack: Stack) -> list[list[str]]:
    """Trajectory creation with a 10-event start state against an empty one, created in
    turn on one stack (p50, p99, mean ms), and their ratio of means."""
    tasks = {"empty": start_state_task(0), "10 events": start_state_task(10)}
    spent: dict[str, list[float]] = {kind: [] for kind in tasks}
    async with hub_session(stack) as hub:
        for _ in range(CREATIONS):
            for kind, task in tasks.items():
                started = time.perf_counter()
                await hub.api.create(task)
                spent[kind].append(time.perf_counter() - started)
    rows = [[kind, *summary_ms(values)] for kind, values in spent.items()]
    ratio = statistics.fmean(spent["10 events"]) / statistics.fmean(spent["empty"])
    rows.append(["ratio (10 events / empty, means)", "", "", f"{ratio:.2f}×"])
    return rows


def robustness() -> None:
    """The robustness measurements, on a stack of their own."""
    with fresh_stack() as stack:
        creation = asyncio.run(start_state_creation(stack))
    table(
        f"Trajectory creation, start state ({CREATIONS} each, ms)",
        ["start state", "p50", "p99", "mean"],
        creation,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default=None)
    parser.add_argument("--workers", default="1,2,4")
    args = parser.parse_args()
    refs = select_tasks(TASKS_DIR, args.tasks, None)
    rows, phases_rows = [], []
    for workers in [int(w) for w in args.workers.split(",")]:
        with fresh_stack() as stack, tempfile.TemporaryDirectory() as out:
            before = server_seconds(stack)
            with PeakMemory() as memory:
                started = time.monotonic()
                result = asyncio.run(
                    evaluate(
                        stack.hub_url,
                        stack.token,
                        get_harness("oracle"),
                        refs,
                        Path(out),
                        RunPlan(workers=workers, time_limit=180, today="2026-11-29"),
                        lambda _: None,
                    )
                )
                wall = time.monotonic() - started
            after = server_seconds(stack)
        records = [r for r in result.records if r.status == "ok"]
        passed = sum(r.ems == 1 for r in records)
        rows.append(
            [
                str(workers),
                str(len(refs)),
                f"{passed}/{len(refs)}",
                f"{wall:.1f}",
                f"{len(refs) / wall * 60:.1f}",
                f"{memory.peak:.0f}",
            ]
        )
        n = max(1, len(records))
        spent = {name: (after[name] - before.get(name, 0)) / n for name in after}
        pages = sum(v for k, v in spent.items() if k.startswith("site-"))
        agent = statistics.fmean(r.phases["agent"] for r in records) if records else 0
        check = statistics.fmean(r.phases["check"] for r in records) if records else 0
        create = statistics.fmean(r.phases["create"] for r in records) if records else 0
        phases_rows.append(
            [
                str(workers),
                f"{agent:.2f}",
                f"{pages:.3f}",
                f"{max(0.0, agent - pages):.2f}",
                f"{spent.get('events', 0):.3f}",
                f"{check:.3f}",
                f"{create:.3f}",
            ]
        )
    table(
        "Oracle on the suite",
        ["workers", "tasks", "EMS 1", "wall s", "tasks/min", "memory peak MiB"],
        rows,
    )
    table(
        "Where a task's time goes (mean seconds per task)",
        [
            "workers",
            "agent",
            "site pages (server)",
            "browser, proxy, oracle (the rest)",
            "collector",
            "check()",
            "create",
        ],
        phases_rows,
    )
    robustness()


if __name__ == "__main__":
    main()
