"""The marks are what the fixtures say (tests/conftest.py), so the fast selection
(`make unit`: not slow, not browser, not docker) is fast by construction: its tests start
nothing, and a test that tries is stopped."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from support.http import run_async
from support.marks import MARKS, PHASE, PHASES, phase_of


def test_a_test_that_says_nothing_cannot_start_a_process() -> None:
    with pytest.raises(RuntimeError, match="`processes`"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)

    async def spawn() -> None:
        await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")

    with pytest.raises(RuntimeError, match="`processes`"):
        run_async(spawn())


def test_a_test_that_says_so_may(processes: None) -> None:
    assert subprocess.run([sys.executable, "-c", "pass"], check=False).returncode == 0


def test_every_mark_and_phase_follows_from_the_fixtures(request: pytest.FixtureRequest) -> None:
    """Of every test in this session: slow, browser and docker exactly where a fixture that
    starts processes, drives Chromium or runs containers is used, and the phases in order."""
    items = request.session.items
    seen = []
    for item in items:
        used = set(item.fixturenames)
        wanted = {mark for fixture, marks in MARKS.items() if fixture in used for mark in marks}
        marked = {m.name for m in item.iter_markers()} & {"slow", "browser", "docker"}
        assert marked == wanted, item.nodeid
        seen.append(PHASES.index(item.stash[PHASE]))
        if item.stash[PHASE] == "unit":
            assert phase_of(item) == "unit" and not wanted, item.nodeid
    assert seen == sorted(seen)
