"""`runner tasks build`, `validate`, `list`, `show` and `audit`: the task suite."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from runner.cli.common import App, SuiteOption, WideOption, console, fail
from runner.cli.eval import run_on_stack, selected
from runner.cli.tables import print_audit, print_generation, print_task_counts
from runner.harnesses.harness import get_harness
from runner.run.evaluate import TaskRef, select_tasks, task_set_hash
from runner.run.request import EvalRequest
from runner.settings import TASKS_DIR, RunnerSettings
from runner.suite.suite import build as build_variants
from runner.suite.suite import counts, shown_prompt, validate_paths
from services.core.errors import FieldError
from services.core.models.task import RELEASED
from services.core.tasks import find_task, suite_of, task_files

tasks_app = App(help="The task suite: build variants, validate, list, show.", no_args_is_help=True)


@tasks_app.command("build")
def tasks_build(
    check: Annotated[bool, typer.Option(help="only check the committed files are current")] = False,
    generated: Annotated[
        Path | None,
        typer.Option(help="a generated folder: its instances' variants, beside them"),
    ] = None,
) -> None:
    """Write tasks/variants/ from tasks/variants.toml, or --check that they are current.

    With --generated, write the variants of a generated folder's instances (each takes the
    profiles of its family's donors)."""
    if generated is not None:
        build_generated(generated, check)
        return
    try:
        wanted = build_variants(TASKS_DIR, write=not check)
    except FieldError as exc:
        fail(str(exc))
    if check:
        present = set(task_files(TASKS_DIR / "variants"))
        stale = [
            p
            for p, text in wanted.items()
            if not p.exists() or p.read_text(encoding="utf-8") != text
        ]
        extra = present - set(wanted)
        if stale or extra:
            fail(
                f"variants are not current ({len(stale)} differ, {len(extra)} extra): "
                "run `runner tasks build`"
            )
    total = len(task_files(TASKS_DIR))
    console.print(f"{len(wanted)} variants; {total} tasks in all")


def build_generated(folder: Path, check: bool) -> None:
    from runner.suite.generate import build_variants as generated_variants

    if not folder.is_dir():
        fail(f"--generated: no folder {folder}")
    try:
        wanted = generated_variants(TASKS_DIR, folder, write=not check)
    except FieldError as exc:
        fail(str(exc))
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text() != text]
    if check and stale:
        fail(
            f"variants are not current ({len(stale)} differ): run `runner tasks build --generated`"
        )
    console.print(f"{len(wanted)} variants; {len(task_files(folder))} tasks in {folder}")


@tasks_app.command("validate")
def tasks_validate(
    paths: Annotated[list[Path] | None, typer.Argument(help="files or folders")] = None,
) -> None:
    """Check task files: schema, screens, events and parameters, catalog ids, variants, dates."""
    report = validate_paths(paths or [TASKS_DIR])
    bad = {path: problems for path, problems in report.items() if problems}
    for path, problems in bad.items():
        for problem in problems:
            console.print(f"[red]✗[/red] {path}: {problem}", soft_wrap=True)
    console.print(f"{len(report) - len(bad)} of {len(report)} task files valid")
    if bad or not report:
        raise typer.Exit(1)


@tasks_app.command("list")
def tasks_list(suite: SuiteOption = RELEASED, wide: WideOption = False) -> None:
    """Count a suite's tasks by site, UI class and kind; print its task-set hash.

    The counts are by site, UI class (primary and any), canonical versus variant; the hash
    is what a run of the suite records; the last line counts the task files of each suite."""
    refs = select_tasks(TASKS_DIR, None, None, suite)
    print_task_counts(console, counts(TASKS_DIR, suite), suite, task_set_hash(refs), wide)


@tasks_app.command("show")
def tasks_show(
    name: Annotated[str, typer.Argument(help="task file stem")],
    today: Annotated[str | None, typer.Option(help="the stand's today, YYYY-MM-DD")] = None,
) -> None:
    """Print a task's prompt as an agent would receive it today (dates shifted)."""
    path = find_task(TASKS_DIR, name)
    if path is None:
        fail(f"no task named {name!r} under {TASKS_DIR}")
    try:
        day = date.fromisoformat(today) if today else RunnerSettings().today_date()
    except ValueError:
        fail("--today: expected YYYY-MM-DD")
    task = json.loads(path.read_text(encoding="utf-8"))
    prompt, shift = shown_prompt(task, day, "http://127.0.0.1:8000/t/<trajectory>/")
    data = task["test_data"]
    console.print(
        f"[bold]{name}[/bold] · suite {suite_of(task)} · {data.get('bench_first_domain')} · "
        f"{(data.get('ui_taxonomy') or {}).get('primary', '?')} · "
        f"profile {data.get('ui_variant_profile', 'canonical')} · "
        f"dates shifted {shift} days (today {day})"
    )
    console.print(prompt, soft_wrap=True)


@tasks_app.command("audit")
def tasks_audit(
    suite: SuiteOption = RELEASED,
    tasks: Annotated[
        str | None, typer.Option(help="comma-separated sites, names or globs of the suite")
    ] = None,
    max_tasks: Annotated[int | None, typer.Option(min=1, help="at most this many tasks")] = None,
    workers: Annotated[int, typer.Option(min=1, max=32, help="tasks run at once")] = 1,
    time_limit: Annotated[float, typer.Option(min=1, help="seconds per task")] = 120,
    today: Annotated[str | None, typer.Option(help="stand's today for an ephemeral stack")] = None,
    report: Annotated[Path | None, typer.Option(help="write the full result as JSON")] = None,
    kinds: Annotated[
        str | None,
        typer.Option(help="near misses to make: drop,param,free,last,forbid,replaced,beyond"),
    ] = None,
    wide: WideOption = False,
) -> None:
    """Run the reference solver, then check that near misses of its logs fail.

    It also checks that each task's primary UI class is exercised (docs/tasks.md, "The
    audit")."""
    from runner.suite.audit import KINDS, audit_suite, collect, suite_line

    chosen_kinds = [k.strip() for k in (kinds or ",".join(KINDS)).split(",") if k.strip()]
    if not chosen_kinds or set(chosen_kinds) - set(KINDS):
        fail(f"--kinds: expected some of {','.join(KINDS)}, got {kinds!r}")

    request = EvalRequest(
        harness="oracle",
        suite=suite,
        tasks=tasks,
        max_tasks=max_tasks,
        workers=workers,
        time_limit=time_limit,
        today=today,
    )
    refs = selected(request)
    _, _, items = run_on_stack(
        request,
        get_harness("oracle"),
        refs,
        then=lambda hub, run: asyncio.run(collect(hub.url, hub.token, refs, run.records)),
    )
    summary = audit_suite(items, kinds=chosen_kinds)
    print_audit(console, summary, wide)
    console.print(suite_line(summary))
    if summary.original_failures:
        failing = ", ".join(summary.original_failures)
        console.print(f"[red]the reference log fails[/red] for {failing}", soft_wrap=True)
    if report is not None:
        summary.write(report)
        console.print(f"report in {report}")
    if not summary.ok:
        raise typer.Exit(1)


@tasks_app.command("generate")
def tasks_generate(
    family: Annotated[str, typer.Option(help="a family of tasks/families/, or all")],
    seed: Annotated[int, typer.Option(help="the seed: the same seed and code, the same files")],
    count: Annotated[int, typer.Option(help="instances in all (shared over the families)")],
    out: Annotated[Path, typer.Option(help="the folder to write <site>/<name>.json into")],
    prove: Annotated[
        bool, typer.Option(help="admit only what the oracle solves and the audit holds")
    ] = False,
    workers: Annotated[int, typer.Option(min=1, max=32, help="--prove: tasks run at once")] = 1,
    time_limit: Annotated[float, typer.Option(min=1, help="--prove: seconds per task")] = 120,
    today: Annotated[str | None, typer.Option(help="stand's today for an ephemeral stack")] = None,
    hub: Annotated[
        str | None, typer.Option(help="--prove: a running stand's hub (else the embedded one)")
    ] = None,
    report: Annotated[Path | None, typer.Option(help="write the report as JSON")] = None,
    wide: WideOption = False,
) -> None:
    """Write a generated suite: COUNT instances of the family (or of all) by SEED.

    Each is admitted only when it validates, is unambiguous and copies no released task; with
    --prove also when the oracle solves it through the real UI and the audit holds
    (docs/tasks.md, "Generated suites"). Refusals are counted by reason."""
    from runner.suite.generate import generate, suite_name

    prover = None
    if prove:
        suite = suite_name(family, seed)

        def prover(refs: list[TaskRef]) -> dict[str, str | None]:
            return prove_on_stand(refs, suite, workers, time_limit, today, hub)

    try:
        result = generate(TASKS_DIR, family, seed, count, out, prover)
    except FieldError as exc:
        fail(str(exc))
    print_generation(console, result, out, wide)
    if report is not None:
        report.write_text(json.dumps(result.as_json(), ensure_ascii=False, indent=2) + "\n")
        console.print(f"report in {report}")
    short = result.short()
    if short:
        missing = ", ".join(f"{f} {n}" for f, n in sorted(short.items()))
        console.print(f"[red]fewer instances than asked[/red]: {missing}", soft_wrap=True)
        raise typer.Exit(1)


def prove_on_stand(
    refs: list[TaskRef],
    suite: str,
    workers: int,
    time_limit: float,
    today: str | None,
    hub: str | None,
) -> dict[str, str | None]:
    """The oracle on these instances on the stand (as `runner tasks audit` runs it), then
    the audit of its logs: each instance's reason to be refused, or None."""
    from runner.suite.audit import audit_suite, collect
    from runner.suite.generate import verdicts

    request = EvalRequest(
        harness="oracle", suite=suite, workers=workers, time_limit=time_limit, today=today, hub=hub
    )
    _, _, items = run_on_stack(
        request,
        get_harness("oracle"),
        refs,
        then=lambda hub, run: asyncio.run(collect(hub.url, hub.token, refs, run.records)),
    )
    return verdicts(audit_suite(items))
