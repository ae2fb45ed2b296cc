"""The terminal's tables at 80, 100 and 130 columns: the columns that name a row and its
headline always, the rest while they fit, a line naming those left out, and no header broken
inside a word; `--wide` and a pipe print every column."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from runner.cli.tables import print_board, print_run
from runner.run.evaluate import summarize
from services.core.models.board import Board, Filter
from services.core.models.folder import Run
from services.core.models.run import AgentSettings, Manifest
from services.core.results.board import build
from tests.runner.test_interchange import record

WIDTHS = (80, 100, 130)
BOARD_HEADERS = ["Model", "Harness", "EMS", "Completion", "Done&pass", "Gap", "False done"]
BOARD_HEADERS += ["Over-action", "Steps", "Seconds", "Cost", "Infra", "Scored", "pass@k"]
BOARD_HEADERS += ["pass^k", "Run"]
RUN_HEADERS = ["Task", "EMS", "Status", "Completion", "Done&pass", "Site", "Steps", "Seconds"]
LEFT_OUT = re.compile(r"left out for the terminal's width: (.+?) \(--wide shows all\)", re.S)


def a_run(model: str, harness: str, name: str) -> Run:
    manifest = Manifest(
        created_at="2026-11-30T10:00:00+00:00",
        harness=harness,
        model=model,
        agent=AgentSettings(base_url="http://127.0.0.1:8011/v1"),
        task_set_hash="x",
    )
    records = [
        record("hotels_pick_city", 1, 1),
        record("hotels_pick_city__theme_dark", 0, 1),
    ]
    return Run(name, manifest, records, summarize(records))


@pytest.fixture(scope="module")
def board() -> Board:
    runs = [
        a_run("qwen2.5-vl-72b-instruct", "browser-use", "20261201T101010Z-browser-use"),
        a_run("gemma-3-270m-it-q8", "dom", "20261201T111111Z-dom"),
    ]
    return build(runs, Filter(), True, "released", None)


def terminal(width: int) -> Console:
    return Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)


def header_lines(text: str) -> str:
    """The first table's header: the lines between its top rule and the rule under it."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    under = next(i for i, line in enumerate(lines) if line.startswith("┡"))
    return "\n".join(lines[top + 1 : under])


def cells(header: str) -> list[str]:
    """Each column's header, its lines joined: what a reader sees in it."""
    rows = [line.strip("┃").split("┃") for line in header.splitlines()]
    return [" ".join(" ".join(r[i].split()) for r in rows).strip() for i in range(len(rows[0]))]


def fits(text: str, headers: list[str], keep: int, width: int) -> None:
    shown = cells(header_lines(text))
    assert all(len(line) <= width for line in text.splitlines()), text
    assert shown[:keep] == headers[:keep]
    # Each header whole, never split inside a word; the rest named as left out.
    assert set(shown) <= set(headers), shown
    left = LEFT_OUT.search(text)
    named = [] if left is None else [h.strip() for h in " ".join(left[1].split()).split(", ")]
    assert sorted(shown + named) == sorted(headers), (shown, named)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_board_fits_the_terminal(board: Board, width: int) -> None:
    console = terminal(width)
    print_board(console, board)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    fits(text, BOARD_HEADERS, 3, width)
    assert "qwen2.5-vl-72b-instruct" in text and "gemma-3-270m-it-q8" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_the_run_fits_the_terminal(width: int) -> None:
    run = a_run("m", "dom", "20261201T101010Z-dom")
    console = terminal(width)
    print_run(console, run, Path("/runs/x"))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    fits(text, RUN_HEADERS, 3, width)
    assert "hotels_pick_city__theme_dark" in text


@pytest.mark.parametrize("wide", [True, False])
def test_wide_and_a_pipe_print_every_column(board: Board, wide: bool) -> None:
    console = terminal(80) if wide else Console(file=io.StringIO(), width=80, color_system=None)
    print_board(console, board, wide=wide)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert cells(header_lines(text)) == BOARD_HEADERS
    assert "left out" not in text
