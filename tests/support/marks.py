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

Under pytest-xdist (`-n 2 --dist loadgroup`, as `make test` runs) the workers take the tests
in that order, and a group of tests (`groups`) goes to one worker whole: the oracle corpus's
readers (the corpus is evaluated once), a module's tests that start something where one of
them uses a module fixture; every other test goes wherever a worker is free. xdist's own
`loadgroup` cannot tag pytest 9's node ids with their group, so the workers write the groups
down and `GroupScheduling` reads them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

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
# Each phase's tests' (start, stop) times, from their reports.
SPANS: defaultdict[str, list[tuple[float, float]]] = defaultdict(list)
STARTED = pytest.StashKey[float]()
CONFIG: dict[str, pytest.Config] = {}
# Where the workers write the groups for the scheduler: a key of xdist's `workerinput`, and
# the controller's path.
GROUPS_FILE = "wpb_groups_file"
GROUPS = pytest.StashKey[Path]()


def phase_of(item: pytest.Item) -> str:
    used = set(getattr(item, "fixturenames", ()))
    return next((p for p in reversed(PHASES) if PHASE_FIXTURES.get(p, set()) & used), PHASES[0])


def module_fixtures(item: pytest.Item) -> bool:
    """Whether the test uses a fixture its module (or class) sets up once for several."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info else ()
    return any(d[-1].scope in ("module", "class", "package") for d in defs)


def module_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def groups(items: list[pytest.Item]) -> dict[str, str]:
    """Node id -> the group of tests it runs with, on one xdist worker, in the latest phase
    among them: the corpus's readers (the corpus is evaluated once); in a module where a test
    uses a module (or class) fixture, every test of the module that starts something (the
    fixture is set up once, and they never compete with each other for the machine)."""
    sharing = {module_of(item) for item in items if module_fixtures(item)}
    found = {}
    for item in items:
        if "corpus" in getattr(item, "fixturenames", ()):
            found[item.nodeid] = "corpus"
        elif module_of(item) in sharing and phase_of(item) != "unit":
            found[item.nodeid] = module_of(item)
    return found


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixture, marks in MARKS.items():
            if fixture in used:
                for mark in marks:
                    item.add_marker(mark)
    phases = {item.nodeid: PHASES.index(phase_of(item)) for item in items}
    grouped = groups(items)
    latest: dict[str, int] = {}
    for nodeid, group in grouped.items():
        latest[group] = max(latest.get(group, 0), phases[nodeid])
    for item in items:
        group = grouped.get(item.nodeid)
        if group:
            phases[item.nodeid] = latest[group]
        # Carried into the test's reports, which the session that prints the times reads
        # (under xdist, not the one that ran the test).
        item.user_properties.append(("phase", PHASES[phases[item.nodeid]]))
    items.sort(key=lambda item: phases[item.nodeid])
    target = getattr(config, "workerinput", {}).get(GROUPS_FILE)
    if target:  # an xdist worker: every worker writes the same, whole or not at all
        written = Path(f"{target}.{os.getpid()}")
        written.write_text(json.dumps(grouped))
        written.replace(target)


class GroupScheduling(LoadScopeScheduling):
    """xdist's scope scheduling where a test's scope is its group (`groups`), else the test
    itself, as the workers wrote the groups down before they reported their collection."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        self.groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self.groups is None:
            self.groups = json.loads(self.config.stash[GROUPS].read_text())
        return self.groups.get(nodeid, nodeid)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> GroupScheduling | None:
    return GroupScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    node.workerinput[GROUPS_FILE] = str(node.config.stash[GROUPS])


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


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[STARTED] = time.time()


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A phase's time, from the report; a failure named, with its message, when it happens
    (under xdist the progress shows only an `F` until the end)."""
    phase = dict(report.user_properties).get("phase")
    if isinstance(phase, str):
        SPANS[phase].append((report.start, report.stop))
    config = CONFIG.get("config")
    terminal = config and config.pluginmanager.get_plugin("terminalreporter")
    if report.failed and terminal is not None:
        terminal.ensure_newline()
        if getattr(config.option, "numprocesses", None):  # xdist's progress: dots, no path
            terminal.write("\n")
        terminal.write_line(
            f"FAILED {report.nodeid} ({report.when}, phase {phase}): {why(report)}", red=True
        )


def why(report: pytest.TestReport) -> str:
    """A failure's message as its traceback ends, on one line: the cause where the log shows
    no more than its end (CI's)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    return " ".join(text.split())[:400]


def pytest_configure(config: pytest.Config) -> None:
    CONFIG["config"] = config
    if not hasattr(config, "workerinput"):
        config.stash[GROUPS] = Path(tempfile.mkdtemp(prefix="wpb-groups-")) / "groups.json"


def pytest_unconfigure(config: pytest.Config) -> None:
    if GROUPS in config.stash:
        shutil.rmtree(config.stash[GROUPS].parent, ignore_errors=True)


def busy(spans: list[tuple[float, float]]) -> float:
    """How long at least one of these (start, stop) intervals was running."""
    total, reached = 0.0, 0.0
    for start, stop in sorted(spans):
        total += max(0.0, stop - max(start, reached))
        reached = max(reached, stop)
    return total


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The wall time of each phase: `make test`'s set-up phases (the file $WPB_PHASES, lines
    of `phase seconds` after `began EPOCH`; its images beside its harnesses), then this
    session's (the time while one of its tests ran: phases overlap under xdist), then
    pytest's whole run, and the total since `make test` began."""
    if not SPANS:
        return
    before = Path(os.environ.get("WPB_PHASES", "/nonexistent"))
    lines = before.read_text().splitlines() if before.exists() else []
    rows = [(phase, int(seconds)) for phase, seconds in map(str.split, lines)]
    began = dict(rows).get("began", 0) or terminalreporter.config.stash.get(STARTED, time.time())
    setup = [(phase, seconds) for phase, seconds in rows if phase != "began"]
    tests = [(phase, round(busy(SPANS[phase]))) for phase in PHASES if phase in SPANS]
    ran = round(time.time() - terminalreporter.config.stash.get(STARTED, time.time()))
    total = round(time.time() - began)
    terminalreporter.section("where the time went (wall seconds by phase)")
    for phase, seconds in [*setup, *tests, ("pytest", ran), ("total", total)]:
        terminalreporter.write_line(f"{phase:<10} {seconds:>6} s  ({seconds / 60:.1f} min)")
