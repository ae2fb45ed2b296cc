"""Evaluations from a test: `runner eval` in-process over chosen tasks (rendered through
variants when asked), its failures, and the `runner` command as a user types it."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runner.settings import TASKS_DIR, free_port
from services.core.models.folder import Run
from services.core.models.run import Record
from support.http import run_async


def site_tasks(site: str) -> list[Any]:
    """A site's canonical tasks (`TaskRef`s), without the generated variant files."""
    from runner.run.evaluate import select_tasks

    return [ref for ref in select_tasks(TASKS_DIR, site, None) if not ref.is_variant]


def with_variants(
    refs: list[Any], site: str, variants: dict[str, str], profile: str | None = None
) -> list[Any]:
    """Copies of the tasks rendered through `variants` (the task's domain_configs); with a
    `profile`, named and marked as that profile's variant files are."""
    from runner.run.evaluate import TaskRef

    out = []
    for ref in refs:
        task = copy.deepcopy(ref.task)
        task["domain_configs"] = {site: {"ui_variants": dict(variants)}}
        name = ref.name
        if profile:
            task["test_data"]["ui_variants"] = dict(variants)
            task["test_data"]["ui_variant_profile"] = profile
            name = f"{ref.name}__{profile}"
        out.append(TaskRef(name, ref.path, task))
    return out


def run_eval(
    stack: Any,
    out: Any,
    harness: str,
    refs: list[Any],
    workers: int = 2,
    time_limit: float = 90,
    agent: Any = None,
    prices: Any = None,
    repeat: int = 1,
    viewport: Any = None,
    on_record: Callable[[Record], None] | None = None,
) -> Run:
    """`runner eval` of these tasks against the test stack (two workers, 90 s a task unless
    told), with an agent harness's settings and price table when given, `repeat` times, at
    `viewport` (the default's when none), each record given to `on_record`. Every episode's
    `trajectory.json` is checked as ATIF by the `atif` package's own models, and the run is
    bundled and re-scored from its event logs (`runner rescore`), every verdict agreeing."""
    from runner.harnesses.harness import get_harness
    from runner.run.evaluate import Setup, evaluate
    from services.core.models.run import AgentConfig, RunPlan, Viewport

    run = evaluate(
        stack.address,
        Setup(get_harness(harness), agent or AgentConfig(), prices or {}),
        refs,
        out,
        RunPlan(
            workers=workers, time_limit=time_limit, repeat=repeat, viewport=viewport or Viewport()
        ),
        on_record,
    )
    done: Run = run_async(run)
    for record in done.records:
        if record.episode:
            atif_of(Path(out) / record.episode)
    rescored(Path(out), done.records)
    return done


def rescored(out: Path, records: list[Record]) -> None:
    """The run in `out` bundled and re-scored: every scored record agrees with its log."""
    from runner.results.bundle import rescore, write_bundle
    from services.core.models.folder import RunFolder

    with tempfile.TemporaryDirectory() as folder:
        bundle = Path(folder) / "run.tar.gz"
        write_bundle(RunFolder(out), bundle)
        done = rescore(bundle)
    assert done.agreed == sum(r.ems is not None for r in records), done


def atif_of(episode: Path) -> Any:
    """The episode folder's `trajectory.json`, read by the `atif` package (ATIF v1.7)."""
    from atif import Trajectory

    trajectory = Trajectory.model_validate_json((episode / "trajectory.json").read_bytes())
    assert trajectory.schema_version == "ATIF-v1.7"
    return trajectory


def failures(records: list[Record]) -> dict[str, tuple[str, str | None]]:
    """Task -> (status, error) of every record that did not pass."""
    return {r.task: (r.status, r.error) for r in records if r.ems != 1}


def solved_on_a_phone(corpus: Any, refs: list[Any], suite: str) -> None:
    """The corpus's oracle solves these tasks of `suite` at the phone's viewport (its run's
    manifest says so), and its noop none."""
    from services.core.models.run import Viewport

    assert refs
    assert failures(corpus.phone.records(refs)) == {}
    assert corpus.phone.runs[suite].manifest.viewport == Viewport(width=390, height=844)
    assert all(r.ems == 0 for r in corpus.phone_noop.records(refs))


def solved_and_audited(corpus: Any, refs: list[Any]) -> None:
    """The corpus's oracle solves these tasks with no side effect, its noop none, and the
    audit passes on the oracle's logs."""
    from runner.suite.audit import audit_suite, suite_line

    assert refs
    unsolved = {
        r.task: (r.status, r.error, r.side_effects)
        for r in corpus.oracle.records(refs)
        if r.ems != 1 or r.side_effects != []
    }
    assert unsolved == {}
    assert all(r.ems == 0 for r in corpus.noop.records(refs))
    audit = audit_suite(corpus.oracle.items(refs))
    assert audit.ok, suite_line(audit)


def runner(
    home: Path, *args: str, port: int | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The `runner` command as a user types it, under its own WPB_HOME and hub port (and
    `env` besides)."""
    env = {
        **os.environ,
        "WPB_HOME": str(home),
        "WPB_HUB_PORT": str(port or free_port()),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "runner", *args],
        env=env,
        text=True,
        capture_output=True,
        timeout=180,
    )
