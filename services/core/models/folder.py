"""A run folder, written and read in one place: `manifest.json` when the run starts, a line
of `records.jsonl` as each attempt ends, `summary.json` once the run is over, and an
`episodes/<trajectory>/` folder per attempt that recorded steps. `runner eval`, a queued
run's gatherer and `runner import` write through `RunFolder`; the board, `runner results`
and the hub's viewer read through it (docs/results.md)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from services.core.models.base import FileFormatError
from services.core.models.run import (
    EPISODES,
    MANIFEST,
    RECORDS,
    SUMMARY,
    Block,
    Manifest,
    Record,
    Summary,
    Viewport,
    read_records,
    record_lines,
)

log = logging.getLogger("wpb.runs")


@dataclass
class Run:
    """A run as its folder holds it: the manifest, its records so far, the summary once it
    has finished."""

    name: str
    manifest: Manifest
    records: list[Record]
    summary: Summary | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.manifest.model or "—", self.manifest.harness

    @property
    def suite(self) -> str:
        return self.manifest.suite

    @property
    def viewport(self) -> str:
        """The viewport its episodes ran at (an older manifest's: the default)."""
        return (self.manifest.viewport or Viewport()).name

    @property
    def task_set(self) -> str:
        """What the board ranks it among: its task set's hash and, where its manifest names
        them, the site versions it ran on (`6dc86e2f3b0916ed · books 2 files 2 …`): runs
        of other pages are another set (docs/results.md, "Task sets and site versions")."""
        versions = self.manifest.site_versions
        if not versions:
            return self.manifest.task_set_hash
        sites = " ".join(f"{domain} {version}" for domain, version in sorted(versions.items()))
        return f"{self.manifest.task_set_hash} · {sites}"

    @property
    def created(self) -> str:
        """When it was made (an imported run without the time: empty)."""
        return self.manifest.created_at or ""


class RunFolder:
    """One run's folder under a runs root (`$WPB_HOME/runs/<name>`)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def episodes(self) -> Path:
        """Where each attempt's steps, screenshots and answer go, a folder per trajectory."""
        return self.path / EPISODES

    def episode(self, tid: str) -> Path:
        return self.episodes / tid

    # Writing: start, append as each attempt ends, finish.

    def start(self, manifest: Manifest, exist_ok: bool = True) -> None:
        """The folder made with its manifest and no record yet (a gatherer that starts
        again rewrites both from the cluster)."""
        self.path.mkdir(parents=True, exist_ok=exist_ok)
        manifest.write(self.path / MANIFEST)
        (self.path / RECORDS).write_text("", encoding="utf-8")

    def append(self, record: Record) -> None:
        """One attempt's record, on disk as soon as it returns."""
        with (self.path / RECORDS).open("a", encoding="utf-8") as sink:
            sink.write(record_lines([record]))

    def finish(self, summary: Summary) -> None:
        """The run is over: its summary, which makes it a finished run."""
        summary.write(self.path / SUMMARY)

    def write(self, manifest: Manifest, records: Iterable[Record], summary: Summary) -> None:
        """A whole run at once, in a folder that must be new (`runner import`)."""
        self.start(manifest, exist_ok=False)
        (self.path / RECORDS).write_text(record_lines(records), encoding="utf-8")
        self.finish(summary)

    # Reading.

    def manifest(self) -> Manifest:
        """Its manifest; OSError where it has none, FileFormatError where it is malformed."""
        return Manifest.read(self.path / MANIFEST)

    def summary(self) -> Summary | None:
        """Its summary; None while the run has not finished."""
        done = self.path / SUMMARY
        return Summary.read(done) if done.exists() else None

    def overall(self) -> Block | None:
        summary = self.summary()
        return summary.overall if summary is not None else None

    def records(self) -> list[Record]:
        """Its records so far, in the order they were written."""
        lines = self.path / RECORDS
        return read_records(lines) if lines.is_file() else []

    def read(self) -> Run | None:
        """The run, or None where the folder has no manifest; FileFormatError naming the
        file and the field where one of its files is malformed."""
        try:
            manifest = self.manifest()
        except OSError:
            return None
        return Run(self.name, manifest, self.records(), self.summary())

    def record(self, tid: str) -> Record | None:
        """The record of the attempt on trajectory `tid`; None where it has none (yet)."""
        return next((r for r in self.records() if r.trajectory_id == tid), None)


def run_folders(root: Path) -> list[RunFolder]:
    """Every folder under the runs root `root`, newest first (names start with the time)."""
    if not root.is_dir():
        return []
    return [RunFolder(path) for path in sorted(root.iterdir(), reverse=True) if path.is_dir()]


def run_folder(root: Path, name: str) -> RunFolder | None:
    """The folder named `name` under `root`; only names that exist there are looked up."""
    return next((folder for folder in run_folders(root) if folder.name == name), None)


def finished_runs(root: Path) -> list[Run]:
    """Every finished run (one with a summary) under `root`, newest first; a folder whose
    files are malformed is left out, and logged."""
    runs = []
    for folder in run_folders(root):
        try:
            run = folder.read()
        except FileFormatError as exc:
            log.warning("run left out: %s", exc)
            continue
        if run is not None and run.summary is not None:
            runs.append(run)
    return runs
