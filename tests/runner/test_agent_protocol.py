"""The runner's side of the harness protocol, through the `external` harness and a probe
agent (tests/runner/agents/probe_agent.py): one Chromium per episode with the standard
viewport, Russian locale and Moscow time; the time and step limits enforced by a kill of
the agent's whole process group; a failing model endpoint is infrastructure, a crash is
the agent's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.runs import run_eval

from runner.run.evaluate import select_tasks
from runner.run.prices import Price
from runner.settings import TASKS_DIR
from services.core.models.run import AgentConfig, Usage

PROBE = Path(__file__).parent / "agents" / "probe_agent.py"


def probe(stack, out: Path, behaviour: str, time_limit: float = 60, max_steps: int = 5) -> dict:
    agent = AgentConfig(
        model="probe-model",
        base_url="http://127.0.0.1:9/v1",
        api_key_env="WPB_TEST_KEY",
        max_steps=max_steps,
        options={"behaviour": behaviour},
        command=f"{sys.executable} {PROBE}",
    )
    refs = select_tasks(TASKS_DIR, "grocery_showcase_tea", None)
    prices = {"probe-model": Price(input=2.0, output=10.0)}
    result = run_eval(stack, out, "external", refs, 1, time_limit, agent, prices)
    return result.records[0]  # type: ignore[no-any-return]


def test_an_episode_gets_its_own_browser_and_records(stack, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("WPB_TEST_KEY", "secret-value")
    monkeypatch.setenv("WPB_ADMIN_TOKEN", stack.token)
    record = probe(stack, tmp_path, "finish")
    assert record.status == "ok" and record.completion == 1 and record.ems == 0
    seen = json.loads(record.final_message)
    assert seen == {
        "width": 1280,
        "height": 800,
        "language": "ru-RU",
        "timezone": "Europe/Moscow",
        "api_key_set": True,
        "stand_settings": ["WPB_AGENT_INPUT", "WPB_CHROMIUM", "WPB_TEST_KEY"],
    }
    assert record.usage == {
        "probe-model": Usage(input_tokens=1000, output_tokens=50, calls=1, cost_usd=0.0025)
    }
    assert record.tokens == 1050 and record.model_calls == 1
    assert record.cost == pytest.approx(0.0025) and record.priced is True
    folder = tmp_path / record.episode
    step = json.loads((folder / "steps.jsonl").read_text().splitlines()[0])
    assert step["step"] == 1 and step["url"].endswith("/") and step["screenshot"] == "step-001.png"
    assert (folder / "step-001.png").read_bytes().startswith(b"\x89PNG")
    spec = json.loads((folder / "input.json").read_text())
    assert spec["model"]["api_key_env"] == "WPB_TEST_KEY"
    assert "conditions" not in json.dumps(spec) and "secret-value" not in json.dumps(spec)
    assert "secret-value" not in (tmp_path / "records.jsonl").read_text()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["agent"]["api_key_env"] == "WPB_TEST_KEY" and manifest["prices"] == [
        "probe-model"
    ]


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for a parent that was killed to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_the_time_limit_kills_the_agent_and_its_children(stack, tmp_path) -> None:
    record = probe(stack, tmp_path, "hang", time_limit=8)
    assert record.status == "timeout" and record.completion == 0
    assert record.seconds >= 8 and record.steps == 1
    child = (tmp_path / record.episode / "child.pid").read_text()
    assert not running(int(child))


def test_the_step_limit_stops_an_agent_that_never_ends(stack, tmp_path) -> None:
    """Before the time limit (60 s), which would make it a timeout."""
    record = probe(stack, tmp_path, "steps", max_steps=5)
    assert record.status == "step_limit" and record.completion == 0
    assert record.steps >= 6


def test_a_model_endpoint_that_fails_is_infrastructure(stack, tmp_path) -> None:
    record = probe(stack, tmp_path, "infra")
    assert record.status == "infra_error" and record.ems is None
    assert record.attempts == 3 and "refused" in record.error


def test_an_agent_that_crashes_is_the_agents_failure(stack, tmp_path) -> None:
    """Its status, and its failure class (docs/results.md, "Failure classes")."""
    record = probe(stack, tmp_path, "crash")
    assert record.status == "agent_error" and record.ems == 0
    assert "without output.json" in record.error
    failure = record.failure
    assert failure is not None and failure.class_ == "agent_error", (record.status, failure)
    assert "without output.json" in failure.evidence["agent_error"]
    assert "never_reached" in failure.tags
