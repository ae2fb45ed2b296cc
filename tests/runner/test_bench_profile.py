"""`bench.concurrency`'s accounting of where a step's CPU goes: a process's CPU time from
/proc, py-spy's collapsed stacks read into the functions that hold the most samples, and
each request kind sent on its own."""

from __future__ import annotations

import asyncio
import os
import time
from functools import partial
from pathlib import Path

from bench.concurrency import Send, cpu_seconds, hottest, in_turn, interleaved, send_each


def test_cpu_time_is_read_from_proc() -> None:
    before = cpu_seconds(os.getpid())
    deadline = time.process_time() + 0.2
    while time.process_time() < deadline:
        pass
    assert cpu_seconds(os.getpid()) - before >= 0.15
    assert cpu_seconds(2**22 + 1) == 0.0  # no such process


def test_collapsed_stacks_give_each_function_its_own_and_its_whole_share(tmp_path: Path) -> None:
    stacks = tmp_path / "hub.txt"
    stacks.write_text(
        "run (asyncio/base_events.py:10);handle (services/hub/app.py:40);dumps (json.py:5) 6\n"
        "run (asyncio/base_events.py:10);handle (services/hub/app.py:41) 3\n"
        "run (asyncio/base_events.py:12);select (selectors.py:7) 1\n"
        "not a stack line\n"
    )
    found = {name: (own, under) for name, own, under in hottest(stacks)}
    assert found["dumps (json.py)"] == (0.6, 0.6)
    assert found["handle (services/hub/app.py)"] == (0.3, 0.9)  # its lines as one function
    assert found["select (selectors.py)"] == (0.1, 0.1)
    assert next(iter(found)) == "dumps (json.py)"  # the most samples first


def test_each_kind_is_sent_one_at_a_time_on_a_trajectory_from_each_in_turn() -> None:
    sent: list[str] = []
    busy: set[int] = set()

    def request(trajectory: int, name: str, turn: asyncio.Lock) -> Send:
        async def send() -> None:
            assert trajectory not in busy  # never two at once on one trajectory
            busy.add(trajectory)
            await asyncio.sleep(0.001)
            busy.discard(trajectory)
            sent.append(name)

        return partial(in_turn, turn, send)

    async def both() -> None:
        turns = [asyncio.Lock() for _ in range(3)]
        names = [["a1", "a2", "a3"], ["b1"], ["c1", "c2"]]
        lists = [[request(t, n, turns[t]) for n in ns] for t, ns in enumerate(names)]
        load = await send_each("page", interleaved(lists), 12, 4)
        assert load.steps == 12 and not load.failed and len(sent) == 12
        assert sorted(sent[:3]) == ["a1", "b1", "c1"]  # the first of each first
        closes = await send_each("close", interleaved(lists), 12, 4)
        assert closes.steps == 6  # a close is sent once

    asyncio.run(both())
