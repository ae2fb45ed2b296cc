"""`runner board export`: the board as a static site (docs/results.md); its terminal tables
are in runner/tables.py."""

from __future__ import annotations

import shutil
from pathlib import Path

from services.core.models.board import Board, BoardFile, Filter
from services.core.models.task import RELEASED
from services.core.results.board import Run, build, compare, to_csv
from services.core.results.page import ASSETS, STATIC, render_board, render_compare


def export(
    runs: list[Run],
    folder: Path,
    latest: bool = True,
    suite: str = RELEASED,
    task_set: str | None = None,
) -> Path:
    """`suite`'s board as files that need no server: index.html and a page per filter, the
    comparisons it links, assets/, board.json (every filter's board) and board.csv."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assets").mkdir(exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(STATIC / name, folder / "assets" / name)
    full = build(runs, latest=latest, suite=suite, task_set=task_set)
    by_name = {run.name: run for run in runs}
    compared: dict[tuple[str, str], str] = {}

    def page(only: Filter) -> str:
        chosen = list(only.chosen().items())
        return "index.html" if not chosen else f"{chosen[0][0]}-{chosen[0][1]}.html"

    def comparison(a: str, b: str) -> str:
        if (a, b) not in compared:
            compared[a, b] = f"compare-{len(compared) + 1}.html"
            html = render_compare(compare(by_name[a], by_name[b]), "assets", back="index.html")
            (folder / compared[a, b]).write_text(html, encoding="utf-8")
        return compared[a, b]

    boards: dict[str, Board] = {}
    filters = [Filter()] + [
        Filter(**{facet: group})
        for facet, groups in full.facets.model_dump().items()
        for group in groups
    ]
    for only in filters:
        board = full if only == Filter() else build(runs, only, latest, suite, task_set)
        boards[page(only)] = board
        html = render_board(board, page, "assets", compare=comparison)
        (folder / page(only)).write_text(html, encoding="utf-8")
    BoardFile(board=full, filtered=boards).write(folder / "board.json")
    (folder / "board.csv").write_text(to_csv(full), encoding="utf-8")
    return folder / "index.html"
