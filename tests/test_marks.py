"""The marks are what the fixtures say (tests/conftest.py), so the fast selection
(`make unit`: not slow, not browser, not docker) is fast by construction: its tests start
nothing, and a test that tries is stopped."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from support.http import run_async
from support.marks import MARKS, PHASES, busy, groups, module_fixtures, phase_of


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
    group's tests in one phase; the corpus's readers in one group, and a module's tests that
    start something in one where one of its tests uses a module fixture."""
    items = request.session.items
    sharing = {item.path for item in items if module_fixtures(item)}
    grouped = groups(items)
    seen, phase_of_group = [], {}
    for item in items:
        used = set(item.fixturenames)
        wanted = {mark for fixture, marks in MARKS.items() if fixture in used for mark in marks}
        marked = {m.name for m in item.iter_markers()} & {"slow", "browser", "docker"}
        assert marked == wanted, item.nodeid
        phase = dict(item.user_properties)["phase"]
        seen.append(PHASES.index(phase))
        group = grouped.get(item.nodeid)
        if "corpus" in used:
            assert group == "corpus", item.nodeid
        elif item.path in sharing and wanted:
            assert group == item.path.relative_to(request.config.rootpath).as_posix()
        else:
            assert group is None and phase == phase_of(item), item.nodeid
            assert (phase == "unit") == (not wanted), item.nodeid
        if group:
            assert phase_of_group.setdefault(group, phase) == phase, item.nodeid
    assert seen == sorted(seen)


def test_a_group_runs_on_one_xdist_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, processes: None
) -> None:
    """Under `-n 2 --dist loadgroup` the tests that share a module fixture run on one worker,
    the others wherever one is free."""
    pytester.makepyfile(
        test_shared="""
        import os, pytest

        @pytest.fixture(scope="module")
        def shared(processes):
            return os.environ["PYTEST_XDIST_WORKER"]

        @pytest.mark.parametrize("n", range(6))
        def test_shares(shared, n):
            assert shared == os.environ["PYTEST_XDIST_WORKER"]
            print("shares", n, shared, file=open(f"ran-{n}", "w"))
        """,
        test_alone="""
        import os, time

        def test_alone(processes):
            time.sleep(0.5)
            print(os.environ["PYTEST_XDIST_WORKER"], file=open("alone", "w"))
        """,
    )
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parent))
    done = pytester.runpytest_subprocess(
        "-n", "2", "--dist", "loadgroup", "-p", "support.marks", "-p", "no:cacheprovider"
    )
    done.assert_outcomes(passed=7)
    workers = {(pytester.path / f"ran-{n}").read_text().split()[2] for n in range(6)}
    assert len(workers) == 1
    assert (pytester.path / "alone").read_text().strip() not in workers


def test_a_phase_lasts_while_one_of_its_tests_runs() -> None:
    assert busy([]) == 0
    assert busy([(0, 2), (1, 3), (5, 6)]) == 4
    assert busy([(4, 5), (0, 10)]) == 10
