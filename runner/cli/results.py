"""`runner board` (and `board export`), `compare`, `export` and `import`: the results of
runs (docs/results.md)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from runner.cli.common import (
    App,
    EvalSuiteOption,
    JsonOption,
    SuiteOption,
    WideOption,
    console,
    fail,
    print_json,
)
from runner.cli.tables import print_board, print_compare
from runner.settings import TASKS_DIR, runner_home
from services.core.models.task import RELEASED

if TYPE_CHECKING:
    from services.core.models.folder import Run


class TaskKind(StrEnum):
    """`runner board --kind`: a board of the canonical tasks or of their variants."""

    canonical = "canonical"
    variant = "variant"


class Language(StrEnum):
    """`runner compare --lang`: the language of the page it writes (services/core/i18n.py)."""

    en = "en"
    ru = "ru"


class ExportFormat(StrEnum):
    """`runner export --format`: the layouts a run is written in, or Harbor's for tasks."""

    upstream = "upstream"
    atif = "atif"
    harbor = "harbor"
    hf_eval = "hf-eval"


class HarborStand(StrEnum):
    """`runner export --format harbor --stand`: whose stand a trial runs on."""

    trial = "trial"
    shared = "shared"


board_app = App(help="The leaderboard over runs: the terminal table (no command) or `export DIR`.")

TaskSetOption = Annotated[
    str | None,
    typer.Option(help="the suite's task-set hash to show (default: the one most rows share)"),
]
EveryOption = Annotated[
    bool, typer.Option("--all", help="every run, not only the newest per model × harness")
]


@board_app.callback(invoke_without_command=True)
def board(
    ctx: typer.Context,
    site: Annotated[str | None, typer.Option(help="only this site's tasks")] = None,
    ui: Annotated[str | None, typer.Option(help="only this UI class (primary)")] = None,
    kind: Annotated[TaskKind | None, typer.Option(help="only canonical tasks or variants")] = None,
    suite: SuiteOption = RELEASED,
    task_set: TaskSetOption = None,
    every: EveryOption = False,
    wide: WideOption = False,
    json_: JsonOption = False,
) -> None:
    """Show the board of one suite's runs under $WPB_HOME/runs.

    A row is the newest run per model × harness on one task set (others are listed apart),
    every rate with its 95% interval (docs/results.md). The tables fit the terminal (--wide:
    every column); --json prints the board as JSON."""
    if ctx.invoked_subcommand:
        return
    from services.core.models.board import Filter
    from services.core.models.folder import finished_runs
    from services.core.results.board import build

    runs = finished_runs(runner_home() / "runs")
    if not runs:
        fail(f"no finished run under {runner_home() / 'runs'} (runner eval)")
    only = Filter(site=site, ui=ui, kind=kind)
    board = build(runs, only, not every, suite, task_set)
    if json_:
        print_json(board.dumps(indent=2))
    else:
        print_board(console, board, wide)


@board_app.command("export")
def board_export(
    folder: Annotated[Path, typer.Argument(help="where to write index.html and the rest")],
    suite: SuiteOption = RELEASED,
    task_set: TaskSetOption = None,
    every: EveryOption = False,
) -> None:
    """Write one suite's board as a static site: index.html (a page per filter, the
    comparisons), assets/, board.json and board.csv; publishable as it is."""
    from runner.results.static_board import export
    from services.core.models.folder import finished_runs

    runs = finished_runs(runner_home() / "runs")
    if not runs:
        fail(f"no finished run under {runner_home() / 'runs'} (runner eval)")
    index = export(runs, folder, not every, suite, task_set)
    console.print(f"board written: {index.resolve()}")


def compare_runs(
    run_a: Annotated[str, typer.Argument(help="a run's folder name under $WPB_HOME/runs")],
    run_b: Annotated[str, typer.Argument(help="the run to set against it")],
    html: Annotated[Path | None, typer.Option(help="also write the page to this file")] = None,
    lang: Annotated[Language, typer.Option(help="the page's language")] = Language.en,
    wide: WideOption = False,
) -> None:
    """Run B against run A on their common attempts: flipped tasks, EMS deltas by site, UI
    class and kind with 95% intervals, McNemar's exact test."""
    from services.core.results.board import MixedSuites, compare
    from services.core.results.page import render_compare

    try:
        result = compare(named_run(run_a), named_run(run_b))
    except MixedSuites as exc:
        fail(str(exc))
    print_compare(console, result, wide)
    if html is not None:
        page = render_compare(result, "/view/board/assets", lang=lang.value)
        html.write_text(page, encoding="utf-8")
        console.print(f"page written: {html}")


def export_run(
    run: Annotated[
        str,
        typer.Argument(
            help="a run's folder name under $WPB_HOME/runs; harbor: the folder for the tasks"
        ),
    ],
    format: Annotated[
        ExportFormat,
        typer.Option(
            "--format",
            help="upstream: its results.json; atif: ATIF trajectories; hf-eval: Hugging Face"
            " Hub evaluation results; harbor: tasks as a Harbor dataset",
        ),
    ] = ExportFormat.upstream,
    out: Annotated[
        Path | None,
        typer.Option(
            help="default: results.json in the run (upstream), atif/ in it (atif), hf/ (hf-eval)"
        ),
    ] = None,
    dataset: Annotated[
        str | None,
        typer.Option(help="hf-eval: the benchmark dataset's Hub id (webpagebench/webpagebench)"),
    ] = None,
    source: Annotated[
        str | None, typer.Option(help="hf-eval: where the run's bundle is published (a URL)")
    ] = None,
    suite: EvalSuiteOption = RELEASED,
    tasks_dir: Annotated[
        Path | None, typer.Option(help="harbor: a generated folder (runner tasks generate --out)")
    ] = None,
    task_family: Annotated[
        str | None, typer.Option(help="harbor, --suite generated: a family, or all")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="harbor, --suite generated: the seed")] = None,
    count: Annotated[
        int | None, typer.Option(help="harbor, --suite generated: instances in all")
    ] = None,
    tasks: Annotated[
        str | None, typer.Option(help="harbor: comma-separated sites, names or globs")
    ] = None,
    stand: Annotated[
        HarborStand,
        typer.Option(
            help="harbor: a stand of each trial's own (trial), or the compose stand that every"
            " trial shares (shared: `make stand`, WPB_ADMIN_TOKEN)"
        ),
    ] = HarborStand.trial,
    today: Annotated[
        str | None,
        typer.Option(help="harbor: the date the instructions' dates are for (default: today)"),
    ] = None,
    time_limit: Annotated[
        float, typer.Option(min=1, help="harbor: the agent's seconds per trial")
    ] = 600,
) -> None:
    """Write a run in another tool's layout, or a suite's tasks as a Harbor dataset.

    The layouts: upstream WebPageBench's results.json, each attempt's ATIF trajectory as
    <trajectory id>.json, the Hugging Face Hub's evaluation results (`--format hf-eval`), or
    a Harbor dataset (`--format harbor DIR`: a task folder each, for `harbor run -p DIR`)."""
    if format is ExportFormat.harbor:
        export_harbor(
            Path(run),
            {
                "suite": suite,
                "tasks_dir": tasks_dir,
                "task_family": task_family,
                "seed": seed,
                "count": count,
                "tasks": tasks,
            },
            stand,
            today,
            time_limit,
        )
        return
    from runner.results.interchange import to_upstream
    from runner.run.atif import run_trajectories
    from services.core.models.folder import RunFolder

    found = named_run(run)
    folder = runner_home() / "runs" / run
    if format is ExportFormat.atif:
        target = out or folder / "atif"
        written = run_trajectories(RunFolder(folder), target)
        console.print(f"{written} ATIF trajectories written: {target}")
        return
    if format is ExportFormat.hf_eval:
        export_hf(found, folder, out or folder / "hf", dataset, source)
        return
    target = out or folder / "results.json"
    data = to_upstream(found, TASKS_DIR)
    data.write(target)
    console.print(f"{len(data.tests)} tests written: {target}")


def export_hf(run: Run, folder: Path, out: Path, dataset: str | None, source: str | None) -> None:
    """`run` (in `folder`) as Hugging Face Hub evaluation results under `out`."""
    from runner.results.hf import NotPublishable, export
    from services.core.models.folder import RunFolder

    try:
        written = export(RunFolder(folder), run, out, TASKS_DIR, dataset, source)
    except NotPublishable as exc:
        fail(f"not written: {exc}")
    console.print(
        f"{written.entry} (the model repo's), {written.registry} (the dataset's) and the"
        f" bundle {written.bundle}"
        + ("" if source else "; publish the bundle and give its URL with --source")
    )


def export_harbor(
    out: Path, selection: dict[str, object], stand: HarborStand, today: str | None, limit: float
) -> None:
    """The selected tasks as Harbor task folders under `out`."""
    from datetime import date

    from pydantic import ValidationError

    from runner.cli.eval import selected
    from runner.harbor.export import export
    from runner.run.request import TaskSelection, refusal

    try:
        chosen = TaskSelection.model_validate(selection)
    except ValidationError as exc:
        fail(refusal(exc))
    try:
        day = date.fromisoformat(today) if today else date.today()
    except ValueError:
        fail(f"--today: expected YYYY-MM-DD, got {today!r}")
    done = export(selected(chosen), out, day, stand.value, limit)
    for name, why in done.skipped.items():
        console.print(f"left out {name}: {why}")
    console.print(f"{len(done.written)} Harbor tasks written: {out} (harbor run -p {out})")


def import_run(
    file: Annotated[Path, typer.Argument(help="an upstream WebPageBench results.json")],
) -> None:
    """Read an upstream results.json in as a run under $WPB_HOME/runs (for the board)."""
    from runner.results.interchange import InterchangeError, import_file

    try:
        folder = import_file(file, runner_home() / "runs", TASKS_DIR)
    except InterchangeError as exc:
        fail(str(exc))
    console.print(f"imported as run {folder.name}")


def bundle_run(
    run: Annotated[str, typer.Argument(help="a run's folder name under $WPB_HOME/runs")],
    out: Annotated[Path, typer.Argument(help="the bundle to write (a .tar.gz)")],
) -> None:
    """Write a run as one archive anyone can re-score (`runner rescore`).

    It holds the manifest and records, each attempt's event log and the stand's verdict, the
    agent's answer, the ATIF trajectories and a checksum list."""
    from runner.results.bundle import write_bundle
    from services.core.models.folder import RunFolder

    named_run(run)
    logs = write_bundle(RunFolder(runner_home() / "runs" / run), out)
    console.print(f"{out}: run {run}, {logs} attempts' event logs")


def rescore_bundle(
    bundle: Annotated[Path, typer.Argument(help="a bundle `runner bundle` wrote")],
) -> None:
    """Judge every scored attempt of a bundle again from its event log.

    The judge is this checkout's verifier. A bundle whose checksums, verifier or verdicts
    differ is refused, the first difference named."""
    from runner.results.bundle import BundleRefused, rescore

    try:
        done = rescore(bundle)
    except BundleRefused as exc:
        fail(f"refused: {exc}")
    console.print(
        f"run {done.run}: {done.agreed} scored attempts re-scored from their event logs, all"
        f" agree; {done.unscored} not scored (verifier {done.verifier[:12]})"
    )


def named_run(name: str) -> Run:
    """The run folder `name` under $WPB_HOME/runs, read; or the command is refused."""
    from services.core.models.folder import run_folder

    runs = runner_home() / "runs"
    folder = run_folder(runs, name)
    found = folder.read() if folder is not None else None
    if found is None:
        fail(f"no run named {name!r} under {runs}")
    return found
