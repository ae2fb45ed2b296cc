"""Run directories written by `runner eval`, read for the pages people look at."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def list_runs(root: Path) -> list[dict[str, Any]]:
    """Every run under `root`, newest first, with its manifest and overall summary."""
    if not root.is_dir():
        return []
    runs = []
    for folder in sorted(root.iterdir(), reverse=True):
        manifest = _read(folder / "manifest.json")
        if manifest is None:
            continue
        summary = _read(folder / "summary.json") or {}
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
    folder = root / name
    manifest = _read(folder / "manifest.json")
    if manifest is None:
        return None
    records = []
    lines = folder / "records.jsonl"
    if lines.exists():
        records = [json.loads(line) for line in lines.read_text("utf-8").splitlines() if line]
    return {
        "name": name,
        "manifest": manifest,
        "summary": _read(folder / "summary.json"),
        "records": records,
    }


def _read(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
