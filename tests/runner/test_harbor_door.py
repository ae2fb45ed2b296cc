"""An exported Harbor task's door (runner/harbor/door.py) on the embedded stack, as its
trial's boxes use it: it creates the trajectory from the task file the export wrote (the
instruction's prompt is the stand's, to the date), sends the box's browser into it, and
judges it once; a wrong token stops it at its start. tests/deploy/test_harbor.py runs whole
trials in Harbor."""

from __future__ import annotations

import json
import os
import re
import tomllib
from datetime import date
from pathlib import Path

import httpx
import pytest
import yaml
from fastapi.testclient import TestClient

from runner.harbor.door import DoorSettings, create_app
from runner.harbor.export import SHARED_NETWORK, START, export
from runner.harnesses.environments import PLAYWRIGHT_MCP
from runner.hub import HubRefused
from runner.run.evaluate import select_tasks
from runner.settings import REPO, TASKS_DIR
from runner.stack.stack import Stack

# A task whose prompt has a date the export shifts.
DATED = "rail_pick_date"


def exported(tmp_path: Path, name: str, today: date) -> Path:
    done = export(select_tasks(TASKS_DIR, name, None), tmp_path, today, "shared")
    assert done.written == [name]
    return tmp_path / name


def test_the_door_opens_the_trials_trajectory_and_judges_it_once(
    stack: Stack, hub: httpx.Client, tmp_path: Path
) -> None:
    today = date(2027, 3, 1)
    folder = exported(tmp_path, DATED, today)
    settings = DoorSettings(
        hub_url=stack.hub_url,
        admin_token=stack.token,
        task_file=folder / "environment" / "task.json",
        today=today,
    )
    with TestClient(create_app(settings), follow_redirects=False) as door:
        entered = door.get("/")
        assert entered.status_code == 302
        start = entered.headers["location"]
        tid = re.fullmatch(rf"{stack.hub_url}/t/([^/]+)/", start)
        assert tid is not None
        deeper = door.get("/rail/search", params={"page": "2"})
        assert deeper.headers["location"] == f"{start}rail/search?page=2"
        meta = hub.get(f"/api/trajectories/{tid[1]}").json()
        instruction = (folder / "instruction.md").read_text().strip()
        assert meta["prompt"].replace(meta["url"], START) == instruction
        assert "2027" in instruction
        first = door.post("/verdict").json()
        assert first["trajectory_id"] == tid[1]
        assert first["reward"]["reward"] == 0
        assert first["reward"]["failure_never_reached"] == 1
        assert first["failure"]["class"] == "never_reached"
        assert door.post("/verdict").json() == first
    assert hub.get(f"/api/trajectories/{tid[1]}").json()["status"] != "open"


def test_the_door_will_not_start_with_a_wrong_token(stack: Stack, tmp_path: Path) -> None:
    folder = exported(tmp_path, DATED, date(2027, 3, 1))
    settings = DoorSettings(
        hub_url=stack.hub_url,
        admin_token="not-the-stands-token-at-all",
        task_file=folder / "environment" / "task.json",
    )
    with pytest.raises(HubRefused, match="401"), TestClient(create_app(settings)):
        pass


def test_the_export_gives_each_trial_a_stand_of_its_own_or_the_shared_one(
    tmp_path: Path,
) -> None:
    refs = select_tasks(TASKS_DIR, "grocery_showcase_tea", None)
    said = select_tasks(TASKS_DIR, "books_ambiguous_night_mirror", None, "safety")
    own = export(refs + said, tmp_path / "own", date(2027, 3, 1))
    assert own.written == ["grocery_showcase_tea"]
    assert "agent's report" in own.skipped["books_ambiguous_night_mirror"]
    folder = tmp_path / "own" / "grocery_showcase_tea"
    compose = yaml.safe_load((folder / "environment" / "docker-compose.yaml").read_text())
    services = compose["services"]
    assert {"main", "start", "hub", "nats", "credentials", "market", "files"} <= set(services)
    # Nothing published, nothing built: the trial's stand is the images `make images` made.
    assert not any("ports" in s or "build" in s for s in services.values())
    assert "WPB_ADMIN_TOKEN" not in json.dumps(services["main"])
    assert services["start"]["volumes"][0] == "./task.json:/wpb/task.json:ro"
    assert os.access(folder / "tests" / "test.sh", os.X_OK)
    config = tomllib.loads((folder / "task.toml").read_text())
    assert config["task"]["name"] == "webpagebench/grocery_showcase_tea"
    assert config["metadata"]["site"] == "grocery" and config["metadata"]["suite"] == "released"
    assert config["environment"]["mcp_servers"][0]["command"] == "playwright-mcp"
    export(refs, tmp_path / "shared", date(2027, 3, 1), "shared")
    shared = tmp_path / "shared" / "grocery_showcase_tea" / "environment" / "docker-compose.yaml"
    compose = yaml.safe_load(shared.read_text())
    assert set(compose["services"]) == {"main", "start"}
    assert compose["networks"]["stand"] == {"external": True, "name": SHARED_NETWORK}


def test_the_box_brings_the_mcp_server_the_deepagents_harness_pins() -> None:
    """The Dockerfile's `harbor` stage names its pin itself (the legacy builder builds the
    stage with no build argument): the same as runner/harnesses/environments.py's."""
    dockerfile = (REPO / "Dockerfile").read_text()
    (pinned,) = re.findall(r"^ARG PLAYWRIGHT_MCP=(\S+)$", dockerfile, re.M)
    assert (pinned,) == PLAYWRIGHT_MCP
