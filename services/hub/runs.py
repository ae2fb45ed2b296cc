"""Run directories written by `runner eval`, read for the pages people look at."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from services.core.models.base import FileFormatError
from services.core.models.protocol import OUTPUT, STEPS, AgentOutput, Step
from services.core.models.run import (
    EPISODES,
    MANIFEST,
    RECORDS,
    SUMMARY,
    Block,
    Manifest,
    Record,
    Summary,
    read_records,
)
from services.core.results.board import Run, read_run

log = logging.getLogger("wpb.hub")


@dataclass(frozen=True)
class Listed:
    """A run as the list of runs shows it: its overall figures once it has finished."""

    name: str
    manifest: Manifest
    overall: Block | None


def list_runs(root: Path) -> list[Listed]:
    """Every run under `root`, newest first, with its manifest and overall summary; a
    folder whose files are malformed is left out, and logged."""
    if not root.is_dir():
        return []
    runs = []
    for folder in sorted(root.iterdir(), reverse=True):
        try:
            manifest = Manifest.read(folder / MANIFEST)
            done = folder / SUMMARY
            overall = Summary.read(done).overall if done.exists() else None
        except OSError:
            continue
        except FileFormatError as exc:
            log.warning("run left out: %s", exc)
            continue
        runs.append(Listed(folder.name, manifest, overall))
    return runs


def load_run(root: Path, name: str) -> Run | None:
    """One run by its folder name; only names that exist under `root` are looked up."""
    if not root.is_dir() or name not in {p.name for p in root.iterdir()}:
        return None
    return read_run(root / name)


STEP_SHOT = re.compile(r"step-\d{3}\.png")


@dataclass(frozen=True)
class RecordedEpisode:
    """An agent's steps (each with its screenshot's name) and final answer, as recorded."""

    run: str
    steps: list[Step]
    output: AgentOutput | None


def find_episode(root: Path, tid: str) -> Path | None:
    """The folder an agent harness wrote for trajectory `tid` (`<run>/episodes/<tid>/`)."""
    if not root.is_dir():
        return None
    return next((p for p in root.glob(f"*/{EPISODES}/{tid}") if p.is_dir()), None)


def load_episode(folder: Path | None) -> RecordedEpisode | None:
    if folder is None:
        return None
    try:
        output = AgentOutput.read(folder / OUTPUT)
    except (OSError, FileFormatError):
        output = None  # the agent was killed before its answer, or wrote a broken one
    return RecordedEpisode(folder.parent.parent.name, Step.read_lines(folder / STEPS), output)


def find_record(root: Path, tid: str, run: str | None = None) -> Record | None:
    """The record of the attempt on trajectory `tid`: in run `run` (the one whose episode it
    is) when given, else in the newest run that has it; None when no run does (an attempt
    still running, or a trajectory no run made)."""
    if not root.is_dir():
        return None
    names = [run] if run is not None else sorted((p.name for p in root.iterdir()), reverse=True)
    for name in names:
        lines = root / name / RECORDS
        try:
            records = read_records(lines) if lines.is_file() else []
        except FileFormatError as exc:
            log.warning("records left out: %s", exc)
            continue
        found = next((r for r in records if r.trajectory_id == tid), None)
        if found is not None:
            return found
    return None
