"""`runner board`, `runner board export` and `runner compare`: the board and the comparison
in the terminal, and the board as a static site (docs/results.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from services.core.results.board import Filter, Run, build, compare, to_csv
from services.core.results.page import ASSETS, STATIC, render_board, render_compare


def _rate(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return "—"
    return f"{rate['value']:.3f} [{rate['low']:.2f}–{rate['high']:.2f}]"


def _paired_cells(item: dict[str, Any]) -> list[str]:
    """Attempts, only A, only B, the difference and the verdict of a paired comparison."""
    return [str(item["n"]), str(item["a_only"]), str(item["b_only"]), _delta(item), _verdict(item)]


def _delta(paired: dict[str, Any]) -> str:
    if paired["delta"] is None:
        return "—"
    return f"{paired['delta']:+.3f} [{paired['low']:+.2f}; {paired['high']:+.2f}]"


def _verdict(paired: dict[str, Any]) -> str:
    word = "[bold]real[/bold]" if paired["significant"] else "not shown"
    return f"{paired['p']:.3g} {word}"


def print_board(console: Console, board: dict[str, Any]) -> None:
    only = ", ".join(f"{k}={v}" for k, v in board["filter"].items() if v) or "all tasks"
    table = Table(title=f"Board · task set {board['suite']} · {only} · 95% Wilson intervals")
    columns = ["Model", "Harness", "EMS", "Completion", "Done&pass", "Gap", "False done"]
    columns += ["Steps", "Seconds", "Cost", "Infra", "Scored", "pass@k", "pass^k", "Run"]
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in board["rows"]:
        k = str(row["attempts"])
        repeated = row["attempts"] > 1
        table.add_row(
            row["model"],
            row["harness"],
            _rate(row["ems"]),
            _rate(row["completion"]),
            _rate(row["done_and_pass"]),
            _rate(row["gap"]),
            _rate(row["false_done"]),
            "—" if row["steps"] is None else f"{row['steps']:.1f}",
            "—" if row["seconds"] is None else f"{row['seconds']:.1f}",
            f"${row['cost']:.4f}" + ("" if row["priced"] else "*"),
            f"{row['infra_errors']} ({row['infra_retries']} rerun)",
            f"{row['tasks_scored']}/{board['suite_tasks']}",
            f"@{k} {row['pass_at_k'][k]:.3f}" if repeated else "—",
            f"^{k} {row['pass_hat_k'][k]:.3f}" if repeated else "—",
            row["run"],
        )
    console.print(table)
    if board["pairwise"]:
        pairs = Table(title="Pairwise (same attempts): EMS B − A, exact McNemar")
        for column in ("A", "B", "Attempts", "Only A", "Only B", "B − A", "p"):
            pairs.add_column(column)
        for item in board["pairwise"]:
            pairs.add_row(item["a"], item["b"], *_paired_cells(item))
        console.print(pairs)
    variants = board["variants"]
    if variants["controls"]:
        labels = [f"{row['model']} · {row['harness']}" for row in board["rows"]]
        sensitivity = Table(title="Variant sensitivity: variant EMS − donor EMS (pairs)")
        sensitivity.add_column("Control implementation")
        for label in labels:
            sensitivity.add_column(label)
        for control in variants["controls"]:
            cells = variants["cells"][control]
            sensitivity.add_row(
                control,
                *(
                    f"{_delta(cells[label])} n={cells[label]['n']}" if label in cells else "—"
                    for label in labels
                ),
            )
        console.print(sensitivity)
    for suite, rows in board["apart"].items():
        names = ", ".join(f"{r['model']} · {r['harness']} ({r['run']})" for r in rows)
        console.print(f"[yellow]another task set {suite}, not on this board:[/yellow] {names}")


def export(runs: list[Run], folder: Path, latest: bool = True, suite: str | None = None) -> Path:
    """The board as files that need no server: index.html and a page per filter, the
    comparisons it links, assets/, board.json (every filter's board) and board.csv."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assets").mkdir(exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(STATIC / name, folder / "assets" / name)
    full = build(runs, latest=latest, suite=suite)
    by_name = {run.name: run for run in runs}
    compared: dict[tuple[str, str], str] = {}

    def page(only: Filter) -> str:
        chosen = [(k, v) for k, v in only.as_dict().items() if v]
        return "index.html" if not chosen else f"{chosen[0][0]}-{chosen[0][1]}.html"

    def comparison(a: str, b: str) -> str:
        if (a, b) not in compared:
            compared[a, b] = f"compare-{len(compared) + 1}.html"
            html = render_compare(compare(by_name[a], by_name[b]), "assets", back="index.html")
            (folder / compared[a, b]).write_text(html, encoding="utf-8")
        return compared[a, b]

    boards = {}
    filters = [Filter()] + [
        Filter(**{facet: group}) for facet, groups in full["facets"].items() for group in groups
    ]
    for only in filters:
        board = full if only == Filter() else build(runs, only, latest=latest, suite=suite)
        boards[page(only)] = board
        html = render_board(board, page, "assets", compare=comparison)
        (folder / page(only)).write_text(html, encoding="utf-8")
    (folder / "board.json").write_text(
        json.dumps({"board": full, "filtered": boards}, ensure_ascii=False, indent=1),
        encoding="utf-8",
    )
    (folder / "board.csv").write_text(to_csv(full), encoding="utf-8")
    return folder / "index.html"


def print_compare(console: Console, result: dict[str, Any]) -> None:
    a, b = result["a"], result["b"]
    console.print(
        f"A {a['run']} ({a['model']} · {a['harness']})  B {b['run']} ({b['model']} · "
        f"{b['harness']}) · {result['common']} common attempts"
    )
    if not result["same_suite"]:
        console.print(f"[yellow]different task sets[/yellow] ({a['suite']}, {b['suite']})")
    table = Table(title="B − A: EMS delta with Newcombe's 95% interval, exact McNemar")
    for column in ("Facet", "Group", "Attempts", "Only A", "Only B", "B − A", "p"):
        table.add_column(column)
    rows = [("all", "", result["overall"])]
    for facet in ("by_site", "by_ui", "by_kind"):
        rows += [(facet, group, item) for group, item in result[facet].items()]
    for facet, group, item in rows:
        table.add_row(facet, group, *_paired_cells(item))
    console.print(table)
    console.print(f"passed in A, failed in B: {', '.join(result['pass_to_fail']) or 'none'}")
    console.print(f"failed in A, passed in B: {', '.join(result['fail_to_pass']) or 'none'}")
