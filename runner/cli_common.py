"""What every `runner` command shares: the console it prints on and how it refuses."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
if not console.is_terminal:  # CI logs and pipes: wide enough for the task names
    console = Console(width=140)


def fail(message: str) -> NoReturn:
    """The message as it is: no markup, no `:emoji:` codes (a `site:<domain>:` stays text)."""
    console.print(f"[red]error:[/red] {escape(message)}", emoji=False)
    raise typer.Exit(2)
