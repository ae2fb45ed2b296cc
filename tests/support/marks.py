"""The marks `slow`, `browser` and `docker` and the order tests run in follow from the fixtures
a test uses, directly or through other fixtures, never from a hand-written mark:
- `processes`: the test (or a fixture it uses) starts processes: `slow`. Every fixture that
  starts a server, a stack or a command depends on it (`stack` does, `browser` does);
- `browser`, or `corpus` (tests/runner/conftest.py: the oracle's and noop's episodes, in
  the runner's Chromium): it drives Chromium: `browser` and `slow`;
- `docker_engine` (tests/deploy): it runs containers: `docker` and `slow`.
A test with none of them runs with process creation refused, so `-m "not slow"` (`make
unit`) starts nothing by construction: a test that starts a process without saying so fails
and says which fixture to use.

Tests then run in phases, each a block of the session, fast failures first: unit (starts
nothing), stand (a stack and HTTP), browser (Chromium, the runner's evaluations), agents
(the test model, real harnesses), docker; pytest's own order within each. At the end the
session prints each phase's wall time, beside the set-up phases `make test` timed before
pytest ($WPB_PHASES).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

# The phases in the order they run; a test is in the last whose fixtures it uses.
PHASES = ("unit", "stand", "browser", "agents", "docker")
PHASE_FIXTURES = {
    "stand": {"processes"},
    "browser": {"browser", "corpus"},
    "agents": {"testmodel", "llama"},
    "docker": {"docker_engine"},
}
MARKS = {
    "corpus": ("slow", "browser"),
    "processes": ("slow",),
    "browser": ("slow", "browser"),
    "docker_engine": ("slow", "docker"),
}
PHASE_TIMES: defaultdict[str, float] = defaultdict(float)


def phase_of(item: pytest.Item) -> str:
    used = set(getattr(item, "fixturenames", ()))
    return next((p for p in reversed(PHASES) if PHASE_FIXTURES.get(p, set()) & used), PHASES[0])


def module_fixtures(item: pytest.Item) -> bool:
    """Whether the test uses a fixture its module (or class) sets up once for several."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info else ()
    return any(d[-1].scope in ("module", "class", "package") for d in defs)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixture, marks in MARKS.items():
            if fixture in used:
                for mark in marks:
                    item.add_marker(mark)
    phases = {item.nodeid: PHASES.index(phase_of(item)) for item in items}
    # Tests sharing a module's fixture stay together, in the latest phase among them: the
    # fixture is set up once.
    shared = {item.nodeid: item.nodeid.split("::")[0] for item in items if module_fixtures(item)}
    latest: dict[str, int] = {}
    for nodeid, module in shared.items():
        latest[module] = max(latest.get(module, 0), phases[nodeid])
    for item in items:
        if item.nodeid in shared:
            phases[item.nodeid] = latest[shared[item.nodeid]]
        item.stash[PHASE] = PHASES[phases[item.nodeid]]
    items.sort(key=lambda item: phases[item.nodeid])


PHASE = pytest.StashKey[str]()


def _refused(*args: object, **kwargs: object) -> None:
    raise RuntimeError(
        "this test starts a process without a fixture that says so: use `processes` (or a "
        "fixture that depends on it), so that it is marked slow (tests/support/marks.py)"
    )


@pytest.fixture(autouse=True)
def _starts_nothing_unless_marked(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test not marked slow may not start a process (a stack, Chromium, a command)."""
    if request.node.get_closest_marker("slow") is None:
        monkeypatch.setattr(subprocess.Popen, "_execute_child", _refused)


@pytest.fixture(scope="session")
def processes() -> None:
    """Used by every test and fixture that starts processes: such a test is marked slow."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    started = time.monotonic()
    try:
        return (yield)
    finally:
        PHASE_TIMES[item.stash.get(PHASE, PHASES[0])] += time.monotonic() - started


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The wall time of each phase: `make test`'s set-up phases (the file $WPB_PHASES, lines
    of `phase seconds`), then this session's."""
    before = Path(os.environ.get("WPB_PHASES", "/nonexistent"))
    rows = [line.split() for line in before.read_text().splitlines()] if before.exists() else []
    rows += [[phase, f"{PHASE_TIMES[phase]:.0f}"] for phase in PHASES if phase in PHASE_TIMES]
    if not rows:
        return
    terminalreporter.section("where the time went (wall seconds by phase)")
    for phase, seconds in rows:
        terminalreporter.write_line(
            f"{phase:<10} {int(seconds):>6} s  ({int(seconds) / 60:.1f} min)"
        )
    total = sum(int(seconds) for _, seconds in rows)
    terminalreporter.write_line(f"{'total':<10} {total:>6} s  ({total / 60:.1f} min)")
