"""`runner board export`: the board as a static site (docs/results.md); its terminal tables
are in runner/cli/tables.py."""

from __future__ import annotations

import shutil
from pathlib import Path

from services.core import i18n
from services.core.models.board import Board, BoardFile, Filter
from services.core.models.folder import Run
from services.core.models.task import RELEASED
from services.core.results.board import build, compare, to_csv
from services.core.results.page import ASSETS, STATIC, render_board, render_compare


def folder_of(lang: str) -> str:
    """Where the pages in `lang` lie, relative to the export's root: English in it, each
    other language in a folder of its own name (`ru/`)."""
    return "" if lang == i18n.DEFAULT else f"{lang}/"


def export(
    runs: list[Run],
    folder: Path,
    latest: bool = True,
    suite: str = RELEASED,
    task_set: str | None = None,
) -> Path:
    """`suite`'s board as files that need no server: index.html and a page per filter, the
    comparisons it links, in English and again in ru/ in Russian (each page linking itself
    in the other language), assets/, board.json (every filter's board) and board.csv."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "assets").mkdir(exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(STATIC / name, folder / "assets" / name)
    full = build(runs, latest=latest, suite=suite, task_set=task_set)
    by_name = {run.name: run for run in runs}
    comparisons: dict[tuple[str, str], str] = {}

    def page(only: Filter) -> str:
        chosen = list(only.chosen().items())
        return "index.html" if not chosen else f"{chosen[0][0]}-{chosen[0][1]}.html"

    def languages(lang: str, name: str) -> list[i18n.Choice]:
        """The switch of page `name` in `lang`: the same page in each language's folder."""
        up = "../" * folder_of(lang).count("/")
        return list(i18n.switch(lang, lambda code: f"{up}{folder_of(code)}{name}"))

    def comparison(a: str, b: str) -> str:
        return comparisons.setdefault((a, b), f"compare-{len(comparisons) + 1}.html")

    boards: dict[str, Board] = {}
    filters = [Filter()] + [
        Filter(**{facet: group})
        for facet, groups in full.facets.model_dump().items()
        for group in groups
    ]
    for only in filters:
        filtered = full if only == Filter() else build(runs, only, latest, suite, task_set)
        boards[page(only)] = filtered
    for lang in i18n.LANGUAGES:
        into = folder / folder_of(lang)
        into.mkdir(exist_ok=True)
        assets = "../" * folder_of(lang).count("/") + "assets"
        for name, board in boards.items():
            html = render_board(
                board,
                page,
                assets,
                compare=comparison,
                lang=lang,
                languages=languages(lang, name),
            )
            (into / name).write_text(html, encoding="utf-8")
        for (a, b), name in comparisons.items():
            result = compare(by_name[a], by_name[b])
            html = render_compare(
                result, assets, back="index.html", lang=lang, languages=languages(lang, name)
            )
            (into / name).write_text(html, encoding="utf-8")
    BoardFile(board=full, filtered=boards).write(folder / "board.json")
    (folder / "board.csv").write_text(to_csv(full), encoding="utf-8")
    return folder / "index.html"
