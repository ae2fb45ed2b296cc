"""The board and the comparison as HTML: the same templates for the hub's pages and for
the static export (`runner board export`), which links its assets relative to itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from services.core.models.board import Board, Comparison, Filter
from services.core.results.charts import all_charts

HERE = Path(__file__).parent
STATIC = HERE / "static"
ASSETS = ("board.css", "board.js")
ENV = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape())

FACETS = {"site": "Сайт", "ui": "Класс интерфейса", "kind": "Задачи"}
KIND_NAMES = {"canonical": "канонические", "variant": "варианты"}


def filter_links(
    board: Board, href: Callable[[Filter], str]
) -> list[tuple[str, list[tuple[str, str, bool]]]]:
    """For each facet, a link per group (and «все»): (caption, address, chosen)."""
    current = board.filter
    links = []
    for facet, title in FACETS.items():
        chosen = getattr(current, facet)
        items = [("все", href(Filter()), chosen is None and current == Filter())]
        for group in getattr(board.facets, facet):
            caption = KIND_NAMES.get(group, group)
            items.append((caption, href(Filter(**{facet: group})), chosen == group))
        links.append((title, items))
    return links


def render_board(
    board: Board,
    href: Callable[[Filter], str],
    assets: str,
    back: str | None = None,
    compare: Callable[[str, str], str] | None = None,
    suite_href: Callable[[str], str] | None = None,
) -> str:
    """The board page; `href` addresses a filtered board, `assets` the folder of board.css
    and board.js, `back` the runs page (the hub's), `compare` a comparison of two runs,
    `suite_href` another suite's board (without it, the other suites are named only)."""
    return ENV.get_template("board.html").render(
        board=board,
        charts=all_charts(board),
        links=filter_links(board, href),
        assets=assets,
        back=back,
        compare=compare,
        suite_href=suite_href,
    )


def render_compare(result: Comparison, assets: str, back: str | None = None) -> str:
    return ENV.get_template("compare.html").render(c=result, assets=assets, back=back)
