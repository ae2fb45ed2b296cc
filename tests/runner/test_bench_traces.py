"""The concurrency benchmark's recorded traces (bench/traces/) still replay on the sites as
they are: every request answered 2xx or 3xx, and every trajectory's final verdict passes.
A site change that breaks one says so here, not in the middle of `make bench`."""

from __future__ import annotations

from support.http import run_async
from support.stand import TODAY

from bench import concurrency, trace
from bench.common import hub_session


def test_every_recorded_trace_solves_its_task(stack) -> None:
    recorded = trace.load()
    assert {r.name.split("_")[0] for r in recorded} == {
        "grocery", "shop", "books", "hotels", "rail", "files"
    }  # fmt: skip
    assert stack.today == TODAY  # the traces' dates follow the stand's today when recorded

    async def replay() -> None:
        async with hub_session(stack) as hub:
            await concurrency.warm_up(hub, recorded)  # raises, naming each error

    run_async(replay())
