"""The board's charts as SVG, drawn here (no plotting library): every colour is a CSS
variable of board.css, so one drawing serves the light and the dark theme."""

from __future__ import annotations

from gettext import NullTranslations
from html import escape

from services.core.models.board import Board, RateView, Row, Sensitivity

WIDTH = 640
LABEL_W = 200  # the left column of names
ROW_H = 26
SERIES = 6  # --series-0 … --series-5


def _svg(name: str, title: str, height: int, body: list[str]) -> str:
    return (
        f'<svg class="chart" data-chart="{name}" role="img" aria-label="{escape(title)}" '
        f'viewBox="0 0 {WIDTH} {height}" width="100%" preserveAspectRatio="xMinYMin meet">'
        f"<title>{escape(title)}</title>{''.join(body)}</svg>"
    )


def _x(value: float, left: int = LABEL_W, right: int = WIDTH - 20) -> float:
    return round(left + value * (right - left), 1)


def _axis(top: int, bottom: int) -> list[str]:
    """Ticks at 0, 0.25 … 1 with their grid lines."""
    parts = []
    for tick in (0, 0.25, 0.5, 0.75, 1):
        x = _x(tick)
        parts.append(f'<line class="grid" x1="{x}" x2="{x}" y1="{top}" y2="{bottom}"/>')
        parts.append(f'<text class="tick" x="{x}" y="{bottom + 14}">{tick:g}</text>')
    return parts


def _label(y: float, text: str) -> str:
    return f'<text class="label" x="{LABEL_W - 8}" y="{y}">{escape(text)}</text>'


def _interval(y: float, rate: RateView) -> list[str]:
    lo, hi = _x(rate.low), _x(rate.high)
    return [
        f'<line class="whisker" x1="{lo}" x2="{hi}" y1="{y}" y2="{y}"/>',
        f'<line class="whisker" x1="{lo}" x2="{lo}" y1="{y - 5}" y2="{y + 5}"/>',
        f'<line class="whisker" x1="{hi}" x2="{hi}" y1="{y - 5}" y2="{y + 5}"/>',
    ]


def ems(rows: list[Row], tr: NullTranslations) -> str:
    """EMS per model × harness: a bar and its 95% interval."""
    height = 30 + ROW_H * len(rows) + 20
    body = _axis(10, height - 20)
    for i, row in enumerate(rows):
        y = 20 + i * ROW_H
        value = row.ems.value or 0.0
        body.append(_label(y + 5, row.label))
        body.append(
            f'<rect class="bar s{i % SERIES}" x="{LABEL_W}" y="{y - 8}" '
            f'width="{_x(value) - LABEL_W}" height="16"><title>EMS {value:.3f}</title></rect>'
        )
        body += _interval(y, row.ems)
    title = tr.gettext("EMS by model and harness with its 95 percent interval")
    return _svg("ems", title, height, body)


def gap(rows: list[Row], tr: NullTranslations) -> str:
    """Completion against Done&pass: the claimed-versus-confirmed gap as a segment."""
    height = 30 + ROW_H * len(rows) + 40
    body = _axis(10, height - 40)
    for i, row in enumerate(rows):
        y = 20 + i * ROW_H
        done = row.completion.value or 0.0
        both = row.done_and_pass.value or 0.0
        body.append(_label(y + 5, row.label))
        body.append(f'<line class="gapline" x1="{_x(both)}" x2="{_x(done)}" y1="{y}" y2="{y}"/>')
        body.append(f'<circle class="dot-pass" cx="{_x(both)}" cy="{y}" r="6"/>')
        body.append(f'<circle class="dot-done" cx="{_x(done)}" cy="{y}" r="6"/>')
    legend = height - 12
    body.append(f'<circle class="dot-done" cx="{LABEL_W}" cy="{legend - 4}" r="5"/>')
    body.append(f'<text class="tick start" x="{LABEL_W + 10}" y="{legend}">Completion</text>')
    body.append(f'<circle class="dot-pass" cx="{LABEL_W + 120}" cy="{legend - 4}" r="5"/>')
    body.append(f'<text class="tick start" x="{LABEL_W + 130}" y="{legend}">Done&amp;pass</text>')
    title = tr.gettext("Completion against Done&pass: claimed and confirmed")
    return _svg("gap", title, height, body)


def facet(rows: list[Row], key: str, name: str, title: str) -> str:
    """EMS by a facet (`by_site`, `by_ui`): for each group a bar per row, with intervals."""
    cells: list[dict[str, RateView]] = [getattr(row, key) for row in rows]
    groups = sorted({group for by in cells for group in by})
    bar = 14
    block = bar * max(1, len(rows)) + 10
    height = 20 + block * len(groups) + 20
    body = _axis(10, height - 20)
    for g, group in enumerate(groups):
        top = 16 + g * block
        body.append(_label(top + bar * len(rows) / 2 + 4, group))
        for i, (row, by) in enumerate(zip(rows, cells, strict=True)):
            cell = by.get(group)
            if cell is None:
                continue
            y = top + i * bar
            value = cell.value or 0.0
            body.append(
                f'<rect class="bar s{i % SERIES}" x="{LABEL_W}" y="{y}" '
                f'width="{_x(value) - LABEL_W}" height="{bar - 3}">'
                f"<title>{escape(row.label)}: {value:.3f} "
                f"({cell.k}/{cell.n})</title></rect>"
            )
            body += _interval(y + (bar - 3) / 2, cell)[:1]
    return _svg(name, title, height, body)


def heatmap(variants: Sensitivity, labels: list[str], tr: NullTranslations) -> str:
    """Variant sensitivity: control implementation × model, the variant's EMS minus its
    donor's, red where the variant loses, green where it gains."""
    controls = variants.controls
    col_w = max(60, min(140, (WIDTH - LABEL_W) // max(1, len(labels))))
    height = 40 + ROW_H * len(controls) + 10
    body = []
    for j, label in enumerate(labels):
        x = LABEL_W + j * col_w + col_w / 2
        body.append(f'<text class="tick" x="{x}" y="14">{escape(label)}</text>')
    for i, control in enumerate(controls):
        y = 24 + i * ROW_H
        body.append(_label(y + ROW_H / 2 + 4, control))
        for j, label in enumerate(labels):
            cell = variants.cells[control].get(label)
            if cell is None or cell.delta is None:
                continue
            delta = cell.delta
            tone = "worse" if delta < 0 else "better" if delta > 0 else "same"
            strength = round(0.15 + 0.85 * min(1.0, abs(delta)), 2) if delta else 1
            x = LABEL_W + j * col_w
            body.append(
                f'<rect class="cell {tone}" x="{x + 1}" y="{y + 1}" width="{col_w - 2}" '
                f'height="{ROW_H - 2}" fill-opacity="{strength}"><title>{escape(control)}, '
                f"{escape(label)}: {delta:+.2f} [{cell.low:+.2f}; {cell.high:+.2f}], "
                f"n={cell.n}</title></rect>"
            )
            body.append(
                f'<text class="celltext" x="{x + col_w / 2}" y="{y + ROW_H / 2 + 4}">'
                f"{delta:+.2f}</text>"
            )
    title = tr.gettext("Variant sensitivity: the variant's EMS minus the donor's")
    return _svg("heatmap", title, height, body)


def cost(rows: list[Row], tr: NullTranslations) -> str:
    """Total cost (x) against EMS (y), each point with its EMS interval."""
    left, right, top, bottom = 60, WIDTH - 20, 16, 236
    most = max((row.cost for row in rows), default=0.0) or 1.0
    body = []
    for tick in (0, 0.5, 1):
        y = round(bottom - tick * (bottom - top), 1)
        body.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y}" y2="{y}"/>')
        body.append(f'<text class="tick end" x="{left - 6}" y="{y + 4}">{tick:g}</text>')
    for tick in (0, 0.5, 1):
        x = round(left + tick * (right - left), 1)
        body.append(f'<text class="tick" x="{x}" y="{bottom + 16}">${most * tick:.4g}</text>')
    for i, row in enumerate(rows):
        x = round(left + row.cost / most * (right - left), 1)
        rate = row.ems
        y = round(bottom - (rate.value or 0.0) * (bottom - top), 1)
        lo = round(bottom - rate.low * (bottom - top), 1)
        hi = round(bottom - rate.high * (bottom - top), 1)
        body.append(f'<line class="whisker" x1="{x}" x2="{x}" y1="{lo}" y2="{hi}"/>')
        body.append(
            f'<circle class="bar s{i % SERIES}" cx="{x}" cy="{y}" r="6"><title>'
            f"{escape(row.label)}: ${row.cost:.4f}, EMS {rate.value or 0:.3f}"
            "</title></circle>"
        )
        body.append(f'<text class="tick start" x="{x + 9}" y="{y - 6}">{escape(row.label)}</text>')
    return _svg("cost", tr.gettext("Cost against EMS"), bottom + 26, body)


def all_charts(board: Board, tr: NullTranslations) -> dict[str, str]:
    """Every chart of a board, by name, its titles in the language of `tr`."""
    rows = board.rows
    labels = [row.label for row in rows]
    return {
        "ems": ems(rows, tr),
        "gap": gap(rows, tr),
        "site": facet(rows, "by_site", "site", tr.gettext("EMS by site")),
        "ui": facet(rows, "by_ui", "ui", tr.gettext("EMS by UI class")),
        "heatmap": heatmap(board.variants, labels, tr),
        "cost": cost(rows, tr),
    }
