"""Results in the upstream WebPageBench `results.json` layout, both ways: our run written
for upstream tools (`runner export --format upstream`) and an upstream file read in as a
run directory (`runner import`) so that it sits on our board (docs/results.md).

The shapes are those upstream's recorder writes and its readers use (its `bench_eval`
package): a test's `dab_check` (conditions passed, failed and total, each condition's
outcome), `ui_taxonomy` (the site as `domain`, the declared class, the checked classes, the
controls as `ui_patterns`), the token split and each model's `cost_usd`. A row whose agent
never ran (upstream writes `agent_is_done` and `duration_seconds` null: a dry run, a track
that could not be made) is an unscored attempt here, as the stand's faults are.

An upstream test takes our task's site, classes and hash only where it is our task: the same
name and the same prompt. Upstream names four tasks of its own as ours are named; those, and
every other upstream task, keep upstream's identity (a hash of their prompt and conditions),
so a comparison never pairs them with ours by name alone."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import Field, JsonValue

from runner.run.evaluate import TaskRef, select_tasks, summarize, task_set_hash
from services.core.models.base import Boundary, FileFormatError
from services.core.models.folder import Run, RunFolder
from services.core.models.run import (
    ConditionReport,
    Manifest,
    Record,
    Status,
    Usage,
)
from services.core.tasks import task_hash

DID_NOT_RUN = "the agent did not run (upstream's agent_is_done is null)"
# The manifest's fields an export carries beside upstream's own.
PROVENANCE = {
    "commit",
    "versions",
    "verifier_checksum",
    "suite",
    "task_set_hash",
    "catalogs",
    "site_versions",
    "harness_packages",
    "observation",
    "action",
    "endpoint",
    "submission_type",
    "modified_prompts",
    "omitted_tasks",
}


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


class ModelUsage(TokenUsage):
    """One model's entry of `token_usage_by_model`: its counters and, where the harness
    recorded it, its cost (upstream keeps only a cost above 0)."""

    # Absent where unknown, as upstream writes it.
    cost_usd: float | None = Field(default=None, exclude_if=lambda cost: cost is None)

    @property
    def usage(self) -> Usage:
        return Usage(
            input_tokens=self.prompt_tokens,
            output_tokens=self.completion_tokens,
            calls=self.llm_calls,
            cost_usd=self.cost_usd,
        )


class Declared(Boundary):
    primary: str | None = None
    classes: list[str] = Field(default_factory=list)


class Patterns(Boundary):
    """The controls a task rendered: each key's implementation and `key:implementation`."""

    domain: str | None = None
    profile_id: str | None = None
    variants: dict[str, str] = Field(default_factory=dict)
    pattern_keys: list[str] = Field(default_factory=list)


class Taxonomy(Boundary):
    """A test's `ui_taxonomy`: the site, the task's declared class and the classes its
    conditions check, its controls. (A file of ours before this layout wrote `primary` at
    the top; it is read too.)"""

    domain: str | None = None
    declared: Declared = Field(default_factory=Declared)
    primary: str | None = None
    checked_classes: list[str] = Field(default_factory=list)
    ui_patterns: Patterns = Field(default_factory=Patterns)

    @property
    def site(self) -> str:
        return self.domain or self.ui_patterns.domain or "?"

    @property
    def class_(self) -> str:
        return self.declared.primary or self.primary or "?"


class CheckResult(Boundary):
    """A condition of the task with its outcome."""

    event_name: str
    parameters: dict[str, JsonValue] = Field(default_factory=dict)
    group: str | int | None = None
    success: bool = False


class DabCheck(Boundary):
    """The verifier's judgement: conditions passed, failed and total (a group counts once),
    `all_passed` (the test's success), the failed ones named, each condition's outcome."""

    passed: int = 0
    failed: int = 0
    total: int = 0
    score: float = 0.0
    all_passed: bool = False
    failed_conditions: list[str] = Field(default_factory=list)
    check_results: list[CheckResult] = Field(default_factory=list)

    @classmethod
    def of(cls, record: Record) -> DabCheck:
        total, passed = record.total or 0, record.passed or 0
        failed: list[str] = []
        for report in record.conditions:
            name = report.event_name if report.group is None else f"group:{report.group}"
            if not report.success and not report.forbidden and name not in failed:
                failed.append(name)
        return cls(
            passed=passed,
            failed=total - passed,
            total=total,
            score=round(passed / total, 4) if total else 0.0,
            all_passed=record.ems == 1 and total > 0,
            failed_conditions=failed,
            check_results=[
                CheckResult(
                    event_name=r.event_name,
                    parameters=r.parameters,
                    group=r.group,
                    success=r.success,
                )
                for r in record.conditions
            ],
        )


class UpstreamTest(Boundary):
    """One entry of `tests`: one attempt on one task."""

    test_name: str
    success: bool
    input: str = ""
    actual_output: str | None = ""
    duration_seconds: float | None = None
    agent_steps: int | None = 0
    agent_is_done: bool | None = None
    agent_error: str | None = None
    tokens: int | None = None
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    token_usage_by_model: dict[str, ModelUsage] = Field(default_factory=dict)
    dab_check: DabCheck = Field(default_factory=DabCheck)
    ui_taxonomy: Taxonomy = Field(default_factory=Taxonomy)


class Bucket(Boundary):
    total: int = 0
    passed: int = 0
    failed: int = 0
    success_rate: float = 0.0
    tests: list[str] = Field(default_factory=list)


class UpstreamRun(TokenUsage):
    """`run`: the totals of the file."""

    model: str | None = None
    provider: str | None = None
    agent_harness: str | None = None
    mock: str = "bench"
    started_at: str | None = None
    finished_at: str | None = None
    finished: bool = True
    total_tasks: int = 0
    passed_tasks: int = 0
    failed_tasks: int = 0
    success_rate: float = 0.0
    total_duration_seconds: float = 0.0
    avg_duration_seconds: float = 0.0
    total_agent_steps: int = 0
    avg_agent_steps: float = 0.0
    avg_tokens_per_task: float = 0.0
    token_usage_by_model: dict[str, ModelUsage] = Field(default_factory=dict)
    # The run's model cost where every attempt's is known (upstream's readers take a
    # recorded `cost_usd` on the run); null where one is not.
    cost_usd: float | None = None
    # How the run was made, as our manifest says it (upstream's readers pass it by): the
    # commit, the verifier, the task set, the catalogs, the site versions, the harness's
    # packages and tool surface, the endpoint and the submission type.
    webpagebench: dict[str, JsonValue] = Field(default_factory=dict)


class UpstreamResults(Boundary):
    """Upstream's `results.json`."""

    run: UpstreamRun
    ui_taxonomy_stats: dict[str, dict[str, Bucket]] = Field(default_factory=dict)
    tests: list[UpstreamTest]


def to_upstream(run: Run, tasks_dir: Path) -> UpstreamResults:
    """`run` as upstream's results.json: `run` (totals), `ui_taxonomy_stats` and `tests`
    (one per record; an unscored one as upstream writes a test whose agent did not run)."""
    prompts = {
        ref.name: ref.task["test_data"]["task"]
        for ref in select_tasks(tasks_dir, None, None, run.suite)
    }
    tests = [_test(r, r.prompt or prompts.get(r.task, "")) for r in run.records]
    total = _totals(run.manifest, tests)
    total.webpagebench = run.manifest.model_dump(mode="json", include=PROVENANCE)
    total.cost_usd = (
        round(sum(r.cost for r in run.records), 6) if all(r.priced for r in run.records) else None
    )
    return UpstreamResults(
        run=total,
        ui_taxonomy_stats=ui_stats(tests),
        tests=tests,
    )


def _test(record: Record, prompt: str) -> UpstreamTest:
    ran = record.scored or record.status != Status.INFRA_ERROR
    by_model = {
        model: ModelUsage(
            **TokenUsage.of({model: usage}).model_dump(), cost_usd=usage.cost_usd or None
        )
        for model, usage in record.usage.items()
    }
    controls = dict(sorted(record.controls.items()))
    usage = TokenUsage.of(record.usage)
    return UpstreamTest(
        test_name=record.task,
        input=prompt,
        actual_output=record.final_message if ran else None,
        success=record.ems == 1,
        duration_seconds=record.seconds if ran else None,
        agent_steps=record.steps,
        agent_is_done=bool(record.completion) if ran else None,
        agent_error=None if record.error == DID_NOT_RUN else record.error,
        tokens=usage.total_tokens,
        token_usage=usage,
        token_usage_by_model=by_model,
        dab_check=DabCheck.of(record),
        ui_taxonomy=Taxonomy(
            domain=record.site,
            declared=Declared(primary=record.ui_primary, classes=record.ui_classes),
            checked_classes=record.ui_classes,
            ui_patterns=Patterns(
                domain=record.site,
                profile_id=record.profile,
                variants=controls,
                pattern_keys=[f"{key}:{impl}" for key, impl in controls.items()],
            ),
        ),
    )


def _totals(manifest: Manifest, tests: list[UpstreamTest]) -> UpstreamRun:
    """The `run` block as upstream's recorder sums it: durations over the tests that have
    one, tokens over the tests that used any."""
    count = len(tests)
    passed = sum(t.success for t in tests)
    durations = [t.duration_seconds for t in tests if t.duration_seconds is not None]
    steps = [t.agent_steps or 0 for t in tests]
    spent = [t.token_usage for t in tests if t.token_usage.total_tokens > 0]
    by_model: dict[str, ModelUsage] = {}
    for test in tests:
        for model, usage in test.token_usage_by_model.items():
            total = by_model.setdefault(model, ModelUsage())
            for name in ("prompt_tokens", "completion_tokens", "total_tokens", "llm_calls"):
                setattr(total, name, getattr(total, name) + getattr(usage, name))
            if usage.cost_usd:
                total.cost_usd = round((total.cost_usd or 0.0) + usage.cost_usd, 6)
    seconds = sum(durations)
    started = manifest.created_at
    finished = (
        (datetime.fromisoformat(started) + timedelta(seconds=seconds)).isoformat()
        if started
        else None
    )
    tokens = sum(u.total_tokens for u in spent)
    return UpstreamRun(
        model=manifest.model,
        provider=manifest.provider or ("openai" if manifest.agent.base_url else None),
        agent_harness=manifest.harness,
        started_at=started,
        finished_at=finished,
        total_tasks=count,
        passed_tasks=passed,
        failed_tasks=count - passed,
        success_rate=round(passed / count, 4) if count else 0.0,
        total_duration_seconds=round(seconds, 3),
        avg_duration_seconds=round(seconds / len(durations), 3) if durations else 0.0,
        total_agent_steps=sum(steps),
        avg_agent_steps=round(sum(steps) / count, 3) if count else 0.0,
        prompt_tokens=sum(u.prompt_tokens for u in spent),
        completion_tokens=sum(u.completion_tokens for u in spent),
        total_tokens=tokens,
        llm_calls=sum(u.llm_calls for u in spent),
        avg_tokens_per_task=round(tokens / len(spent), 3) if spent else 0.0,
        token_usage_by_model=by_model,
    )


def ui_stats(tests: list[UpstreamTest]) -> dict[str, dict[str, Bucket]]:
    """`ui_taxonomy_stats`: tests passed and failed by declared class, by checked class and
    by control pattern."""
    stats: dict[str, dict[str, Bucket]] = {
        "by_primary": {},
        "by_checked_class": {},
        "by_used_class": {},
        "by_ui_pattern": {},
    }

    def count(facet: str, key: str, test: UpstreamTest) -> None:
        bucket = stats[facet].setdefault(key, Bucket())
        bucket.total += 1
        bucket.passed += test.success
        bucket.failed = bucket.total - bucket.passed
        bucket.success_rate = round(bucket.passed / bucket.total, 4)
        if test.test_name not in bucket.tests:
            bucket.tests.append(test.test_name)

    for test in tests:
        taxonomy = test.ui_taxonomy
        if taxonomy.class_ != "?":
            count("by_primary", taxonomy.class_, test)
        for name in taxonomy.checked_classes:
            count("by_checked_class", name, test)
        for key in taxonomy.ui_patterns.pattern_keys:
            count("by_ui_pattern", key, test)
    return stats


def from_upstream(data: UpstreamResults, tasks_dir: Path) -> tuple[Manifest, list[Record]]:
    """The manifest and records of an upstream results.json, a run of the released suite.
    A test of our task (its name and prompt) takes that task's facets and hash; where every
    test is, the run gets our files' task-set hash (and joins our board), else one of its
    own names."""
    ours = {ref.name: ref for ref in select_tasks(tasks_dir, None, None)}
    records = [_record(test, _ours(test, ours)) for test in data.tests]
    names = sorted({r.task for r in records})
    known = [ref for ref in ours.values() if ref.name in names]  # in `runner eval`'s order
    task_set = (
        task_set_hash(known)
        if all(r.task_hash == ours[r.task].hash for r in records if r.task in ours)
        and len(known) == len(names)
        else "upstream-" + hashlib.sha256("\0".join(names).encode()).hexdigest()[:16]
    )
    head = data.run
    manifest = Manifest(
        created_at=head.started_at or datetime.now(UTC).isoformat(timespec="seconds"),
        harness=head.agent_harness or "upstream",
        model=head.model,
        provider=head.provider,
        tasks=len(names),
        task_set_hash=task_set,
        task_names=names,
        imported_from="upstream results.json",
    )
    return manifest, records


def _ours(test: UpstreamTest, ours: dict[str, TaskRef]) -> TaskRef | None:
    """Our task file of `test`'s name where it asks the same (the prompts alike but for
    spacing); None for upstream's own task."""
    ref = ours.get(test.test_name)
    if ref is None:
        return None
    prompt = " ".join(str(ref.task["test_data"]["task"]).split())
    return ref if " ".join(test.input.split()) == prompt else None


def _record(test: UpstreamTest, ref: TaskRef | None) -> Record:
    name, taxonomy = test.test_name, test.ui_taxonomy
    check = test.dab_check
    if ref is not None:
        facets = ref.record()
    else:
        asked = [r.model_dump(exclude={"success"}) for r in check.check_results]
        facets = Record(
            task=name,
            task_hash=task_hash({"test_data": {"task": test.input, "conditions": asked}}),
            site=taxonomy.site,
            ui_primary=taxonomy.class_,
            ui_classes=taxonomy.checked_classes or taxonomy.declared.classes,
            variant="__" in name,
            donor=name.split("__", 1)[0],
            profile=taxonomy.ui_patterns.profile_id,
            controls=taxonomy.ui_patterns.variants,
            prompt=test.input,
        )
    by_model = test.token_usage_by_model
    usage = {model: entry.usage for model, entry in by_model.items()}
    if not usage and test.token_usage.total_tokens:
        usage = {"unknown": ModelUsage(**test.token_usage.model_dump()).usage}
    spent = [entry for entry in by_model.values() if entry.total_tokens > 0]
    priced = all(entry.cost_usd for entry in spent) and bool(spent or not usage)
    outcome = (
        {
            "ems": int(test.success),
            "completion": int(test.agent_is_done),
            "done_and_pass": int(test.agent_is_done and test.success),
            "passed": check.passed,
            "total": check.total,
            "status": Status.AGENT_ERROR if test.agent_error else Status.OK,
            "error": test.agent_error,
        }
        if test.agent_is_done is not None
        else {"status": Status.INFRA_ERROR, "error": test.agent_error or DID_NOT_RUN}
    )
    return facets.model_copy(
        update={
            **outcome,
            "conditions": [
                ConditionReport(**r.model_dump(), matched_event=None) for r in check.check_results
            ],
            "final_message": test.actual_output or "",
            "steps": test.agent_steps or 0,
            "seconds": test.duration_seconds or 0.0,
            "tokens": test.token_usage.total_tokens,
            "usage": usage,
            "model_calls": test.token_usage.llm_calls,
            "cost": round(sum(entry.cost_usd or 0.0 for entry in spent), 6),
            "priced": priced,
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
