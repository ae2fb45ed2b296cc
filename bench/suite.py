"""The oracle on the suite at 1, 2 and 4 workers: wall time, tasks per minute, memory peak,
and where a task's time goes (browser, pages, events, check); then the robustness
measurements: a start state's cost at creation, and the oracle's time per task with and
without each perturbation, its injected delays (in the site pages' server time) apart.

    .venv/bin/python -m bench.suite [--tasks FILTER] [--workers 1,2,4] [--robustness-only]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import fresh_stack, hub_session, summary_ms, table
from runner.harnesses.harness import get_harness
from runner.run.evaluate import Setup, TaskRef, evaluate, select_tasks
from runner.settings import TASKS_DIR
from runner.stack.stack import Stack
from services.core import perturb
from services.core.models.run import Record, RunPlan
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


# The latency perturbation's held seconds, per site (services/kit/latency.py).
INJECTED = "injected"


def server_seconds(stack: Stack) -> dict[str, float]:
    """Seconds each service spent answering requests so far (Prometheus histogram sums),
    and under INJECTED the seconds the sites held answers for the latency perturbation."""
    spent = {INJECTED: 0.0}
    for name, process in stack.processes.items():
        if name == "nats":
            continue
        credential = service_headers(stack.service_token)
        text = httpx.get(f"{process.url}/metrics", headers=credential).text
        sums = re.findall(r"^wpb_http_request_seconds_sum\{[^}]*\} (\S+)$", text, re.M)
        spent[name] = sum(float(value) for value in sums)  # over the service's routes
        held = re.findall(r"^wpb_latency_injected_seconds_total\{[^}]*\} (\S+)$", text, re.M)
        spent[INJECTED] += sum(float(value) for value in held)
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
        costs = perturbation_costs(stack)
    table(
        f"Trajectory creation, start state ({CREATIONS} each, ms)",
        ["start state", "p50", "p99", "mean"],
        creation,
    )
    table(
        "The oracle per perturbation: its variants against their donors (mean s per task)",
        [
            "perturbation",
            "EMS 1",
            "donor agent",
            "variant agent",
            "injected",
            "donor rest",
            "variant rest",
            "rest ratio",
        ],
        costs,
    )


@dataclass
class Measured:
    """One oracle run on a fresh or shared stack: its wall time, memory peak, the records
    that ran, and per task the agent's mean seconds split into the site pages' server time,
    the latency perturbation's held seconds and the rest (browser, proxy, oracle)."""

    wall: float
    memory: float
    records: list[Record]
    spent: dict[str, float]

    @property
    def agent(self) -> float:
        return statistics.fmean(r.phases["agent"] for r in self.records) if self.records else 0

    @property
    def pages(self) -> float:
        return sum(v for k, v in self.spent.items() if k.startswith("site-"))

    @property
    def injected(self) -> float:
        """The seconds per task the latency perturbation held the answers."""
        return self.spent.get(INJECTED, 0.0)

    @property
    def rest(self) -> float:
        """The agent's time but the site pages' and what a perturbation injected."""
        return max(0.0, self.agent - self.pages - self.injected)

    def phase(self, name: str) -> float:
        return statistics.fmean(r.phases[name] for r in self.records) if self.records else 0


def measure(stack: Stack, refs: list[TaskRef], workers: int) -> Measured:
    """The oracle on `refs` with `workers` at once, on `stack`."""
    with tempfile.TemporaryDirectory() as out:
        before = server_seconds(stack)
        with PeakMemory() as memory:
            started = time.monotonic()
            result = asyncio.run(
                evaluate(
                    stack.address,
                    Setup(get_harness("oracle")),
                    refs,
                    Path(out),
                    RunPlan(workers=workers, time_limit=180, today="2026-11-29"),
                )
            )
            wall = time.monotonic() - started
        after = server_seconds(stack)
    records = [r for r in result.records if r.status == "ok"]
    n = max(1, len(records))
    spent = {name: (after[name] - before.get(name, 0)) / n for name in after}
    return Measured(wall, memory.peak, records, spent)


def perturbation_costs(stack: Stack) -> list[list[str]]:
    """Per perturbation implementation: the oracle on the robustness suite's variants that
    render it against their released donors, one task at a time, each split into the site
    pages' server time, the seconds the latency perturbation held answers, and the rest;
    the rest's ratio is what the perturbation costs besides what it injects."""
    released = {ref.name: ref for ref in select_tasks(TASKS_DIR, None, None)}
    groups: dict[str, list[TaskRef]] = defaultdict(list)
    for ref in select_tasks(TASKS_DIR, None, None, "robustness"):
        for key in perturb.KEYS:
            impl = ref.controls.get(key, perturb.NONE)
            if impl != perturb.NONE and ref.donor in released:
                groups[f"{key}={impl}"].append(ref)
    rows = []
    for label, variants in sorted(groups.items()):
        donors = [released[name] for name in dict.fromkeys(v.donor for v in variants)]
        donor, variant = measure(stack, donors, 1), measure(stack, variants, 1)
        passed = sum(r.ems == 1 for r in variant.records)
        rows.append(
            [
                label,
                f"{passed}/{len(variants)}",
                f"{donor.agent:.2f}",
                f"{variant.agent:.2f}",
                f"{variant.injected:.2f}",
                f"{donor.rest:.2f}",
                f"{variant.rest:.2f}",
                f"{variant.rest / donor.rest:.2f}×" if donor.rest else "—",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default=None)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--robustness-only", action="store_true")
    args = parser.parse_args()
    if args.robustness_only:
        robustness()
        return
    refs = select_tasks(TASKS_DIR, args.tasks, None)
    rows, phases_rows = [], []
    for workers in [int(w) for w in args.workers.split(",")]:
        with fresh_stack() as stack:
            run = measure(stack, refs, workers)
        passed = sum(r.ems == 1 for r in run.records)
        rows.append(
            [
                str(workers),
                str(len(refs)),
                f"{passed}/{len(refs)}",
                f"{run.wall:.1f}",
                f"{len(refs) / run.wall * 60:.1f}",
                f"{run.memory:.0f}",
            ]
        )
        phases_rows.append(
            [
                str(workers),
                f"{run.agent:.2f}",
                f"{run.pages:.3f}",
                f"{run.rest:.2f}",
                f"{run.spent.get('events', 0):.3f}",
                f"{run.phase('check'):.3f}",
                f"{run.phase('create'):.3f}",
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
