"""A run as a bundle anyone can re-score (runner/results/bundle.py): `runner bundle` and
`runner rescore` as a user types them, and bundles tampered four ways, each refused naming
the first difference. Every run the suite makes is re-scored where it is made
(tests/support/runs.py `run_eval`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support.runs import run_eval, runner

from runner.results.bundle import (
    INDEX,
    BundleRefused,
    read_members,
    rescore,
    sha256,
    write_members,
)
from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from runner.stack.stack import Stack
from services.core.matching import verifier_checksum
from services.core.models.run import Manifest

TASKS = "grocery_showcase_tea,hotels_pick_city"
Members = dict[str, bytes]


@pytest.fixture(scope="module")
def bundled(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The oracle's run of two tasks under a WPB_HOME, its bundle written by `runner
    bundle`, and the grocery attempt's trajectory id."""
    home = tmp_path_factory.mktemp("bundle-home")
    run = run_eval(stack, home / "runs" / "oracle", "oracle", select_tasks(TASKS_DIR, TASKS, None))
    out = home / "oracle.tar.gz"
    written = runner(home, "bundle", "oracle", str(out))
    assert written.returncode == 0 and "2 attempts' event logs" in written.stdout, written.stdout
    (tea,) = [r.trajectory_id for r in run.records if r.task == "grocery_showcase_tea"]
    return home, out, str(tea)


def tampered(
    source: Path,
    target: Path,
    change: Callable[[Members], None],
    relist: bool = True,
    verifier: str | None = None,
) -> Path:
    """A copy of the bundle with `change` made to its members; with `relist`, the checksum
    list made to fit (a forger's bundle), else left as it was; `verifier` claimed instead of
    the one that judged it."""
    members = read_members(source)
    index = json.loads(members.pop(INDEX))
    change(members)
    if relist:
        index["files"] = {name: sha256(data) for name, data in members.items()}
    if verifier is not None:
        index["verifier_checksum"] = verifier
    write_members(target, {INDEX: json.dumps(index).encode(), **members})
    return target


def test_a_bundle_rescores_and_every_verdict_agrees(bundled: tuple[Path, Path, str]) -> None:
    home, out, _ = bundled
    done = runner(home, "rescore", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 scored attempts re-scored from their event logs, all agree" in done.stdout
    assert rescore(out).agreed == 2
    # The verifier the run's manifest names is the bundle's and this checkout's.
    manifest = Manifest.read(home / "runs" / "oracle" / "manifest.json")
    index = json.loads(read_members(out)[INDEX])
    assert manifest.verifier_checksum == index["verifier_checksum"] == verifier_checksum()
    # Both attempts' ATIF trajectories come with their logs (the oracle, in the runner's
    # process, writes no output.json).
    assert (index["trajectories"], index["outputs"]) == (2, 0)


def test_a_tampered_bundle_is_refused_naming_the_first_difference(
    bundled: tuple[Path, Path, str], tmp_path: Path
) -> None:
    home, out, tea = bundled
    log = f"episodes/{tea}/recorded.json"

    def flip_verdict(members: Members) -> None:
        lines = [json.loads(line) for line in members["records.jsonl"].splitlines()]
        for record in lines:
            if record["trajectory_id"] == tea:
                record.update(ems=0, passed=0)
        members["records.jsonl"] = "".join(json.dumps(r) + "\n" for r in lines).encode()

    def drop_event(members: Members) -> None:
        kept = json.loads(members[log])
        events = kept["events"]["events"]
        events[:] = [e for e in events if e["type"] != "basket_add"]
        members[log] = json.dumps(kept).encode()

    cases = {
        "flipped": (
            flip_verdict,
            True,
            "the record says EMS 0, 0/1 conditions; its event log gives EMS 1, 1/1",
        ),
        "dropped": (
            drop_event,
            True,
            "the record says EMS 1, 1/1 conditions; its event log gives EMS 0, 0/1",
        ),
        "unlisted": (drop_event, False, f"{log}: its SHA-256 is not the one the checksum list"),
    }
    for name, (change, relist, said) in cases.items():
        forged = tampered(out, tmp_path / f"{name}.tar.gz", change, relist)
        with pytest.raises(BundleRefused) as refused:
            rescore(forged)
        assert said in str(refused.value), (name, str(refused.value))
        if name == "flipped":
            assert "grocery_showcase_tea (attempt 1" in str(refused.value)
    forged = tampered(out, tmp_path / "verifier.tar.gz", lambda _: None, verifier="0" * 64)
    refused_cli = runner(home, "rescore", str(forged))
    assert refused_cli.returncode != 0
    assert "refused: judged by verifier 000000000000" in " ".join(refused_cli.stdout.split())
