"""The board and the comparison as HTML: the same templates for the hub's pages and for
the static export (`runner board export`), which links its assets relative to itself; in
English or in Russian (services/core/i18n.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from gettext import NullTranslations
from pathlib import Path

from jinja2 import Environment, FileSystemLoader

from services.core import i18n
from services.core.models.board import Board, Comparison, Filter
from services.core.results.charts import all_charts
from services.core.results.wording import with_wording

HERE = Path(__file__).parent
STATIC = HERE / "static"
TEMPLATES = HERE / "templates"
ASSETS = ("board.css", "board.js")


@cache
def environment(lang: str) -> Environment:
    return with_wording(i18n.environment(FileSystemLoader(TEMPLATES), lang), lang)


def facets(tr: NullTranslations) -> dict[str, str]:
    """The board's filters, by facet: their titles."""
    return {"site": tr.gettext("Site"), "ui": tr.gettext("UI class"), "kind": tr.gettext("Tasks")}


def kind_names(tr: NullTranslations) -> dict[str, str]:
    return {"canonical": tr.gettext("canonical"), "variant": tr.gettext("variants")}


def filter_links(
    board: Board, href: Callable[[Filter], str], lang: str = i18n.DEFAULT
) -> list[tuple[str, list[tuple[str, str, bool]]]]:
    """For each facet, a link per group (and «all»): (caption, address, chosen)."""
    tr = i18n.translations(lang)
    current = board.filter
    names = kind_names(tr)
    links = []
    for facet, title in facets(tr).items():
        chosen = getattr(current, facet)
        items = [(tr.gettext("all"), href(Filter()), chosen is None and current == Filter())]
        for group in getattr(board.facets, facet):
            caption = names.get(group, group)
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
    lang: str = i18n.DEFAULT,
    languages: Sequence[i18n.Choice] = (),
) -> str:
    """The board page in `lang`; `href` addresses a filtered board, `assets` the folder of
    board.css and board.js, `back` the runs page (the hub's), `compare` a comparison of two
    runs, `suite_href` another suite's board (without it, the other suites are named only),
    `languages` the language switch (i18n.switch)."""
    return (
        environment(lang)
        .get_template("board.html")
        .render(
            board=board,
            charts=all_charts(board, i18n.translations(lang)),
            links=filter_links(board, href, lang),
            assets=assets,
            back=back,
            compare=compare,
            suite_href=suite_href,
            languages=languages,
        )
    )


def render_compare(
    result: Comparison,
    assets: str,
    back: str | None = None,
    lang: str = i18n.DEFAULT,
    languages: Sequence[i18n.Choice] = (),
) -> str:
    return (
        environment(lang)
        .get_template("compare.html")
        .render(c=result, assets=assets, back=back, languages=languages)
    )
