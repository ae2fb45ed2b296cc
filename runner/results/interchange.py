"""Results in the upstream WebPageBench `results.json` layout, both ways: our run written
for upstream tools (`runner export --format upstream`) and an upstream file read in as a
run directory (`runner import`) so that it sits on our board (docs/results.md)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import Field

from runner.run.evaluate import TaskRef, select_tasks, summarize, task_set_hash
from services.core.models.base import Boundary, FileFormatError
from services.core.models.folder import Run, RunFolder
from services.core.models.run import (
    AgentSettings,
    ConditionReport,
    Manifest,
    Record,
    Status,
    Usage,
)


class InterchangeError(ValueError):
    """A file that is not in the upstream layout."""


class TokenUsage(Boundary):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    llm_calls: int = 0

    @classmethod
    def of(cls, usage: dict[str, Usage]) -> TokenUsage:
        prompt = sum(u.input_tokens for u in usage.values())
        completion = sum(u.output_tokens for u in usage.values())
        return cls(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            llm_calls=sum(u.calls for u in usage.values()),
        )


class UpstreamClass(Boundary):
    primary: str = "?"


class UpstreamCheck(Boundary):
    """Ours, carried along: the verdict of the attempt."""

    ems: int | None = None
    passed: int | None = None
    total: int | None = None
    conditions: list[ConditionReport] = Field(default_factory=list)


class UpstreamTest(Boundary):
    """One entry of `tests`: one attempt on one task."""

    test_name: str
    success: bool
    input: str = ""
    actual_output: str | None = ""
    duration_seconds: float = 0.0
    agent_steps: int = 0
    agent_is_done: bool = False
    agent_error: str | None = None
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    ui_taxonomy: UpstreamClass = Field(default_factory=UpstreamClass)
    check: UpstreamCheck = Field(default_factory=UpstreamCheck)


class UpstreamRun(TokenUsage):
    """`run`: the totals of the file."""

    model: str | None = None
    provider: str | None = None
    agent_harness: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    total_tasks: int = 0
    passed_tasks: int = 0
    failed_tasks: int = 0
    success_rate: float = 0.0
    total_duration_seconds: float = 0.0
    avg_duration_seconds: float = 0.0
    total_agent_steps: int = 0
    avg_agent_steps: float = 0.0
    token_usage_by_model: dict[str, Usage] = Field(default_factory=dict)


class UpstreamResults(Boundary):
    """Upstream's `results.json`."""

    run: UpstreamRun
    tests: list[UpstreamTest]


def to_upstream(run: Run, tasks_dir: Path) -> UpstreamResults:
    """`run` as upstream's results.json: `run` (totals) and `tests` (one per record)."""
    prompts = {
        ref.name: ref.task["test_data"]["task"]
        for ref in select_tasks(tasks_dir, None, None, run.suite)
    }
    records = [r for r in run.records if r.scored]
    by_model: dict[str, Usage] = {}
    for record in records:
        for model, usage in record.usage.items():
            total = by_model.setdefault(model, Usage())
            total.input_tokens += usage.input_tokens
            total.output_tokens += usage.output_tokens
            total.calls += usage.calls
    tests = [
        UpstreamTest(
            test_name=record.task,
            input=prompts.get(record.task, ""),
            actual_output=record.final_message,
            success=record.ems == 1,
            duration_seconds=record.seconds,
            agent_steps=record.steps,
            agent_is_done=bool(record.completion),
            agent_error=record.error,
            token_usage=TokenUsage.of(record.usage),
            ui_taxonomy=UpstreamClass(primary=record.ui_primary),
            check=UpstreamCheck(
                ems=record.ems,
                passed=record.passed,
                total=record.total,
                conditions=record.conditions,
            ),
        )
        for record in records
    ]
    passed = sum(t.success for t in tests)
    seconds = sum(t.duration_seconds for t in tests)
    steps = sum(t.agent_steps for t in tests)
    started = run.manifest.created_at
    finished = (
        (datetime.fromisoformat(started) + timedelta(seconds=seconds)).isoformat()
        if started
        else None
    )
    count = len(tests)
    return UpstreamResults(
        run=UpstreamRun(
            model=run.manifest.model,
            provider=run.manifest.agent.base_url,
            agent_harness=run.manifest.harness,
            started_at=started,
            finished_at=finished,
            total_tasks=count,
            passed_tasks=passed,
            failed_tasks=count - passed,
            success_rate=round(passed / count, 4) if count else 0.0,
            total_duration_seconds=round(seconds, 3),
            avg_duration_seconds=round(seconds / count, 3) if count else 0.0,
            total_agent_steps=steps,
            avg_agent_steps=round(steps / count, 3) if count else 0.0,
            **TokenUsage.of(by_model).model_dump(),
            token_usage_by_model=by_model,
        ),
        tests=tests,
    )


def from_upstream(data: UpstreamResults, tasks_dir: Path) -> tuple[Manifest, list[Record]]:
    """The manifest and records of an upstream results.json, a run of the released suite.
    Tests named as its tasks take their site, class and variant from our files, and the
    task-set hash of those files (so the run joins our board); a file naming other tasks
    gets a hash of its own names."""
    ours = {ref.name: ref for ref in select_tasks(tasks_dir, None, None)}
    records = [_record(test, ours.get(test.test_name)) for test in data.tests]
    names = sorted({r.task for r in records})
    known = [ref for ref in ours.values() if ref.name in names]  # in `runner eval`'s order
    task_set = (
        task_set_hash(known)
        if len(known) == len(names)
        else "upstream-" + hashlib.sha256("\0".join(names).encode()).hexdigest()[:16]
    )
    head = data.run
    manifest = Manifest(
        created_at=head.started_at or datetime.now(UTC).isoformat(timespec="seconds"),
        harness=head.agent_harness or "upstream",
        model=head.model,
        agent=AgentSettings(base_url=head.provider),
        tasks=len(names),
        task_set_hash=task_set,
        task_names=names,
        imported_from="upstream results.json",
    )
    return manifest, records


def _record(test: UpstreamTest, ref: TaskRef | None) -> Record:
    name, done, ems = test.test_name, test.agent_is_done, int(test.success)
    facets = (
        ref.record()
        if ref is not None
        else Record(
            task=name,
            ui_primary=test.ui_taxonomy.primary,
            variant="__" in name,
            donor=name.split("__", 1)[0],
        )
    )
    return facets.model_copy(
        update={
            "ems": ems,
            "completion": int(done),
            "done_and_pass": int(done and ems == 1),
            "passed": test.check.passed,
            "total": test.check.total,
            "conditions": test.check.conditions,
            "status": Status.AGENT_ERROR if test.agent_error else Status.OK,
            "error": test.agent_error,
            "final_message": test.actual_output or "",
            "steps": test.agent_steps,
            "seconds": test.duration_seconds,
            "tokens": test.token_usage.total_tokens,
            "model_calls": test.token_usage.llm_calls,
            "priced": False,
        }
    )


def import_file(path: Path, runs_root: Path, tasks_dir: Path) -> Path:
    """Write the upstream file at `path` as a run directory under `runs_root`."""
    try:
        data = UpstreamResults.read(path)
    except (OSError, FileFormatError) as exc:
        raise InterchangeError(str(exc)) from exc
    manifest, records = from_upstream(data, tasks_dir)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    folder = RunFolder(runs_root / f"{stamp}-import-{manifest.harness}")
    folder.write(manifest, records, summarize(records))
    return folder.path
