"""The Inspect task (integrations/inspect) as its users run it: `inspect eval` of
`webpagebench_inspect/webpagebench`, found through the package's `inspect_ai` entry point,
with the test model behind Inspect's OpenAI-compatible provider; its logs read back with
Inspect's own reader."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from runner.run.evaluate import select_tasks, task_set_hash
from runner.settings import REPO, TASKS_DIR, free_port
from runner.stack.stack import Stack, running_stack

INSPECT = Path(sys.executable).with_name("inspect")
THREE = "grocery_showcase_tea,hotels_pick_city,rail_pick_from"


def inspect_eval(folder: Path, model: str, testmodel: str, *options: str) -> EvalLog:
    """`inspect eval` from a folder outside the checkout (the task comes from the installed
    package, not a file here), its one log read back."""
    logs = folder / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "WPB_BASE_URL": testmodel,
        "WPB_API_KEY": "none",
        "WPB_HUB_PORT": str(free_port()),
    }
    command = [str(INSPECT), "eval", "webpagebench_inspect/webpagebench", *options]
    command += ["--model", f"openai-api/wpb/{model}", "--log-dir", str(logs)]
    done = subprocess.run(
        [*command, "--display", "plain"], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (log,) = logs.iterdir()
    return read_eval_log(str(log))


def scores(log: EvalLog) -> dict[str, tuple[object, str | None]]:
    """Sample id -> its score's value and explanation."""
    assert log.status == "success" and log.samples, log.error
    return {
        str(s.id): (s.scores["verdict"].value, s.scores["verdict"].explanation)
        for s in log.samples
        if s.scores
    }


def test_the_scripted_solution_scores_1_and_a_wrong_one_0(
    stack: Stack, testmodel: str, tmp_path: Path
) -> None:
    stand = ("-T", f"tasks={THREE}", "-T", f"hub={stack.hub_url}", "-T", f"home={stack.home}")
    right = inspect_eval(tmp_path / "right", "test", testmodel, *stand)
    wrong = inspect_eval(tmp_path / "wrong", "done-at-once", testmodel, *stand)
    assert scores(right) == {
        name: ({"ems": 1, "completion": 1}, "all 1 conditions held") for name in THREE.split(",")
    }
    said = scores(wrong)
    assert {name: value for name, (value, _) in said.items()} == {
        name: {"ems": 0, "completion": 1} for name in THREE.split(",")
    }
    assert said["grocery_showcase_tea"][1] == (
        'basket_add {"amount": 1, "item_id": "g-0053"}: did not happen'
    )
    sample = next(s for s in right.samples or [] if s.id == "hotels_pick_city")
    assert sample.metadata["site"] == "hotels" and sample.metadata["suite"] == "released"
    assert sample.metadata["task_set_hash"] == task_set_hash(select_tasks(TASKS_DIR, THREE, None))
    assert right.results and right.results.scores[0].metrics["mean"].value == 1


@pytest.mark.full
def test_without_a_hub_the_sandbox_starts_a_stand_and_stops_it(
    testmodel: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    options = ("-T", "tasks=grocery_showcase_tea", "-T", f"home={home}")
    log = inspect_eval(tmp_path, "test", testmodel, *options)
    solved = ({"ems": 1, "completion": 1}, "all 1 conditions held")
    assert scores(log) == {"grocery_showcase_tea": solved}
    assert (home / "admin-token").exists() and running_stack(home) is None


def test_the_task_is_listed_from_its_package(processes: None) -> None:
    listed = subprocess.run(
        [str(INSPECT), "list", "tasks", "integrations/inspect"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert "webpagebench_inspect/task.py@webpagebench" in listed.stdout, listed.stderr
