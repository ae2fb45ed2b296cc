"""Every table the runner prints in the terminal: a run, the board and a comparison, the
harnesses, the task counts and the task audit. The commands gather the data; this module
lays it out."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Column, Table

from runner.suite.audit import ClassCheck, SuiteAudit, TaskAudit
from runner.suite.generate import REASONS, Report
from services.core.families import SMALL_SPACE
from services.core.models.board import Board, Comparison, GapView, PairedView, RateView
from services.core.models.folder import Run
from services.core.models.run import Record, Status
from services.core.results.wording import Wording

# Wide enough for any table: where a column's least and natural widths are measured.
UNBOUNDED = 10_000


def _span(console: Console, column: Column) -> Measurement:
    """The narrowest `column` can be without breaking a word (its header's or a cell's
    longest word), and its natural width."""
    options = console.options.update_width(UNBOUNDED)
    measures = [Measurement.get(console, options, cell) for cell in [column.header, *column.cells]]
    return Measurement(max(m.minimum for m in measures), max(m.maximum for m in measures))


def _width(console: Console, table: Table, columns: list[Column], widths: list[int]) -> int:
    """The width `table` takes with only `columns`, each as wide as `widths` says."""
    trial = copy.copy(table)
    trial.columns = [replace(c, width=w) for c, w in zip(columns, widths, strict=True)]
    return Measurement.get(console, console.options.update_width(UNBOUNDED), trial).maximum


def show(console: Console, table: Table, keep: int = 1, wide: bool = False) -> None:
    """Print `table` so that it fits the terminal: its first `keep` columns (what names a
    row and its headline) always, each other column while it still fits, in order, then a
    line naming those left out. No header or cell breaks inside a word. With `wide`, or
    where the output is not a terminal (a pipe, a file), the whole table at its natural
    width."""
    if wide or not console.is_terminal:
        natural = Measurement.get(console, console.options.update_width(UNBOUNDED), table)
        whole = Console(
            file=console.file,
            width=max(console.width, natural.maximum),
            force_terminal=console.is_terminal,
            color_system=console.color_system,  # type: ignore[arg-type]
        )
        whole.print(table)
        return
    spans = {id(c): _span(console, c) for c in table.columns}
    shown: list[Column] = []
    left_out: list[str] = []
    for index, column in enumerate(table.columns):
        trying = [*shown, column]
        least = _width(console, table, trying, [spans[id(c)].minimum for c in trying])
        if index < keep or least <= console.width:
            shown = trying
        else:
            left_out.append(str(column.header))
    # The room left, to each column in turn up to its natural width.
    widths = [spans[id(c)].minimum for c in shown]
    room = console.width - _width(console, table, shown, widths)
    for i, column in enumerate(shown):
        more = max(0, min(room, spans[id(column)].maximum - widths[i]))
        widths[i] += more
        room -= more
    table.columns = [replace(c, width=w) for c, w in zip(shown, widths, strict=True)]
    console.print(table)
    if left_out:
        names = ", ".join(left_out)
        console.print(f"left out for the terminal's width: {names} (--wide shows all)")


def _print_unmet(
    console: Console, records: list[Record], name: Callable[[Record], str], wide: bool
) -> None:
    """A run's failed attempts, each condition it left unmet in words (`name`: a record's
    name in the run's table)."""
    failed = [r for r in records if r.scored and r.ems == 0]
    if not failed:
        return
    unmet = Table(title="Unmet conditions")
    unmet.add_column("Task")
    unmet.add_column("Condition")
    for r in failed:
        say = Wording(domain=r.site)
        for c in r.conditions:
            if not c.success:
                words = say.condition(c.event_name, c.parameters, c.forbidden, c.group)
                unmet.add_row(name(r), escape(words))
    show(console, unmet, keep=2, wide=wide)


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def print_run(console: Console, run: Run, out_dir: Path, wide: bool = False) -> None:
    manifest, records = run.manifest, run.records
    assert run.summary is not None, "a finished run"
    summary = run.summary
    table = Table(title=f"{manifest.harness} · {len(records)} tasks")
    for column in ("Task", "EMS", "Status", "Completion", "Done&pass", "Site", "Steps", "Seconds"):
        table.add_column(
            column, justify="left" if column in ("Task", "Site", "Status") else "right"
        )
    repeated = manifest.repeat > 1

    def name(r: Record) -> str:
        return f"{r.task} #{r.repeat}" if repeated else r.task

    for r in records:
        table.add_row(
            name(r),
            str(r.ems) if r.scored else "—",
            r.status if r.status == Status.OK else f"[yellow]{r.status}[/yellow]",
            str(r.completion) if r.scored else "—",
            str(r.done_and_pass) if r.scored else "—",
            r.site,
            str(r.steps),
            f"{r.seconds:.1f}",
        )
    overall = summary.overall
    table.add_section()
    table.add_row(
        "all",
        _fmt(overall.ems),
        f"{overall.scored}/{overall.tasks} scored",
        _fmt(overall.completion),
        _fmt(overall.done_and_pass),
        "",
        _fmt(overall.steps),
        _fmt(overall.seconds),
    )
    if overall.infra_errors or overall.infra_retries:
        table.add_row(
            "infrastructure",
            "",
            f"{overall.infra_errors} unscored, {overall.infra_retries} attempts rerun",
        )
    show(console, table, keep=3, wide=wide)
    facets = Table(title="Summary")
    for column in ("Facet", "Group", "Tasks", "EMS", "Completion", "Done&pass"):
        facets.add_column(column)
    groups = {
        "by_site": summary.by_site,
        "by_ui_primary": summary.by_ui_primary,
        "canonical_vs_variant": summary.canonical_vs_variant,
    }
    for facet, blocks in groups.items():
        for group, block in blocks.items():
            facets.add_row(
                facet,
                group,
                str(block.scored),
                _fmt(block.ems),
                _fmt(block.completion),
                _fmt(block.done_and_pass),
            )
    show(console, facets, keep=4, wide=wide)
    _print_unmet(console, records, name, wide)
    pairs = summary.paired_variants
    if pairs.pairs:
        console.print(
            f"paired variants: {pairs.pairs} · donor EMS {_fmt(pairs.donor_ems)} · "
            f"variant EMS {_fmt(pairs.variant_ems)} · widget-only failures: "
            f"{', '.join(pairs.donor_pass_variant_fail) or 'none'}"
        )
    if overall.attack_success is not None:
        console.print(
            f"under attack: attack success {_fmt(overall.attack_success)} · "
            f"utility {_fmt(overall.utility)} (docs/results.md, Safety)"
        )
    if repeated:
        k = str(overall.attempts)
        console.print(
            f"{manifest.repeat} attempts a task · pass@{k} {_fmt(overall.pass_at_k[k])} · "
            f"pass^{k} {_fmt(overall.pass_hat_k[k])} · agreement {_fmt(overall.agreement)}"
        )
    totals = overall.totals
    if totals.model_calls:
        cost = f"${totals.cost:.4f}" + ("" if totals.priced else " (unpriced models)")
        console.print(
            f"model: {manifest.model} · {totals.model_calls} calls · "
            f"{totals.tokens} tokens · {totals.steps} steps · cost {cost}"
        )
    console.print(f"EMS {_fmt(overall.ems)} · run directory {out_dir}")


def _rate(rate: RateView) -> str:
    if rate.value is None:
        return "—"
    return f"{rate.value:.3f} [{rate.low:.2f}–{rate.high:.2f}]"


def _paired_cells(item: PairedView) -> list[str]:
    """Attempts, only A, only B, the difference and the verdict of a paired comparison."""
    return [str(item.n), str(item.a_only), str(item.b_only), _delta(item), _verdict(item)]


def _delta(paired: PairedView) -> str:
    if paired.delta is None:
        return "—"
    return f"{paired.delta:+.3f} [{paired.low:+.2f}; {paired.high:+.2f}]"


def _verdict(paired: PairedView) -> str:
    word = "[bold]real[/bold]" if paired.significant else "not shown"
    return f"{paired.p:.3g} {word}"


def print_board(console: Console, board: Board, wide: bool = False) -> None:
    only = ", ".join(f"{k}={v}" for k, v in board.filter.chosen().items()) or "all tasks"
    title = f"Board · suite {board.suite} · task set {board.task_set} · {only}"
    table = Table(title=f"{title} · 95% Wilson intervals")
    columns = ["Model", "Harness", "EMS", "Completion", "Done&pass", "Gap", "False done"]
    columns += ["Over-action"]
    columns += ["Steps", "Seconds", "Cost", "Infra", "Scored", "pass@k", "pass^k", "Run"]
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in board.rows:
        k = str(row.attempts)
        repeated = row.attempts > 1
        table.add_row(
            row.model,
            row.harness,
            _rate(row.ems),
            _rate(row.completion),
            _rate(row.done_and_pass),
            _rate(row.gap),
            _rate(row.false_done),
            _rate(row.over_action),
            "—" if row.steps is None else f"{row.steps:.1f}",
            "—" if row.seconds is None else f"{row.seconds:.1f}",
            f"${row.cost:.4f}" + ("" if row.priced else "*"),
            f"{row.infra_errors} ({row.infra_retries} rerun)",
            f"{row.tasks_scored}/{board.task_set_tasks}",
            f"@{k} {row.pass_at_k[k]:.3f}" if repeated else "—",
            f"^{k} {row.pass_hat_k[k]:.3f}" if repeated else "—",
            row.run,
        )
    show(console, table, keep=3, wide=wide)
    if board.pairwise:
        pairs = Table(title="Pairwise (same attempts): EMS B − A, exact McNemar")
        for column in ("A", "B", "Attempts", "Only A", "Only B", "B − A", "p"):
            pairs.add_column(column)
        for item in board.pairwise:
            pairs.add_row(item.a, item.b, *_paired_cells(item))
        show(console, pairs, keep=2, wide=wide)
    variants = board.variants
    if variants.controls:
        labels = [row.label for row in board.rows]
        sensitivity = Table(title="Variant sensitivity: variant EMS − donor EMS (pairs)")
        sensitivity.add_column("Control implementation")
        for label in labels:
            sensitivity.add_column(label)
        for control in variants.controls:
            cells = variants.cells[control]
            sensitivity.add_row(
                control,
                *(
                    f"{_delta(cells[label])} n={cells[label].n}" if label in cells else "—"
                    for label in labels
                ),
            )
        show(console, sensitivity, keep=2, wide=wide)
    if board.failures:
        print_failures(console, board, wide)
    if board.safety:
        print_safety(console, board, wide)
    if board.robustness:
        print_robustness(console, board, wide)
    if board.heldout:
        print_heldout(console, board, wide)
    print_caveats(console, board)
    others = [name for name in board.suites if name != board.suite]
    if others:
        console.print(f"other suites with runs (runner board --suite NAME): {', '.join(others)}")


def print_caveats(console: Console, board: Board) -> None:
    """What the board flags in its rows (judged by different verifiers) and keeps apart
    (runs of other task sets)."""
    if board.verifiers:
        judged = "; ".join(
            f"{verifier}: {', '.join(r.label for r in board.rows if r.verifier == verifier)}"
            for verifier in board.verifiers
        )
        console.print(f"[yellow]rows judged by different verifiers:[/yellow] {judged}")
    for task_set, rows in board.apart.items():
        names = ", ".join(f"{r.label} ({r.run})" for r in rows)
        console.print(f"[yellow]another task set {task_set}, not on this board:[/yellow] {names}")


def print_safety(console: Console, board: Board, wide: bool = False) -> None:
    """The board's safety section: under attack, then the tasks that must be stopped, then
    each row's variants against their donors (docs/results.md, "Safety")."""

    def rates(groups: Mapping[str, RateView]) -> str:
        return "\n".join(f"{name} {_rate(rate)}" for name, rate in groups.items()) or "—"

    attack = Table(title="Safety under attack · 95% Wilson intervals")
    columns = ["Model", "Harness", "Utility under attack", "Attack success", "By carrier"]
    for column in [*columns, "By goal"]:
        attack.add_column(column, overflow="fold")
    stopping = Table(title="Safety: tasks that must be stopped, side effects")
    for column in ("Model", "Harness", "Refusal accuracy", "Approval violations", "Over-action"):
        stopping.add_column(column, overflow="fold")
    for row in board.safety:
        attack.add_row(
            row.model,
            row.harness,
            _rate(row.utility),
            _rate(row.attack_success),
            rates(row.by_carrier),
            rates(row.by_goal),
        )
        stopping.add_row(
            row.model,
            row.harness,
            rates(row.refusal),
            _rate(row.approval_violations),
            _rate(row.over_action),
        )
    show(console, attack, keep=3, wide=wide)
    show(console, stopping, keep=3, wide=wide)
    for row in board.safety:
        if row.donors is None:
            console.print(f"{row.model} · {row.harness}: no run of the released suite to pair with")
            continue
        pairs = Table(
            title=f"{row.model} · {row.harness}: the donor's EMS in {row.donor_run} (A) against"
            " the variant's utility (B), exact McNemar"
        )
        for column in ("Variant", "Pairs", "Donor only", "Variant only", "B − A", "p"):
            pairs.add_column(column)
        pairs.add_row("all", *_paired_cells(row.donors))
        for variant, item in row.by_variant.items():
            pairs.add_row(variant, *_paired_cells(item))
        show(console, pairs, keep=2, wide=wide)


def print_failures(console: Console, board: Board, wide: bool = False) -> None:
    """Why attempts failed: per row, each failure class's count and share of the row's
    failed attempts, and how many more carry it as a tag (docs/results.md, "Failure
    classes")."""
    table = Table(title="Why attempts failed · a share of each row's failed attempts, 95% Wilson")
    table.add_column("Class")
    for row in board.failures:
        table.add_column(f"{row.model} · {row.harness}", overflow="fold")
    table.add_row("failed attempts", *(f"{r.failed} / {r.scored}" for r in board.failures))
    for name in board.failure_classes:
        cells = []
        for row in board.failures:
            shown = (
                f"{row.by_class[name].k} · {_rate(row.by_class[name])}"
                if name in row.by_class
                else "—"
            )
            if name in row.by_tag:
                shown += f" (+{row.by_tag[name].k} as a tag)"
            cells.append(shown)
        table.add_row(name, *cells)
    show(console, table, keep=2, wide=wide)
    for row in board.failures:
        if not row.unmet:
            continue
        unmet = Table(title=f"{row.model} · {row.harness}: the conditions left unmet most often")
        unmet.add_column("Condition")
        unmet.add_column("Attempts", justify="right")
        for u in row.unmet:
            words = Wording(domain=u.site).condition(
                u.event_name, u.parameters, u.forbidden, u.group
            )
            unmet.add_row(escape(words), str(u.attempts))
        show(console, unmet, keep=2, wide=wide)


def print_robustness(console: Console, board: Board, wide: bool = False) -> None:
    """The board's robustness section: each row's perturbations against their donors, its
    viewport against the default one, its recovery tasks (docs/results.md, "Robustness")."""
    table = Table(title="Robustness · 95% Wilson intervals, exact McNemar")
    for column in ("Model", "Harness", "Viewport", "Perturbed − donor", "Against 1280x800"):
        table.add_column(column, overflow="fold")
    for column in ("Recovery", "Duplicate commit"):
        table.add_column(column, overflow="fold")
    for row in board.robustness:
        table.add_row(
            row.model,
            row.harness,
            row.viewport,
            _delta(row.perturbed) if row.perturbed else "—",
            _delta(row.against_default) if row.against_default else "—",
            _rate(row.recovery),
            _rate(row.duplicate_commit),
        )
    show(console, table, keep=3, wide=wide)
    for row in board.robustness:
        if not row.by_perturbation:
            continue
        pairs = Table(
            title=f"{row.model} · {row.harness} at {row.viewport}: the donor's EMS in"
            f" {row.donor_run} (A) against the perturbed variant's (B), exact McNemar"
        )
        for column in ("Perturbation", "Pairs", "Donor only", "Variant only", "B − A", "p"):
            pairs.add_column(column)
        for name, item in row.by_perturbation.items():
            pairs.add_row(name, *_paired_cells(item))
        show(console, pairs, keep=2, wide=wide)


def _gap(item: GapView) -> str:
    if item.delta is None:
        return "—"
    word = " [bold]real[/bold]" if item.significant else ""
    return f"{item.delta:+.3f} [{item.low:+.2f}; {item.high:+.2f}]{word}"


def print_heldout(console: Console, board: Board, wide: bool = False) -> None:
    """The board's held-out gap: each row's EMS on the released tasks its generated suite's
    families model and on the generated suite, and the difference, overall and per family
    (docs/results.md, "The held-out gap")."""
    table = Table(title="Held-out gap · generated − released, Newcombe's interval")
    for column in ("Model", "Harness", "Released", "Generated", "Generated − released", "Runs"):
        table.add_column(column, overflow="fold")
    for row in board.heldout:
        table.add_row(
            row.model,
            row.harness,
            _rate(row.overall.released),
            _rate(row.overall.generated),
            _gap(row.overall),
            f"{row.released_run} · {row.generated_run} ({row.generated_suite})",
        )
    show(console, table, keep=3, wide=wide)
    for row in board.heldout:
        families = Table(title=f"{row.model} · {row.harness}: by family")
        for column in ("Family", "Released", "Generated", "Generated − released"):
            families.add_column(column)
        for name, item in row.by_family.items():
            small = row.small.get(name)
            shown = name if small is None else f"{name}\n(small: {small} distinct tasks)"
            families.add_row(shown, _rate(item.released), _rate(item.generated), _gap(item))
        show(console, families, keep=2, wide=wide)


def print_compare(console: Console, result: Comparison, wide: bool = False) -> None:
    a, b = result.a, result.b
    console.print(
        f"A {a.run} ({a.model} · {a.harness})  B {b.run} ({b.model} · "
        f"{b.harness}) · suite {a.suite} · {result.common} common attempts"
    )
    if not result.same_task_set:
        console.print(f"[yellow]different task sets[/yellow] ({a.task_set}, {b.task_set})")
    if result.differences:
        console.print(
            "[yellow]warning:[/yellow] the manifests differ in "
            + ", ".join(result.differences)
            + ": besides the agent, these may explain a difference"
        )
    if result.changed:
        console.print(
            f"[yellow]{len(result.changed)} attempts ran other tasks under one name, not"
            f" compared:[/yellow] {', '.join(result.changed)}"
        )
    table = Table(title="B − A: EMS delta with Newcombe's 95% interval, exact McNemar")
    for column in ("Facet", "Group", "Attempts", "Only A", "Only B", "B − A", "p"):
        table.add_column(column)
    rows = [("all", "", result.overall)]
    facets = {"by_site": result.by_site, "by_ui": result.by_ui, "by_kind": result.by_kind}
    for facet, groups in facets.items():
        rows += [(facet, group, item) for group, item in groups.items()]
    for facet, group, item in rows:
        table.add_row(facet, group, *_paired_cells(item))
    show(console, table, keep=2, wide=wide)
    console.print(f"passed in A, failed in B: {', '.join(result.pass_to_fail) or 'none'}")
    console.print(f"failed in A, passed in B: {', '.join(result.fail_to_pass) or 'none'}")


def print_harnesses(
    console: Console, rows: list[tuple[str, str, str, str]], wide: bool = False
) -> None:
    """`runner harness list`: a row per harness (name, ready, environment, what it is)."""
    table = Table(title="Harnesses")
    for column in ("Harness", "Ready", "Environment", "What it is"):
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    show(console, table, keep=2, wide=wide)


def print_task_counts(
    console: Console,
    tally: Mapping[str, Mapping[str, int]],
    suite: str,
    task_set: str,
    wide: bool = False,
) -> None:
    """`runner tasks list`: a suite's tasks counted by kind, site and UI class, its
    task-set hash, and the files of each suite."""
    table = Table(title=f"{sum(tally['kind'].values())} tasks of the {suite} suite")
    table.add_column("facet")
    table.add_column("group")
    table.add_column("tasks", justify="right")
    for facet, label in (
        ("kind", "kind"),
        ("site", "site"),
        ("primary", "UI primary"),
        ("class", "UI class (any)"),
    ):
        for group, n in sorted(tally[facet].items()):
            table.add_row(label, group, str(n))
    show(console, table, keep=3, wide=wide)
    suites = ", ".join(f"{name} {n}" for name, n in sorted(tally["suite"].items()))
    console.print(f"task set of the {suite} suite: {task_set}")
    console.print(f"task files by suite: {suites}")


def print_audit(console: Console, summary: SuiteAudit, wide: bool = False) -> None:
    """`runner tasks audit`: per task the near misses tried and caught, those that survive
    without a reason, and whether its primary UI class is exercised."""
    table = Table(title="Task audit")
    for column in ("task", "tried", "caught", "survive without a reason", "class"):
        table.add_column(column, overflow="fold")
    for name, result in summary.tasks.items():
        table.add_row(
            name,
            str(result.tried),
            str(result.caught),
            _survivors(result),
            _class_verdict(result.class_check),
        )
    show(console, table, keep=4, wide=wide)


def _survivors(result: TaskAudit) -> str:
    if result.ems != 1:
        survivors = f"[red]the reference log fails (conditions {result.failed_conditions})"
    else:
        survivors = "\n".join(result.survivors) or "[green]none"
    problems = result.exception_problems + [
        f"unused exception {p!r}" for p in result.unused_exceptions
    ]
    if problems:
        survivors += "\n[yellow]" + "\n".join(problems)
    return survivors


def _class_verdict(check: ClassCheck | None) -> str:
    if check is None:
        return ""
    if check.ok:
        forbidden = " (forbidden: the task refuses it)" if check.refused else ""
        return f"[green]{check.ui_class}{forbidden}"
    missing = [
        where
        for where, found in (("log", check.in_log), ("conditions", check.in_conditions))
        if not found
    ]
    return f"[red]{check.ui_class}: not in {' or '.join(missing)}"


def print_generation(console: Console, report: Report, out: Path, wide: bool = False) -> None:
    """`runner tasks generate`: per family the instances wanted, admitted and drawn, and
    the draws refused by reason; then the totals."""
    proven = " (proven: oracle and audit)" if report.proven else ""
    table = Table(title=f"Generated suite {report.suite}{proven}")
    for column in ("family", "wanted", "space", "admitted", "drawn", "admission", "refused"):
        table.add_column(column, overflow="fold")
    crowded = report.crowded()
    for family in sorted(report.wanted):
        refused = ", ".join(
            f"{reason} {n}" for (f, reason), n in sorted(report.rejected.items()) if f == family
        )
        short = report.admitted[family] < report.wanted[family]
        room = str(report.space.get(family, "?"))
        table.add_row(
            family,
            str(report.wanted[family]),
            f"[yellow]{room}" if family in crowded else room,
            f"[red]{report.admitted[family]}" if short else str(report.admitted[family]),
            str(report.drawn[family]),
            "—" if report.rate(family) is None else f"{report.rate(family):.0%}",
            refused or "—",
        )
    show(console, table, keep=5, wide=wide)
    for family, size in crowded.items():
        console.print(
            f"[yellow]warning[/yellow]: {family} asks {report.wanted[family]} of {size} distinct"
            " instances (more than a quarter): another seed repeats its answers",
            soft_wrap=True,
        )
    if small := report.small():
        listed = ", ".join(f"{f} ({n})" for f, n in small.items())
        console.print(
            f"small families (fewer than {SMALL_SPACE} distinct instances): {listed}",
            soft_wrap=True,
        )
    reasons = report.rejections()
    refused = "; ".join(f"{reason} {reasons[reason]}" for reason in REASONS if reasons[reason])
    console.print(
        f"{len(report.written)} instances of {sum(1 for n in report.admitted.values() if n)}"
        f" families written to {out} (suite {report.suite}); refused: {refused or 'none'}",
        soft_wrap=True,
    )
