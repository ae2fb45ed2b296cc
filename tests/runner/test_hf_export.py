"""`runner export --format hf-eval`: a standard run as the Hub's evaluation results (the model
repo's `.eval_results/` entry, the dataset's `eval.yaml`) beside its bundle; a run a
leaderboard would not rank is refused, saying why."""

from __future__ import annotations

import tarfile
from pathlib import Path

import yaml
from support.runs import runner

from runner.results.hf import FRAMEWORK
from runner.run.evaluate import departures, select_tasks, summarize, task_set_hash
from runner.settings import TASKS_DIR
from services.core.matching import verifier_checksum
from services.core.models.folder import RunFolder
from services.core.models.run import Manifest


def write_run(home: Path, name: str, names: list[str] | None = None) -> RunFolder:
    """A finished run of the released suite (of `names` only, if given): the first task
    passed, the others failed."""
    refs = select_tasks(TASKS_DIR, None, None)
    ran = [ref for ref in refs if names is None or ref.name in names]
    records = [
        ref.record(ems=int(i == 0), completion=1, done_and_pass=int(i == 0), passed=0, total=1)
        for i, ref in enumerate(ran)
    ]
    manifest = Manifest(
        created_at="2026-12-01T09:00:00+00:00",
        harness="dom",
        model="m",
        tasks=len(ran),
        task_set_hash=task_set_hash(ran),
        task_names=[ref.name for ref in ran],
        commit="abc",
        verifier_checksum=verifier_checksum(),
        endpoint="local",
        **departures(ran),
    )
    folder = RunFolder(home / "runs" / name)
    folder.write(manifest, records, summarize(records))
    return folder


def test_a_standard_run_becomes_the_hub_entry_and_the_benchmark(tmp_path: Path, processes) -> None:
    folder = write_run(tmp_path, "20991201T000000Z-dom")
    out = tmp_path / "hf"
    shown = runner(
        tmp_path,
        "export",
        folder.name,
        "--format",
        "hf-eval",
        "--out",
        str(out),
        "--source",
        "https://example.org/run.tar.gz",
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    (result,) = yaml.safe_load((out / ".eval_results" / "webpagebench-released.yaml").read_text())
    tasks = len(select_tasks(TASKS_DIR, None, None))
    assert result["dataset"] == {"id": "webpagebench/webpagebench", "task_id": "released"}
    assert result["value"] == round(100 / tasks, 2) and result["date"] == "2026-12-01"
    assert result["source"]["url"] == "https://example.org/run.tar.gz"
    assert result["evaluation_framework"] == FRAMEWORK
    assert f"verifier {verifier_checksum()[:12]}" in result["notes"]
    registry = yaml.safe_load((out / "eval.yaml").read_text())
    assert registry["evaluation_framework"] == FRAMEWORK
    assert {"id": "released", "config": "released", "split": "test"} in registry["tasks"]
    released = task_set_hash(select_tasks(TASKS_DIR, None, None))
    assert f"released: {tasks} tasks, task set {released}" in registry["description"]
    with tarfile.open(out / f"{folder.name}.tar.gz") as bundle:
        assert "manifest.json" in bundle.getnames()


def test_a_run_of_part_of_the_suite_is_refused(tmp_path: Path, processes) -> None:
    folder = write_run(tmp_path, "20991201T000001Z-dom", ["hotels_pick_city"])
    shown = runner(tmp_path, "export", folder.name, "--format", "hf-eval")
    assert shown.returncode == 2
    assert "not a standard one of its suite" in " ".join(shown.stdout.split())
    assert not (folder.path / "hf").exists()
