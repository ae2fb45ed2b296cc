"""The fault test: `runner eval --harness oracle` on tasks across the sites while a site, then
the collector, then NATS are killed with SIGKILL, each while tasks run, on a supervised stack
of the module's own. No acknowledged event is lost, every attempt a kill met is `infra_error`
and run again, and the summary is a clean run's: every task passes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers import admin_client, run_async, running_stack

from runner.evaluate import evaluate, select_tasks
from runner.harness import get_harness
from runner.stack import TASKS_DIR, Stack

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASKS = (
    "grocery_showcase_tea,shop_any_electronics,hotels_pick_city,rail_pick_from,"
    "files_year_datasets_2025,books_author_cheapest_rudneva"
)


@pytest.fixture(scope="module")
def supervised(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
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


def test_kills_during_eval_are_infrastructure(
    supervised: Stack, hub: httpx.Client, tmp_path: Path
) -> None:
    refs = select_tasks(TASKS_DIR, TASKS, None)
    assert len(refs) == 6 and len({r.site for r in refs}) == 6
    done: list[dict[str, Any]] = []
    kills: list[tuple[str, float]] = []
    before: dict[str, list[dict[str, Any]]] = {}  # events of finished trajectories
    failed: list[BaseException] = []

    def ready() -> None:
        deadline = time.monotonic() + 60
        while hub.get("/api/status").status_code != 200:
            assert time.monotonic() < deadline, "the stand did not come back"
            time.sleep(0.2)

    def killer() -> None:
        """After each of the first three records (tasks still run on both workers): keep the
        finished trajectories' events, then kill the next victim."""
        try:
            for victim_at, victim in enumerate(("site", "events", "nats"), start=1):
                while len(done) < victim_at:
                    time.sleep(0.1)
                ready()
                time.sleep(1.5)  # the next attempt is well under way
                for record in list(done):
                    before[record["trajectory_id"]] = events_of(hub, record["trajectory_id"])
                if victim == "site":
                    running = [r for r in refs if r.name not in {d["task"] for d in done}]
                    victim = f"site-{running[0].site}"
                kills.append((victim, time.time()))
                supervised.kill(victim)
        except BaseException as exc:  # reported by the test
            failed.append(exc)

    thread = threading.Thread(target=killer)
    thread.start()
    started = time.monotonic()
    result = run_async(
        evaluate(
            supervised.hub_url,
            supervised.token,
            get_harness("oracle"),
            refs,
            tmp_path / "oracle",
            2,
            90,
            done.append,
            None,
        )
    )
    thread.join(60)
    assert not failed, failed
    assert [k[0] for k in kills][1:] == ["events", "nats"] and len(kills) == 3
    ready()

    # The final summary is a clean run's: every task scored and passed.
    records = result["records"]
    overall = result["summary"]["overall"]
    assert {r["task"]: (r["status"], r["ems"]) for r in records} == {
        r.name: ("ok", 1) for r in refs
    }, [(r["task"], r["status"], r["error"]) for r in records]
    assert overall["ems"] == 1.0 and overall["scored"] == 6 and overall["infra_errors"] == 0

    # Every attempt that was under way when a kill came was infra_error and run again.
    finals = {r["trajectory_id"] for r in records}
    lost = {a["trajectory_id"]: r for r in records for a in r["infra_errors"]}
    assert overall["infra_retries"] == len([a for r in records for a in r["infra_errors"]])
    hit: dict[str, set[str]] = {victim: set() for victim, _ in kills}
    for tid in finals | {t for t in lost if t}:
        meta = hub.get(f"/api/trajectories/{tid}").json()
        for victim, at in kills:
            if meta["created_at"] <= at <= meta.get("closed_at", float("inf")):
                hit[victim].add(tid)
    assert all(hit.values()), f"a kill met no running task: {hit}"
    for victim, tids in hit.items():
        assert not tids & finals, f"{victim}: an attempt it met was scored"
        assert all(lost[t]["attempts"] > 1 for t in tids)

    # No acknowledged event lost: finished trajectories kept their events, and no log has
    # a gap in its sequence.
    assert before
    for tid, events in before.items():
        assert events_of(hub, tid) == events
    for tid in finals | {t for t in lost if t}:
        seqs = [e["seq"] for e in events_of(hub, tid)]
        assert seqs == list(range(1, len(seqs) + 1)), tid
    restarts = hub.get("/api/status").json()["restarts"]
    assert all(restarts[victim] >= 1 for victim, _ in kills)
    assert time.monotonic() - started < 180
