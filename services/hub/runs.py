"""Run directories written by `runner eval`, read for the pages people look at."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from services.core.results.board import read_json, read_run


def list_runs(root: Path) -> list[dict[str, Any]]:
    """Every run under `root`, newest first, with its manifest and overall summary."""
    if not root.is_dir():
        return []
    runs = []
    for folder in sorted(root.iterdir(), reverse=True):
        manifest = read_json(folder / "manifest.json")
        if manifest is None:
            continue
        summary = read_json(folder / "summary.json") or {}
        runs.append(
            {
                "name": folder.name,
                "manifest": manifest,
                "overall": summary.get("overall"),
                "finished": bool(summary),
            }
        )
    return runs


def load_run(root: Path, name: str) -> dict[str, Any] | None:
    """One run by its folder name; only names that exist under `root` are looked up."""
    if not root.is_dir() or name not in {p.name for p in root.iterdir()}:
        return None
    run = read_run(root / name)
    if run is None:
        return None
    return {"name": name, "manifest": run.manifest, "summary": run.summary, "records": run.records}


STEP_SHOT = re.compile(r"step-\d{3}\.png")


def find_episode(root: Path, tid: str) -> Path | None:
    """The folder an agent harness wrote for trajectory `tid` (`<run>/episodes/<tid>/`)."""
    if not root.is_dir():
        return None
    return next((p for p in root.glob(f"*/episodes/{tid}") if p.is_dir()), None)


def load_episode(folder: Path | None) -> dict[str, Any] | None:
    """An agent's steps (each with its screenshot's name) and final answer, as recorded."""
    if folder is None:
        return None
    steps = []
    lines = folder / "steps.jsonl"
    if lines.exists():
        for line in lines.read_text("utf-8").splitlines():
            try:
                steps.append(json.loads(line))
            except ValueError:
                continue  # a line cut short by a kill
    return {
        "run": folder.parent.parent.name,
        "steps": steps,
        "output": read_json(folder / "output.json"),
    }
