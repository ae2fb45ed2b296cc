"""The docker backend (`runner eval --backend docker`) on the compose stand: per episode a
browser container and the harness's agent container in its network namespace, on the stand's
agents network (which reaches the hub and nothing else: test_compose.py), driven by the test
model running there too (compose's `testmodel` profile). The browser-use and openhands
harnesses solve their scripted task; an agent past the time limit is killed; two workers
run two pairs at once; every container is gone afterwards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.compose import Stand, docker
from support.runs import runner

from runner.agents.fonts import FAMILIES
from runner.harnesses.environments import ENVIRONMENTS, distribution

pytestmark = [pytest.mark.timeout(900)]

COMPOSE_PROFILES = ("testmodel",)
TEA = "grocery_showcase_tea"
# The test model as the agents network knows it.
MODEL_URL = "http://testmodel:8011/v1"


def eval_in_containers(stand: Stand, harness: str, *args: str) -> tuple[Path, list[dict[str, Any]]]:
    """`runner eval --backend docker` on the stand; the run directory and its records."""
    runs = stand.home / "runs"
    before = set(runs.iterdir()) if runs.exists() else set()
    done = runner(
        stand.home,
        "eval",
        "--backend",
        "docker",
        "--hub",
        stand.hub_url,
        "--agents-network",
        f"{stand.project}_agents",
        "--harness",
        harness,
        "--base-url",
        MODEL_URL,
        *args,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (run,) = set(runs.iterdir()) - before
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    return run, records


def episode_containers(records: list[dict[str, Any]]) -> str:
    """The ids of every container, running or not, of these records' episodes."""
    return "".join(
        docker("ps", "-aq", "--filter", f"label=wpb.episode={r['trajectory_id']}") for r in records
    )


@pytest.mark.parametrize("harness", ["browser-use", "openhands"])
def test_a_framework_solves_its_scripted_task_in_containers(stand: Stand, harness: str) -> None:
    """browser-use on the base's Python; openhands on the newer base (Python 3.12 or newer)."""
    run, records = eval_in_containers(stand, harness, "--model", "test", "--tasks", TEA)
    (record,) = records
    assert (record["ems"], record["completion"], record["status"]) == (1, 1, "ok"), record
    assert record["steps"] >= 2 and record["tokens"] > 0
    folder = run / record["episode"]
    steps = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    assert all((folder / s["screenshot"]).read_bytes()[:4] == b"\x89PNG" for s in steps)
    # The agent was sent to the hub by its name on the agents network.
    spec = json.loads((folder / "input.json").read_text())
    start = f"http://hub:8000/t/{record['trajectory_id']}/"
    assert spec["start_url"] == start and start in spec["prompt"]
    assert "127.0.0.1:" not in spec["prompt"] and spec["cdp_url"] == "http://127.0.0.1:9222"
    assert any(s["url"].startswith(f"{start}grocery") for s in steps)
    assert json.loads((folder / "output.json").read_text())["completion"] is True
    assert "DevTools listening on" in (folder / "chromium.log").read_text()
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["backend"]["kind"] == "docker"
    assert manifest["backend"]["network"] == f"{stand.project}_agents"
    assert manifest["backend"]["images"] == {
        "browser": "wpb-browser",
        "agent": f"wpb-agent-{harness}",
    }
    # What exactly ran: each image's id, the framework's version inside its image, and the
    # fonts of a browser container as the episode's.
    for role, image in manifest["backend"]["images"].items():
        identity = docker("image", "inspect", "--format", "{{.Id}}", image).strip()
        assert manifest["backend"]["digests"][role] == identity
    framework = distribution(ENVIRONMENTS[harness].image_packages[0])
    assert manifest["harness_packages"][framework].count(".") >= 1, manifest["harness_packages"]
    assert set(manifest["fonts"]) == set(FAMILIES) and all(manifest["fonts"].values())
    assert episode_containers(records) == ""


def test_an_agent_past_the_time_limit_is_killed_and_removed(stand: Stand) -> None:
    limit = 15
    _, records = eval_in_containers(
        stand,
        "browser-use",
        "--model",
        "never-ends",
        "--max-steps",
        "100",
        "--time-limit",
        str(limit),
        "--tasks",
        TEA,
    )
    (record,) = records
    assert record["status"] == "timeout" and record["completion"] == 0, record
    # Killed at the limit, not before (the model never ends: without the kill it would run
    # until the test's own timeout), logs kept and both containers removed.
    assert record["seconds"] >= limit
    assert episode_containers(records) == ""


def test_two_workers_run_two_container_pairs_at_once(stand: Stand) -> None:
    tasks = f"{TEA},shop_any_electronics"
    run, records = eval_in_containers(
        stand, "dom", "--model", "test", "--tasks", tasks, "--workers", "2"
    )
    assert {r["task"]: r["ems"] for r in records} == {name: 1 for name in tasks.split(",")}
    # An episode spans from its input.json (written before its containers start) to its
    # output.json (the agent's last act): the two spans overlap.
    spans = sorted(
        (
            (run / r["episode"] / "input.json").stat().st_mtime,
            (run / r["episode"] / "output.json").stat().st_mtime,
        )
        for r in records
    )
    (_, first_ends), (second_starts, _) = spans
    assert second_starts < first_ends, "the second episode began only after the first had ended"
    assert episode_containers(records) == ""
