"""Episodes as ATIF trajectories (runner/run/atif.py): what every episode writes, a run's
export (`runner export --format atif`), an older run's episodes read and exported, and the
harnesses' action shapes as tool calls. Every harness's own file is checked where its run is
made (tests/support/runs.py `run_eval`, tests/runner/test_agent_harnesses.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

from atif import Trajectory
from support.runs import atif_of, run_eval, runner

from runner.run.atif import agent_step, tool_calls
from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from runner.stack.stack import Stack
from services.core.models.api import RecordedTrajectory
from services.core.models.protocol import Step
from services.core.models.run import ATIF, RECORDED

TEA = "grocery_showcase_tea"


def test_the_harnesses_actions_become_tool_calls() -> None:
    calls = {
        "deepagents": tool_calls(1, {"name": "browser_click", "arguments": {"ref": "e12"}}),
        "browser-use": tool_calls(2, [{"click": {"index": 4}}, {"done": {"text": "Готово"}}]),
        "browsergym": tool_calls(3, "click('e12')"),
        "a bare value": tool_calls(4, {"scroll": 600}),
        "no action": tool_calls(5, None),
    }
    assert {k: [(c.function_name, c.arguments) for c in v] for k, v in calls.items()} == {
        "deepagents": [("browser_click", {"ref": "e12"})],
        "browser-use": [("click", {"index": 4}), ("done", {"text": "Готово"})],
        "browsergym": [("click", {"code": "click('e12')"})],
        "a bare value": [("scroll", {"value": 600})],
        "no action": [],
    }
    assert [c.tool_call_id for c in calls["browser-use"]] == ["step-2-1", "step-2-2"]


def test_a_step_an_external_agent_wrote_in_its_own_way_is_kept() -> None:
    """A step whose time is not ISO 8601 (an external command writes its own steps.jsonl):
    no timestamp, its time kept under `extra`; the step still validates."""
    odd = Step(step=1, time="yesterday", action="click('e3')", input_tokens=5)
    made = agent_step(2, odd, "test")
    assert made.timestamp is None and made.extra and made.extra["time"] == "yesterday"
    assert made.metrics and made.metrics.prompt_tokens == 5
    assert agent_step(2, odd.model_copy(update={"time": "2026-12-07T08:00:00Z"}), None).timestamp


def test_a_run_and_an_older_one_export_as_atif(stack: Stack, tmp_path: Path) -> None:
    home = tmp_path / "home"
    made = home / "runs" / "now"
    run = run_eval(stack, made, "oracle", select_tasks(TASKS_DIR, TEA, None))
    (record,) = run.records
    episode = made / str(record.episode)
    written = atif_of(episode)
    assert [s.source for s in written.steps] == ["user", "agent"]
    assert written.steps[0].message.startswith("Открой http") and written.agent.name == "oracle"
    judged = written.extra["webpagebench"]
    assert judged["ems"] == 1 and judged["conditions"][0]["event_name"] == "basket_add"

    # A run from before the ATIF file: the stand's record was the episode's trajectory.json.
    older = home / "runs" / "older"
    shutil.copytree(made, older)
    kept = older / str(record.episode)
    (kept / RECORDED).replace(kept / ATIF)
    assert RecordedTrajectory.kept(kept) is not None
    out = tmp_path / "atif"
    for name in ("now", "older"):
        exported = runner(home, "export", "--format", "atif", name, "--out", str(out / name))
        assert exported.returncode == 0, exported.stdout + exported.stderr
        assert "1 ATIF trajectories written" in exported.stdout
    now, before = (
        Trajectory.model_validate_json((out / name / f"{record.trajectory_id}.json").read_bytes())
        for name in ("now", "older")
    )
    assert now == written
    assert before.steps[0].message == ""  # the oracle kept no input.json: the prompt is gone
    assert [e["type"] for e in before.extra["webpagebench"]["events"]] == [
        e["type"] for e in judged["events"]
    ]
    refused = runner(home, "export", "--format", "atif", "nosuch")
    assert refused.returncode != 0 and "no run named 'nosuch'" in refused.stdout
