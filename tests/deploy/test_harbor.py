"""Exported tasks run by Harbor (`harbor` from PyPI, in a venv of its own: it needs Python
3.12), offline, with the images `make images` built: `runner export --format harbor` of
three tasks on three sites, `harbor run` with Harbor's `oracle` agent (our reference solver
through the pages in the box's Chromium: reward 1 each) and its `nop` agent (reward 0, its
failure class among the metrics), every trial on the compose stand they share, each with a
trajectory of its own. Harbor's own loader reads the whole released suite's export."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.compose import Stand
from support.runs import runner

from runner.harbor.export import HARBOR

pytestmark = [pytest.mark.timeout(900)]

THREE = "grocery_showcase_tea,hotels_pick_city,rail_pick_from"


@pytest.fixture(scope="module")
def harbor(processes: None) -> Path:
    """Harbor's command, its venv made once per machine (keyed by its pin)."""
    HARBOR.install(log=lambda _: None)
    return HARBOR.python().with_name("harbor")


def export(home: Path, out: Path, *options: str) -> None:
    done = runner(home, "export", str(out), "--format", "harbor", *options)
    assert done.returncode == 0, done.stdout + done.stderr


def harbor_run(
    harbor: Path, tasks: Path, agents: list[str], stand: Stand
) -> dict[tuple[str, str], dict[str, Any]]:
    """One `harbor run` job of every task under `tasks` with each of `agents` (Harbor's job
    configuration), on the shared stand; each trial's result.json by agent and task name."""
    jobs = tasks.parent / "jobs"
    config = {
        "job_name": "job",
        "jobs_dir": str(jobs),
        "n_concurrent_trials": 3,
        "agents": [{"name": agent} for agent in agents],
        "datasets": [{"path": str(tasks)}],
        "environment": {"type": "docker"},
    }
    (tasks.parent / "job.json").write_text(json.dumps(config))
    env = {
        **os.environ,
        "HARBOR_TELEMETRY": "0",
        "WPB_ADMIN_TOKEN": stand.token(),
        "WPB_STAND_NETWORK": f"{stand.project}_agents",
    }
    argv = [str(harbor), "run", "-c", str(tasks.parent / "job.json"), "-y"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = {}
    for path in (jobs / "job").glob("*/result.json"):
        result = json.loads(path.read_text())
        task = result["task_name"].removeprefix("webpagebench/")
        results[result["agent_info"]["name"], task] = result
    return results


def rewards(result: dict[str, Any]) -> dict[str, float]:
    assert result.get("exception_info") is None, result["exception_info"]
    values: dict[str, float] = result["verifier_result"]["rewards"]
    return values


def verdict(result: dict[str, Any], jobs: Path) -> dict[str, Any]:
    """The verdict.json test.sh wrote beside reward.json."""
    path = jobs / result["trial_name"] / "verifier" / "verdict.json"
    found: dict[str, Any] = json.loads(path.read_text())
    return found


def test_harbor_runs_the_oracle_to_1_and_nop_to_0_on_the_shared_stand(
    stand: Stand, harbor: Path, tmp_path: Path
) -> None:
    tasks = tmp_path / "dataset"
    export(stand.home, tasks, "--tasks", THREE, "--stand", "shared")
    results = harbor_run(harbor, tasks, ["oracle", "nop"], stand)
    names = THREE.split(",")
    assert sorted(results) == sorted((agent, name) for agent in ("nop", "oracle") for name in names)
    for name in names:
        solved, idle = rewards(results["oracle", name]), rewards(results["nop", name])
        assert solved["reward"] == 1 and solved["conditions_met"] == 1, name
        assert idle["reward"] == 0 and idle["failure_never_reached"] == 1, name
    # Six trials, six trajectories: the stand kept each trial's events to itself.
    ids = {
        verdict(result, tmp_path / "jobs" / "job")["trajectory_id"] for result in results.values()
    }
    assert len(ids) == 6


@pytest.mark.full
def test_a_trial_with_a_stand_of_its_own(harbor: Path, tmp_path: Path) -> None:
    """The default export: the stand's services start and stop with the trial."""
    tasks = tmp_path / "dataset"
    export(tmp_path / "home", tasks, "--tasks", "hotels_pick_city")
    jobs = tmp_path / "jobs"
    argv = [str(harbor), "run", "-p", str(tasks), "-a", "oracle", "-e", "docker", "-n", "1"]
    argv += ["-o", str(jobs), "--job-name", "own", "-y"]
    env = {**os.environ, "HARBOR_TELEMETRY": "0"}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (result,) = [json.loads(p.read_text()) for p in (jobs / "own").glob("*/result.json")]
    assert rewards(result)["reward"] == 1


def test_harbors_loader_reads_the_whole_released_suite(harbor: Path, tmp_path: Path) -> None:
    tasks = tmp_path / "released"
    export(tmp_path / "home", tasks)
    check = (
        "import sys, pathlib\n"
        "from harbor.models.task.task import Task\n"
        "names = [Task(p).name for p in sorted(pathlib.Path(sys.argv[1]).iterdir())]\n"
        "print(len(names), len(set(names)))\n"
    )
    done = subprocess.run(
        [str(HARBOR.python()), "-c", check, str(tasks)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    written = len(list(tasks.iterdir()))
    assert done.stdout.split() == [str(written), str(written)]
    assert written > 100
