"""The oracle corpus: every oracle and noop episode the runner's modules check, run once a
session on the shared stack. A test names what it reads with the `corpus` marker, each pass
it reads (`oracle`, `noop`, `keyboard`, `phone`, `phone_noop`: PASSES) with a function that
gives its task files; the first test that asks for the `corpus` fixture runs each pass over
the union of what every selected test names, one `runner eval` a suite (a run never mixes
suites), and every test reads its records by task, and the event logs through the hub."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pytest
from support.http import run_async
from support.runs import run_eval

from runner.run.evaluate import TaskRef, summarize, task_set_hash
from runner.stack.stack import Stack
from runner.suite.audit import AuditItem, collect
from services.core.models.folder import Run, RunFolder
from services.core.models.run import AgentConfig, Record, Viewport

PHONE = Viewport(width=390, height=844)
WORKERS = 2
TIME_LIMIT_S = 120
# A test that reads the corpus may be the one whose set-up runs it, so it has the corpus's
# time limit: each episode has its own, this one stops a run that hangs.
CORPUS_TIMEOUT_S = 3600


@dataclass(frozen=True)
class Plan:
    """How a pass runs its tasks: the harness, its settings, the viewport."""

    harness: str
    agent: AgentConfig = field(default_factory=AgentConfig)
    viewport: Viewport = field(default_factory=Viewport)


PASSES = {
    "oracle": Plan("oracle"),
    "noop": Plan("noop"),
    # The oracle's second reference path, keyboard only (runner/harnesses/oracle/ui.py).
    "keyboard": Plan("oracle", AgentConfig(options={"path": "alternate"})),
    "phone": Plan("oracle", viewport=PHONE),
    "phone_noop": Plan("noop", viewport=PHONE),
}


@dataclass
class Pass:
    """One pass's runs, by suite, and what a test reads of them."""

    stack: Stack
    runs: dict[str, Run] = field(default_factory=dict)
    folders: dict[str, Path] = field(default_factory=dict)

    def records(self, refs: list[TaskRef]) -> list[Record]:
        """The records of these tasks, in their order; fails on a task the pass did not run
        (one no selected test names in its marker)."""
        by_task = {r.task: r for run in self.runs.values() for r in run.records}
        missing = [ref.name for ref in refs if ref.name not in by_task]
        assert not missing, f"not in the corpus (name them in the test's marker): {missing}"
        return [by_task[ref.name] for ref in refs]

    def items(self, refs: list[TaskRef]) -> list[AuditItem]:
        """These tasks' shifted conditions and event logs, from the hub, for the audit."""
        hub, token = self.stack.hub_url, self.stack.token
        return run_async(collect(hub, token, refs, self.records(refs)))  # type: ignore[no-any-return]

    def write(self, folder: Path, refs: list[TaskRef]) -> Run:
        """A run folder of these tasks alone, as `runner eval` writes one: their run's
        manifest with their count, names and hash, their records and their summary."""
        records = self.records(refs)
        (suite,) = {ref.suite for ref in refs}
        counted = {
            "tasks": len(refs),
            "task_names": [r.name for r in refs],
            "task_set_hash": task_set_hash(refs),
        }
        manifest = self.runs[suite].manifest.model_copy(update=counted)
        summary = summarize(records)
        RunFolder(folder).write(manifest, records, summary)
        return Run(folder.name, manifest, records, summary)


@dataclass
class Corpus:
    """Every pass; one no selected test names has no runs."""

    oracle: Pass
    noop: Pass
    keyboard: Pass
    phone: Pass
    phone_noop: Pass


def named(items: list[pytest.Item]) -> dict[str, dict[str, dict[str, TaskRef]]]:
    """What the `corpus` markers of these tests name: pass -> suite -> task -> its ref (each
    function called once; a task two functions give must be the same task)."""
    given: dict[Callable[[], list[TaskRef]], list[TaskRef]] = {}
    wanted: dict[str, dict[str, dict[str, TaskRef]]] = {name: {} for name in PASSES}
    for item in items:
        for marker in item.iter_markers("corpus"):
            for name, tasks in marker.kwargs.items():
                if name not in PASSES:
                    raise pytest.UsageError(f"{item.nodeid}: no corpus pass {name!r}")
                if tasks not in given:
                    given[tasks] = tasks()
                for ref in given[tasks]:
                    known = wanted[name].setdefault(ref.suite, {}).setdefault(ref.name, ref)
                    assert known.task == ref.task, f"two tasks named {ref.name}"
    return wanted


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The corpus's time limit for every test that reads it."""
    for item in items:
        if "corpus" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.timeout(CORPUS_TIMEOUT_S), append=False)


def progress(run: str, record: Record) -> None:
    """A line per record, so that a corpus that fails (or is stopped by its time limit)
    shows in its captured output how far each run got and how each attempt ended."""
    ended = f"{record.status} ems={record.ems} {record.seconds:.0f}s x{record.attempts}"
    if record.error:
        ended += f": {record.error}"
    print(f"{time.strftime('%H:%M:%S')} {run} {record.task}: {ended}", flush=True)


@pytest.fixture(scope="session")
def corpus(
    stack: Stack, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Corpus:
    """Every pass over what the selected tests name, on the shared stack."""
    root = tmp_path_factory.mktemp("corpus")
    passes = {}
    for name, suites in named(request.session.items).items():
        plan, ran = PASSES[name], Pass(stack)
        for suite, refs in suites.items():
            out = ran.folders[suite] = root / name / suite
            ran.runs[suite] = run_eval(
                stack,
                out,
                plan.harness,
                list(refs.values()),
                WORKERS,
                TIME_LIMIT_S,
                plan.agent,
                viewport=plan.viewport,
                on_record=partial(progress, f"{name}/{suite}"),
            )
        passes[name] = ran
    return Corpus(**passes)
