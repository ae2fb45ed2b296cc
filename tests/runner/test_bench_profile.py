"""`bench.concurrency`'s accounting of where a step's CPU goes: a process's CPU time from
/proc, and py-spy's collapsed stacks read into the functions that hold the most samples."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bench.concurrency import cpu_seconds, hottest


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
