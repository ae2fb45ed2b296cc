"""`runner --help` and the help of every group and command, as a person reads them at 80
columns: a summary sentence first (the one a group's list shows), then paragraphs that the
terminal wraps, never the docstrings' own line ends."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from runner.cli import app

WIDTH = 80
# A box's side, where rich draws the panels of options and commands.
SIDE = "│"
# A sentence that ends inside a summary: a stop and a capital after it.
SECOND_SENTENCE = re.compile(r"[.!?]\s+[A-ZА-ЯЁ]")


def commands() -> list[tuple[list[str], Any]]:
    """Every group and command under `runner`, by its words (`["tasks", "show"]`)."""
    found: list[tuple[list[str], Any]] = []

    def walk(words: list[str], command: Any) -> None:
        found.append((words, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk([*words, name], sub)

    walk([], get_command(app))
    return found


def ragged(text: str) -> list[str]:
    """Lines that start with a lower-case word the line before had room for: a break the
    text itself made, not the terminal's wrapping."""
    found = []
    lines = text.splitlines()
    for before, line in itertools.pairwise(lines):
        boxed = line.startswith(SIDE) and before.startswith(SIDE)
        inner_before = before.strip(SIDE).rstrip() if boxed else before.rstrip()
        inner = line.strip(SIDE) if boxed else line
        words = inner.split()
        if not words or not words[0][0].islower():
            continue
        indent = len(inner) - len(inner.lstrip())
        if boxed and indent <= 5:  # a new row of the panel: an option's or a command's name
            continue
        room = (WIDTH - 2 if boxed else WIDTH) - 1 - len(inner_before)
        if len(words[0]) + 1 <= room:
            found.append(f"{before.strip()!r} then {line.strip()!r}")
    return found


def box(*lines: str) -> str:
    return "\n".join((SIDE + line).ljust(WIDTH - 1) + SIDE for line in lines)


def test_the_check_finds_a_docstrings_line_end() -> None:
    kept = box(
        " up   Start nats-server and every service on this machine,",
        "      supervised (a service that dies",
        "      is started again); print the hub URL.",
    )
    assert len(ragged(kept)) == 2  # «supervised» and «is» fitted on the line before
    wrapped = box(
        " up   Start nats-server and every service on this machine, supervised (a",
        "      service that dies is started again); print the hub URL.",
    )
    assert not ragged(wrapped)


@pytest.mark.parametrize("words", [w for w, _ in commands()], ids=lambda w: " ".join(w) or "runner")
def test_help_reads_at_80_columns(words: list[str]) -> None:
    result = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    assert not ragged(result.output), "\n".join(ragged(result.output))
    assert max(len(line) for line in result.output.splitlines()) <= WIDTH


@pytest.mark.parametrize(
    ("words", "command"), commands(), ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_every_help_is_a_summary_sentence_then_paragraphs(words: list[str], command: Any) -> None:
    text = command.help or ""
    summary, *_ = text.split("\n\n")
    where = " ".join(["runner", *words])
    assert summary[:1].isupper(), f"{where}: the help starts in lower case: {summary!r}"
    assert summary.endswith("."), f"{where}: the summary is not a sentence: {summary!r}"
    assert not SECOND_SENTENCE.search(summary), f"{where}: the summary is one sentence: {summary!r}"
    assert "\n" not in summary, f"{where}: the summary keeps a line end: {summary!r}"
