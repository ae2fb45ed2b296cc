"""Results in the upstream WebPageBench `results.json` layout, both ways: our run written
for upstream tools (`runner export --format upstream`) and an upstream file read in as a
run directory (`runner import`) so that it sits on our board (docs/results.md)."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from runner.evaluate import TaskRef, select_tasks, summarize, task_set_hash
from services.core.models.base import describe
from services.core.models.run import (
    MANIFEST,
    RECORDS,
    SUMMARY,
    AgentSettings,
    Manifest,
    Record,
    Status,
    Usage,
    record_lines,
)
from services.core.results.board import Run


class InterchangeError(ValueError):
    """A file that is not in the upstream layout."""


def _tokens(usage: dict[str, Usage]) -> dict[str, int]:
    prompt = sum(u.input_tokens for u in usage.values())
    completion = sum(u.output_tokens for u in usage.values())
    calls = sum(u.calls for u in usage.values())
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "llm_calls": calls,
    }


def to_upstream(run: Run, tasks_dir: Path) -> dict[str, Any]:
    """`run` as upstream's results.json: `run` (totals) and `tests` (one per record)."""
    prompts = {ref.name: ref.task["test_data"].get("task", "") for ref in _refs(tasks_dir)}
    records = [r for r in run.records if r.scored]
    by_model: dict[str, Usage] = {}
    for record in records:
        for model, usage in record.usage.items():
            total = by_model.setdefault(model, Usage())
            total.input_tokens += usage.input_tokens
            total.output_tokens += usage.output_tokens
            total.calls += usage.calls
    tests = [
        {
            "test_name": record.task,
            "input": prompts.get(record.task, ""),
            "actual_output": record.final_message,
            "success": record.ems == 1,
            "duration_seconds": record.seconds,
            "agent_steps": record.steps,
            "agent_is_done": bool(record.completion),
            "agent_error": record.error,
            "token_usage": _tokens(record.usage),
            "ui_taxonomy": {"primary": record.ui_primary},
            "check": {
                "ems": record.ems,
                "passed": record.passed,
                "total": record.total,
                "conditions": [c.model_dump(exclude_defaults=True) for c in record.conditions],
            },
        }
        for record in records
    ]
    passed = sum(t["success"] for t in tests)
    seconds = sum(t["duration_seconds"] for t in tests)
    steps = sum(t["agent_steps"] for t in tests)
    started = run.manifest.created_at
    finished = (
        (datetime.fromisoformat(started) + timedelta(seconds=seconds)).isoformat()
        if started
        else None
    )
    totals = _tokens(by_model)
    return {
        "run": {
            "model": run.manifest.model,
            "provider": run.manifest.agent.base_url,
            "agent_harness": run.manifest.harness,
            "started_at": started,
            "finished_at": finished,
            "total_tasks": len(tests),
            "passed_tasks": passed,
            "failed_tasks": len(tests) - passed,
            "success_rate": round(passed / len(tests), 4) if tests else 0.0,
            "total_duration_seconds": round(seconds, 3),
            "avg_duration_seconds": round(seconds / len(tests), 3) if tests else 0.0,
            "total_agent_steps": steps,
            "avg_agent_steps": round(steps / len(tests), 3) if tests else 0.0,
            **totals,
            "token_usage_by_model": {m: u.model_dump() for m, u in by_model.items()},
        },
        "tests": tests,
    }


def _refs(tasks_dir: Path) -> list[TaskRef]:
    return select_tasks(tasks_dir, None, None)


def from_upstream(data: Any, tasks_dir: Path) -> tuple[Manifest, list[Record]]:
    """The manifest and records of an upstream results.json. Tests named as our tasks take
    their site, class and variant from our files, and the task-set hash of those files (so
    the run joins our board); a file naming other tasks gets a hash of its own names."""
    if not isinstance(data, dict) or not isinstance(data.get("run"), dict):
        raise InterchangeError("expected an object with `run` and `tests`")
    tests = data.get("tests")
    if not isinstance(tests, list) or not all(isinstance(t, dict) for t in tests):
        raise InterchangeError("`tests` must be a list of objects")
    head = data["run"]
    ours = {ref.name: ref for ref in _refs(tasks_dir)}
    records = []
    for i, test in enumerate(tests):
        name = test.get("test_name")
        if not isinstance(name, str) or not isinstance(test.get("success"), bool):
            raise InterchangeError(f"tests[{i}]: needs test_name (text) and success (true/false)")
        records.append(_record(test, ours.get(name)))
    names = sorted({r.task for r in records})
    known = [ref for ref in ours.values() if ref.name in names]  # in `runner eval`'s order
    suite = (
        task_set_hash(known)
        if len(known) == len(names)
        else "upstream-" + hashlib.sha256("\0".join(names).encode()).hexdigest()[:16]
    )
    manifest = Manifest(
        created_at=head.get("started_at") or datetime.now(UTC).isoformat(timespec="seconds"),
        harness=str(head.get("agent_harness") or "upstream"),
        model=head.get("model"),
        agent=AgentSettings(base_url=head.get("provider")),
        tasks=len(names),
        task_set_hash=suite,
        task_names=names,
        imported_from="upstream results.json",
    )
    return manifest, records


def _record(test: dict[str, Any], ref: TaskRef | None) -> Record:
    name = test["test_name"]
    usage = test.get("token_usage") or {}
    check = test.get("check") or {}
    done = bool(test.get("agent_is_done"))
    ems = int(test["success"])
    fields = {
        "ems": ems,
        "completion": int(done),
        "done_and_pass": int(done and ems == 1),
        "passed": check.get("passed"),
        "total": check.get("total"),
        "conditions": check.get("conditions") or [],
        "status": Status.OK if not test.get("agent_error") else Status.AGENT_ERROR,
        "error": test.get("agent_error"),
        "final_message": str(test.get("actual_output") or ""),
        "steps": int(test.get("agent_steps") or 0),
        "seconds": float(test.get("duration_seconds") or 0.0),
        "tokens": int(usage.get("total_tokens") or 0),
        "model_calls": int(usage.get("llm_calls") or 0),
        "priced": False,
    }
    facets = (
        ref.record()
        if ref
        else Record(
            task=name,
            ui_primary=str((test.get("ui_taxonomy") or {}).get("primary", "?")),
            variant="__" in name,
            donor=name.split("__", 1)[0],
        )
    )
    try:
        return Record.model_validate({**facets.model_dump(), **fields})
    except ValidationError as exc:
        raise InterchangeError(f"tests[{name}]: {describe(exc)}") from None


def import_file(path: Path, runs_root: Path, tasks_dir: Path) -> Path:
    """Write the upstream file at `path` as a run directory under `runs_root`."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InterchangeError(f"{path}: {exc}") from exc
    manifest, records = from_upstream(data, tasks_dir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = runs_root / f"{stamp}-import-{manifest.harness}"
    folder.mkdir(parents=True, exist_ok=False)
    manifest.write(folder / MANIFEST)
    (folder / RECORDS).write_text(record_lines(records), encoding="utf-8")
    summarize(records).write(folder / SUMMARY)
    return folder
