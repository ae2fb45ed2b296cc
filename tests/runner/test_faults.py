"""The fault test: `runner eval --harness oracle` on tasks across the sites while a site, then
the collector, then NATS are killed with SIGKILL, each while tasks run, on a supervised stack
of the module's own. No acknowledged event is lost, every attempt a kill met is `infra_error`
and run again, and the summary is a clean run's: every task passes. Each kill meets a task's
first attempt (one task runs at a time), so no task runs out of retries."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.http import run_async
from support.stand import admin_client, running_stack, stand_ready

from runner.errors import InfraError
from runner.harnesses.harness import Episode, Harness, Outcome, get_harness
from runner.run.evaluate import Abandoned, Setup, evaluate, select_tasks, within
from runner.settings import TASKS_DIR
from runner.stack.stack import Stack
from runner.wait import until
from services.core.models.run import RunPlan

TASKS = (
    "grocery_showcase_tea,shop_any_electronics,hotels_pick_city,rail_pick_from,"
    "files_year_datasets_2025,books_author_cheapest_rudneva"
)


@pytest.fixture(scope="module")
def supervised(processes: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("wpb-faults"), supervise=True) as started:
        yield started


@pytest.fixture(scope="module")
def hub(supervised: Stack) -> Iterator[httpx.Client]:
    with admin_client(supervised) as client:
        yield client


def events_of(hub: httpx.Client, tid: str) -> list[dict[str, Any]]:
    answer = hub.get(f"/api/trajectories/{tid}/events")
    answer.raise_for_status()
    return answer.json()["events"]  # type: ignore[no-any-return]


class Watched(Harness):
    """The oracle, telling the test which episodes are under way: since when, on which site,
    and whether it is its task's first attempt."""

    name = "oracle"
    needs_browser = True

    def __init__(self) -> None:
        self.oracle = get_harness("oracle")
        self.running: dict[str, tuple[float, str | None, bool]] = {}
        self.attempts: Counter[str] = Counter()

    async def run(self, episode: Episode) -> Outcome:
        self.attempts[episode.task_id] += 1
        first = self.attempts[episode.task_id] == 1
        self.running[episode.url] = (time.monotonic(), episode.first_domain, first)
        try:
            return await self.oracle.run(episode)
        finally:
            self.running.pop(episode.url, None)


class Killer(threading.Thread):
    """After each of the first three records, on a ready stand: keeps the finished
    trajectories' events, then kills a site (one an episode is on), the collector, NATS,
    each while an episode is under way."""

    def __init__(self, stack: Stack, hub: httpx.Client, harness: Watched) -> None:
        super().__init__()
        self.stack, self.hub, self.harness = stack, hub, harness
        self.done: list[dict[str, Any]] = []
        self.kills: list[tuple[str, float]] = []
        self.before: dict[str, list[dict[str, Any]]] = {}
        self.failed: list[BaseException] = []

    def run(self) -> None:
        try:
            for after, victim in enumerate(("site", "events", "nats"), start=1):
                until(lambda n=after: len(self.done) >= n, 600, f"{after} task(s) done")
                stand_ready(self.hub)
                for record in list(self.done):
                    tid = record.trajectory_id
                    self.before[tid] = events_of(self.hub, tid)
                site = self.under_way()
                victim = f"site-{site}" if victim == "site" else victim
                self.kills.append((victim, time.time()))
                self.stack.kill(victim)
        except BaseException as exc:  # reported by the test
            self.failed.append(exc)

    def under_way(self) -> str | None:
        """The site of a task's first attempt that has been running for a moment, once there
        is one: a kill meets each task once at most (one task runs at a time)."""

        def first_attempt_running() -> tuple[str | None] | None:
            for since, site, first in list(self.harness.running.values()):
                if first and time.monotonic() - since > 0.3:
                    return (site,)
            return None

        return until(first_attempt_running, 60, "an episode under way", every=0.02)[0]


def test_kills_during_eval_are_infrastructure(
    supervised: Stack, hub: httpx.Client, tmp_path: Path
) -> None:
    refs = select_tasks(TASKS_DIR, TASKS, None)
    assert len(refs) == 6 and len({r.site for r in refs}) == 6
    harness = Watched()
    killer = Killer(supervised, hub, harness)
    killer.start()
    started = time.monotonic()
    run = evaluate(
        supervised.address,
        Setup(harness),
        refs,
        tmp_path,
        RunPlan(workers=1, time_limit=90),  # one task at a time: each kill meets one attempt
        killer.done.append,
    )
    result = run_async(run)
    killer.join(60)
    assert not killer.failed, killer.failed
    assert [victim for victim, _ in killer.kills][1:] == ["events", "nats"]
    stand_ready(hub)

    # The final summary is a clean run's: every task scored and passed.
    records = result.records
    overall = result.summary.overall
    assert {r.task: (r.status, r.ems) for r in records} == {r.name: ("ok", 1) for r in refs}, [
        (r.task, r.status, r.error) for r in records
    ]
    assert overall.ems == 1.0 and overall.scored == 6 and overall.infra_errors == 0
    lost = {a.trajectory_id: r for r in records for a in r.infra_errors}
    assert overall.infra_retries == sum(len(r.infra_errors) for r in records)
    finals = {r.trajectory_id for r in records}
    every = finals | {tid for tid in lost if tid}

    # Every attempt under way when a kill came was infra_error and run again.
    for victim, tids in met(hub, every, killer.kills).items():
        assert tids, f"{victim} met no attempt under way"
        assert not tids & finals, f"{victim}: an attempt it met was scored"
        assert all(lost[tid].attempts > 1 for tid in tids)

    # No acknowledged event lost: finished trajectories kept their events; no log has a gap.
    assert killer.before
    for tid, events in killer.before.items():
        assert events_of(hub, tid) == events
    for tid in every:
        seqs = [e["seq"] for e in events_of(hub, tid)]
        assert seqs == list(range(1, len(seqs) + 1)), tid
    restarts = hub.get("/api/status").json()["restarts"]
    assert all(restarts[victim] == 1 for victim, _ in killer.kills)
    assert time.monotonic() - started < 180


def met(hub: httpx.Client, tids: set[str], kills: list[tuple[str, float]]) -> dict[str, set[str]]:
    """Victim -> the trajectories open (created, not yet closed) when it was killed."""
    hit: dict[str, set[str]] = {victim: set() for victim, _ in kills}
    for tid in tids:
        meta = hub.get(f"/api/trajectories/{tid}").json()
        for victim, at in kills:
            if meta["created_at"] <= at <= meta.get("closed_at", float("inf")):
                hit[victim].add(tid)
    return hit


async def _ignores_one_cancellation(then_s: float) -> Outcome:
    """A harness whose first cancellation does not stop it (a call into a hung browser): it
    ends `then_s` later by itself."""
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        await asyncio.sleep(then_s)
    return Outcome(True)


def test_an_episode_past_its_limit_is_cancelled_and_one_that_will_not_stop_left_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The backstop of an in-process harness never waits on a cancellation without end
    (asyncio.wait_for does): past STOP_S the episode is Abandoned, an infrastructure
    failure, and `run_with_retries` starts the runner's Chromium again."""
    monkeypatch.setattr("runner.run.evaluate.STOP_S", 0.2)

    async def ends() -> tuple[Outcome, type[Exception], type[Exception]]:
        quick = await within(asyncio.sleep(0, Outcome(True, "quick")), 1)
        kinds = []
        for work in (asyncio.sleep(60), _ignores_one_cancellation(0.6)):
            try:
                await within(work, 0.1)
            except (TimeoutError, Abandoned) as exc:
                kinds.append(type(exc))
        await asyncio.sleep(0.7)  # the one left behind ends by itself
        return quick, kinds[0], kinds[1]

    quick, polite, stubborn = run_async(ends())
    assert quick.final_message == "quick"
    assert polite is TimeoutError and stubborn is Abandoned
    assert issubclass(Abandoned, InfraError)
