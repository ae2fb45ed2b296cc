"""Tables for a finished run: one row per task, then the summary by facet."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from services.core.models.run import Status
from services.core.results.board import Run


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def print_run(console: Console, run: Run, out_dir: Path) -> None:
    manifest, records = run.manifest, run.records
    assert run.summary is not None, "a finished run"
    summary = run.summary
    table = Table(title=f"{manifest.harness} · {len(records)} tasks")
    for column in ("Task", "Site", "EMS", "Completion", "Done&pass", "Steps", "Seconds", "Status"):
        table.add_column(
            column, justify="left" if column in ("Task", "Site", "Status") else "right"
        )
    repeated = manifest.repeat > 1
    for r in records:
        table.add_row(
            f"{r.task} #{r.repeat}" if repeated else r.task,
            r.site,
            str(r.ems) if r.scored else "—",
            str(r.completion) if r.scored else "—",
            str(r.done_and_pass) if r.scored else "—",
            str(r.steps),
            f"{r.seconds:.1f}",
            r.status if r.status == Status.OK else f"[yellow]{r.status}[/yellow]",
        )
    overall = summary.overall
    table.add_section()
    table.add_row(
        "all",
        "",
        _fmt(overall.ems),
        _fmt(overall.completion),
        _fmt(overall.done_and_pass),
        _fmt(overall.steps),
        _fmt(overall.seconds),
        f"{overall.scored}/{overall.tasks} scored",
    )
    if overall.infra_errors or overall.infra_retries:
        table.add_row(
            "infrastructure",
            "",
            "",
            "",
            "",
            "",
            "",
            f"{overall.infra_errors} unscored, {overall.infra_retries} attempts rerun",
        )
    console.print(table)
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
    console.print(facets)
    pairs = summary.paired_variants
    if pairs.pairs:
        console.print(
            f"paired variants: {pairs.pairs} · donor EMS {_fmt(pairs.donor_ems)} · "
            f"variant EMS {_fmt(pairs.variant_ems)} · widget-only failures: "
            f"{', '.join(pairs.donor_pass_variant_fail) or 'none'}"
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
