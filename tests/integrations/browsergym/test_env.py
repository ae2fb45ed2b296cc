"""The BrowserGym integration (integrations/browsergym) in its own venv, the `agentlab`
harness's: a scripted BrowserGym episode through `gym.make("browsergym/webpagebench.…")`
against the real stand, rewarded by check() and closed with the agent's claim."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from support.http import hub_api, run_async

from runner.harnesses.environments import ENVIRONMENTS

EPISODE = Path(__file__).with_name("episode.py")


def episode(stack: Any, mode: str) -> tuple[str, list[dict[str, Any]]]:
    """The trajectory's id and the steps of `episode.py MODE` on the test stack."""
    environment = ENVIRONMENTS["agentlab"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(environment.python_path()),
        "WPB_HUB_URL": stack.hub_url,
        "WPB_ADMIN_TOKEN": stack.token,
    }
    done = subprocess.run(
        [str(environment.python()), str(EPISODE), mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    first, *steps = (json.loads(line) for line in done.stdout.splitlines())
    return first["trajectory_id"], steps


def test_a_scripted_episode_solves_the_task_with_reward_1(stack, hub):
    tid, steps = episode(stack, "solve")
    assert [s["reward"] for s in steps] == [0.0, 1.0, 1.0]
    assert [s["terminated"] for s in steps] == [False, False, True]
    # BrowserGym gives an action 500 ms, the navigation a click starts included: on a busy
    # machine the tab's click may outlast them, done but its page still loading or loaded
    # (its call log says «click action done»; the tea's reward after it shows it arrived).
    # An error before the click (no such element, not clickable) still fails.
    errors = [s["error"] for s in steps]
    assert all(not e or "click action done" in e for e in errors), errors
    assert steps[-1]["verdict"]["ems"] == 1 and steps[-1]["verdict"]["trajectory_id"] == tid
    meta = run_async(hub_api(hub).trajectory(tid))
    assert meta.status == "closed" and meta.completion is True
    assert meta.final_message == "Готово"


def test_saying_done_without_acting_is_reward_0(stack, hub):
    tid, steps = episode(stack, "noop")
    assert [(s["reward"], s["terminated"]) for s in steps] == [(0.0, True)]
    meta = run_async(hub_api(hub).trajectory(tid))
    assert meta.status == "closed" and meta.completion is True
    assert run_async(hub_api(hub).check(tid)).ems == 0
