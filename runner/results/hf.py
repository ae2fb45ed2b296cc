"""A run as Hugging Face Hub evaluation results (`runner export --format hf-eval RUN`;
docs/results.md, "On the Hugging Face Hub").

Three files go to `out`: the model repo's entry `.eval_results/webpagebench-<suite>.yaml`
(the run's EMS as a percentage on the benchmark dataset's task of its suite, its date, the
harness and provenance in `notes`, the bundle as its `source`), the benchmark dataset's
`eval.yaml` (WebPageBench registered, a task per suite with each task-set hash in its
description) and the run's bundle (runner/results/bundle.py), the evidence a leaderboard
re-scores. Only a run that a leaderboard may rank is written: a standard one of this
benchmark (none of its suite's tasks left out or changed, judged by a verifier it names).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from runner.results.bundle import write_bundle
from runner.run.evaluate import select_tasks, task_set_hash
from services.core.models.folder import Run, RunFolder
from services.core.tasks import SUITES

DATASET = "webpagebench/webpagebench"
FRAMEWORK = "webpagebench"
SPLIT = "test"
DESCRIPTION = (
    "WebPageBench: six mock sites in Russian (a marketplace, a bookstore, grocery delivery, rail"
    " tickets, hotels, a document cabinet) that write a typed event for every meaningful"
    " action; a task's conditions on those events decide its score (EMS, the share of tasks"
    " whose every condition holds). A result's source is a bundle of the run's event logs,"
    " which `runner rescore` judges again."
)


class NotPublishable(ValueError):
    """A run a leaderboard would not rank: the message says why."""


@dataclass(frozen=True)
class Written:
    entry: Path
    registry: Path
    bundle: Path


def benchmark(tasks_dir: Path) -> dict[str, Any]:
    """The dataset's `eval.yaml`: WebPageBench and a task per suite that has tasks."""
    tasks, sets = [], []
    for suite in SUITES:
        refs = select_tasks(tasks_dir, None, None, suite)
        if refs:
            tasks.append({"id": suite, "config": suite, "split": SPLIT})
            sets.append(f"{suite}: {len(refs)} tasks, task set {task_set_hash(refs)}")
    return {
        "name": "WebPageBench",
        "description": f"{DESCRIPTION} Tasks: {'; '.join(sets)}.",
        "evaluation_framework": FRAMEWORK,
        "tasks": tasks,
    }


def entry(run: Run, dataset: str, source: str | None) -> list[dict[str, Any]]:
    """The model repo's result for `run`; NotPublishable where a leaderboard would not rank
    it."""
    manifest = run.manifest
    if manifest.imported_from or not manifest.verifier_checksum:
        raise NotPublishable("the run names no verifier that judged it (an imported or older run)")
    if manifest.submission_type != "standard":
        left, changed = len(manifest.omitted_tasks), len(manifest.modified_prompts)
        raise NotPublishable(
            f"the run is not a standard one of its suite ({left} of its tasks left out,"
            f" {changed} changed): a leaderboard ranks the whole suite as released"
        )
    ems = run.summary.overall.ems if run.summary else None
    if ems is None:
        raise NotPublishable("the run has no scored attempt")
    notes = (
        f"harness {manifest.harness}; model endpoint {manifest.endpoint or 'unknown'};"
        f" {manifest.repeat} attempt(s) a task; task set {manifest.task_set_hash};"
        f" verifier {manifest.verifier_checksum[:12]}; commit {manifest.commit}"
    )
    result: dict[str, Any] = {
        "dataset": {"id": dataset, "task_id": run.suite},
        "value": round(ems * 100, 2),
        "date": (manifest.created_at or "")[:10] or None,
        "evaluation_framework": FRAMEWORK,
        "notes": notes,
    }
    if source:
        result["source"] = {"url": source, "name": f"WebPageBench bundle of {run.name}"}
    return [{key: value for key, value in result.items() if value is not None}]


def export(
    folder: RunFolder, run: Run, out: Path, tasks_dir: Path, dataset: str | None, source: str | None
) -> Written:
    """The entry of `run` (the one in `folder`), the benchmark's `eval.yaml` and the run's
    bundle under `out`; the entry on `dataset` (by default DATASET)."""
    result = entry(run, dataset or DATASET, source)
    suite = result[0]["dataset"]["task_id"]
    written = Written(
        out / ".eval_results" / f"webpagebench-{suite}.yaml",
        out / "eval.yaml",
        out / f"{folder.name}.tar.gz",
    )
    written.entry.parent.mkdir(parents=True, exist_ok=True)
    written.entry.write_text(dump(result), encoding="utf-8")
    written.registry.write_text(dump(benchmark(tasks_dir)), encoding="utf-8")
    write_bundle(folder, written.bundle)
    return written


def dump(data: object) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
