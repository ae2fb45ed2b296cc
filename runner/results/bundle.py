"""A run as one archive anyone can re-score (`runner bundle RUN OUT`, `runner rescore BUNDLE`;
docs/results.md, "Bundles and re-scoring").

The bundle is a gzipped tar: `bundle.json` (the format, the run's name, the checksum of the
verifier that judged it and a SHA-256 of every other member), the run's `manifest.json`,
`records.jsonl` and `summary.json`, and for each attempt with an episode folder its
`recorded.json` (the trajectory as the stand held it once checked: its conditions, its event
log with the collector's sequence numbers, the stand's verdict), the agent's `output.json`
(its claim and report) and its ATIF `trajectory.json` where it has them.

Re-scoring trusts none of the numbers: every member must match its checksum and every
checksum a member, the verifier that judged the run must be this checkout's, and each scored
record's verdict must be what this checkout's verifier computes from the attempt's event log.
The first difference refuses the bundle, named.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

from services.core.matching import check, verifier_checksum
from services.core.models.api import RecordedTrajectory
from services.core.models.base import FileFormatError
from services.core.models.folder import RunFolder
from services.core.models.protocol import OUTPUT
from services.core.models.run import ATIF, EPISODES, RECORDED, Record

FORMAT = 1
INDEX = "bundle.json"
RUN_FILES = ("manifest.json", "records.jsonl", "summary.json")


class BundleRefused(ValueError):
    """The bundle does not re-score: the message names the first difference."""


@dataclass(frozen=True)
class Rescored:
    """A bundle re-scored: its run, the verifier, the attempts whose verdicts were computed
    again (all agreed), and those not scored (the stand failed them)."""

    run: str
    verifier: str
    agreed: int
    unscored: int


def write_bundle(folder: RunFolder, out: Path) -> int:
    """The run in `folder` as the bundle `out`; how many attempts' logs it holds."""
    run = folder.read()
    if run is None:
        raise FileNotFoundError(f"{folder.path}: no manifest")
    members: dict[str, bytes] = {}
    for name in RUN_FILES:
        if (folder.path / name).is_file():
            members[name] = (folder.path / name).read_bytes()
    logs = 0
    for record in run.records:
        episode = folder.episode(record.trajectory_id) if record.trajectory_id else None
        recorded = RecordedTrajectory.kept(episode) if episode else None
        if episode is None or recorded is None:
            continue
        base = f"{EPISODES}/{record.trajectory_id}"
        members[f"{base}/{RECORDED}"] = recorded.dumps().encode()
        if (episode / RECORDED).is_file() and (episode / ATIF).is_file():
            members[f"{base}/{ATIF}"] = (episode / ATIF).read_bytes()
        if (episode / OUTPUT).is_file():
            members[f"{base}/{OUTPUT}"] = (episode / OUTPUT).read_bytes()
        logs += 1
    index = {
        "bundle": FORMAT,
        "run": run.name,
        # The one its manifest names (an older run's: this checkout's).
        "verifier_checksum": run.manifest.verifier_checksum or verifier_checksum(),
        # Whether the agents' own accounts come with the logs: the attempts with an ATIF
        # trajectory, and with the agent's output.
        "trajectories": sum(name.endswith(f"/{ATIF}") for name in members),
        "outputs": sum(name.endswith(f"/{OUTPUT}") for name in members),
        "files": {name: sha256(data) for name, data in sorted(members.items())},
    }
    write_members(out, {INDEX: json.dumps(index, indent=1).encode(), **members})
    return logs


def rescore(path: Path) -> Rescored:
    """Every scored attempt of the bundle judged again from its event log (the module's
    docstring); BundleRefused at the first difference."""
    members = read_members(path)
    index = json.loads(members.pop(INDEX, b"null") or b"null")
    if not isinstance(index, dict) or index.get("bundle") != FORMAT:
        raise BundleRefused(f"{path}: not a bundle of format {FORMAT} (no {INDEX})")
    listed: dict[str, str] = index.get("files") or {}
    for name, digest in listed.items():
        if name not in members:
            raise BundleRefused(f"{name}: in the checksum list, not in the bundle")
        if sha256(members[name]) != digest:
            raise BundleRefused(f"{name}: its SHA-256 is not the one the checksum list gives")
    for name in members:
        if name not in listed:
            raise BundleRefused(f"{name}: in the bundle, not in the checksum list")
    ours = verifier_checksum()
    if index.get("verifier_checksum") != ours:
        raise BundleRefused(
            f"judged by verifier {str(index.get('verifier_checksum'))[:12]}, this checkout's"
            f" is {ours[:12]}: re-score it with that verifier's checkout"
        )
    agreed = unscored = 0
    for number, line in enumerate(members.get("records.jsonl", b"").decode().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = Record.parse(line, f"records.jsonl:{number}")
        except FileFormatError as exc:
            raise BundleRefused(str(exc)) from None
        if record.ems is None:
            unscored += 1
            continue
        judge(record, members.get(f"{EPISODES}/{record.trajectory_id}/{RECORDED}"))
        agreed += 1
    return Rescored(str(index.get("run")), ours, agreed, unscored)


def judge(record: Record, recorded: bytes | None) -> None:
    """The record's verdict, and the stand's, against the one its event log gives."""
    attempt = f"{record.task} (attempt {record.repeat}, trajectory {record.trajectory_id})"
    if recorded is None:
        raise BundleRefused(f"{attempt}: scored, but its event log is not in the bundle")
    try:
        kept = RecordedTrajectory.parse(recorded, f"{attempt}: {RECORDED}")
    except FileFormatError as exc:
        raise BundleRefused(str(exc)) from None
    verdict = check(list(kept.meta.conditions), list(kept.events.events))
    computed = (verdict.ems, verdict.passed, verdict.total)
    for whose, said in (
        ("the record", (record.ems, record.passed, record.total)),
        ("the stand's verdict", (kept.verdict.ems, kept.verdict.passed, kept.verdict.total)),
    ):
        if said != computed:
            raise BundleRefused(
                f"{attempt}: {whose} says EMS {said[0]}, {said[1]}/{said[2]} conditions;"
                f" its event log gives EMS {computed[0]}, {computed[1]}/{computed[2]}"
            )


def write_members(out: Path, members: dict[str, bytes]) -> None:
    """The archive `out` of these files, in this order."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def read_members(path: Path) -> dict[str, bytes]:
    """Every regular file of the archive by name; BundleRefused for what is not one."""
    try:
        with tarfile.open(path, "r:gz") as tar:
            members = {}
            for info in tar.getmembers():
                if not info.isfile():
                    raise BundleRefused(f"{info.name}: not a plain file")
                data = tar.extractfile(info)
                members[info.name] = data.read() if data else b""
            return members
    except (OSError, tarfile.TarError) as exc:
        raise BundleRefused(f"{path}: not a readable bundle ({exc})") from None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
