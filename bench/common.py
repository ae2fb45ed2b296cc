"""What the benchmarks share: a fresh embedded stack and percentile helpers."""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.table import Table

from runner.stack import Stack, built_sites, free_port

console = Console(width=120)


@contextmanager
def fresh_stack(sites: str | None = None) -> Iterator[Stack]:
    with tempfile.TemporaryDirectory(prefix="wpb-bench-") as home:
        stack = Stack(
            Path(home),
            hub_port=free_port(),
            today="2026-11-29",
            sites=None if sites is None else built_sites(sites),
        )
        stack.start()
        try:
            yield stack
        finally:
            stack.stop()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary_ms(values: list[float]) -> tuple[str, str, str]:
    ms = [v * 1000 for v in values]
    return (f"{percentile(ms, 50):.2f}", f"{percentile(ms, 99):.2f}", f"{statistics.fmean(ms):.2f}")


def table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    out = Table(title=title)
    for column in columns:
        out.add_column(column)
    for row in rows:
        out.add_row(*row)
    console.print(out)
