"""The marks are what the fixtures say (tests/conftest.py), so the fast selection
(`make unit`: not slow, not browser, not docker) is fast by construction: its tests start
nothing, and a test that tries is stopped."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest
from support.http import run_async
from support.marks import MARKS, PHASES, busy, module_fixtures, phase_of


def test_a_test_that_says_nothing_cannot_start_a_process() -> None:
    with pytest.raises(RuntimeError, match="`processes`"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)

    async def spawn() -> None:
        await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")

    with pytest.raises(RuntimeError, match="`processes`"):
        run_async(spawn())


def test_a_test_that_says_so_may(processes: None) -> None:
    assert subprocess.run([sys.executable, "-c", "pass"], check=False).returncode == 0


def test_every_mark_phase_and_group_follows_from_the_fixtures(
    request: pytest.FixtureRequest,
) -> None:
    """Of every test in this session: slow, browser and docker exactly where a fixture that
    starts processes, drives Chromium or runs containers is used; the phases in order, a
    group's tests in one phase; the corpus's readers in one xdist group, and a module's tests
    that start something in one where one of its tests uses a module fixture."""
    items = request.session.items
    sharing = {item.path for item in items if module_fixtures(item)}
    seen, phase_of_group = [], {}
    for item in items:
        used = set(item.fixturenames)
        wanted = {mark for fixture, marks in MARKS.items() if fixture in used for mark in marks}
        marked = {m.name for m in item.iter_markers()} & {"slow", "browser", "docker"}
        assert marked == wanted, item.nodeid
        phase = dict(item.user_properties)["phase"]
        seen.append(PHASES.index(phase))
        groups = [m.args[0] for m in item.iter_markers("xdist_group")]
        if "corpus" in used:
            assert groups == ["corpus"], item.nodeid
        elif item.path in sharing and wanted:
            assert groups == [item.path.relative_to(request.config.rootpath).as_posix()]
        else:
            assert groups == [] and phase == phase_of(item), item.nodeid
            assert (phase == "unit") == (not wanted), item.nodeid
        for group in groups:
            assert phase_of_group.setdefault(group, phase) == phase, item.nodeid
    assert seen == sorted(seen)


def test_a_phase_lasts_while_one_of_its_tests_runs() -> None:
    assert busy([]) == 0
    assert busy([(0, 2), (1, 3), (5, 6)]) == 4
    assert busy([(4, 5), (0, 10)]) == 10
