"""Run folders (services/core/models/folder.py) read for the pages people look at: the list of
runs, a run, and an attempt's episode with the trajectory as it was recorded."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from services.core.models.api import RecordedTrajectory
from services.core.models.base import Boundary, FileFormatError
from services.core.models.folder import Run, RunFolder, run_folder, run_folders
from services.core.models.protocol import OUTPUT, STEPS, AgentOutput, Step
from services.core.models.run import Block, Manifest, Record

log = logging.getLogger("wpb.hub")
Shape = TypeVar("Shape", bound=Boundary)


@dataclass(frozen=True)
class Listed:
    """A run as the list of runs shows it: its overall figures once it has finished."""

    name: str
    manifest: Manifest
    overall: Block | None


def list_runs(root: Path) -> list[Listed]:
    """Every run under `root`, newest first, with its manifest and overall summary; a
    folder whose files are malformed is left out, and logged."""
    runs = []
    for folder in run_folders(root):
        try:
            runs.append(Listed(folder.name, folder.manifest(), folder.overall()))
        except OSError:
            continue
        except FileFormatError as exc:
            log.warning("run left out: %s", exc)
    return runs


def load_run(root: Path, name: str) -> Run | None:
    """One run by its folder name; only names that exist under `root` are looked up."""
    folder = run_folder(root, name)
    return folder.read() if folder is not None else None


STEP_SHOT = re.compile(r"step-\d{3}\.png")


@dataclass(frozen=True)
class Attempt:
    """What a run folder holds of the attempt on one trajectory: its episode folder (None in
    a run that recorded none) with the agent's steps (each with its screenshot's name) and
    answer, its record once written, and the trajectory as the stand held it once checked
    (None in a folder older than that)."""

    run: str
    folder: Path | None
    steps: list[Step]
    output: AgentOutput | None
    record: Record | None
    recorded: RecordedTrajectory | None


def find_attempt(root: Path, tid: str) -> Attempt | None:
    """The attempt on trajectory `tid`: in the newest run whose folder has its episode, else
    in the newest run that has its record; None where no run has either (a trajectory no
    run made, an attempt still running, or one whose run is elsewhere)."""
    runs = run_folders(root)
    for run in runs:
        folder = run.episode(tid)
        if folder.is_dir():
            return Attempt(
                run.name,
                folder,
                Step.read_lines(folder / STEPS),
                AgentOutput.read_if(folder / OUTPUT),
                _record(run, tid),
                RecordedTrajectory.kept(folder),
            )
    for run in runs:
        if (record := _record(run, tid)) is not None:
            return Attempt(run.name, None, [], None, record, None)
    return None


def _record(run: RunFolder, tid: str) -> Record | None:
    try:
        return run.record(tid)
    except FileFormatError as exc:
        log.warning("records left out: %s", exc)
        return None
