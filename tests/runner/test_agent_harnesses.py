"""Every agent harness end to end: its agent program in its own environment, attached over
CDP to the episode's Chromium, driven by the deterministic test model through the real UI,
and judged by the verifier. Also what a run records and shows for an agent."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import run_eval
from playwright.sync_api import Page, expect

from runner.evaluate import select_tasks
from runner.harness import AgentConfig
from runner.settings import TASKS_DIR

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEA = "grocery_showcase_tea"


def agent_eval(
    stack,
    out: Path,
    harness: str,
    base_url: str,
    tasks: str = TEA,
    model: str = "test",
    max_steps: int = 15,
    time_limit: float = 150,
    **config: Any,
) -> list[dict[str, Any]]:
    agent = AgentConfig(model=model, base_url=base_url, max_steps=max_steps, **config)
    refs = select_tasks(TASKS_DIR, tasks, None)
    result = run_eval(stack, out, harness, refs, time_limit=time_limit, agent=agent)
    return result.records  # type: ignore[no-any-return]


def solved(record: dict[str, Any]) -> bool:
    return record.ems == 1 and record.completion == 1 and record.done_and_pass == 1


@pytest.mark.parametrize(
    ("harness", "options"),
    [
        ("dom", {}),
        ("gui", {"family": "uitars", "page_geometry": True}),
        ("gui", {"family": "qwen3vl", "page_geometry": True}),
        ("browser-use", {}),
        ("openhands", {}),
        ("agentlab", {}),
    ],
    ids=["dom", "gui-uitars", "gui-qwen3vl", "browser-use", "openhands", "agentlab"],
)
def test_each_harness_solves_its_scripted_task(stack, tmp_path, testmodel, harness, options):
    (record,) = agent_eval(stack, tmp_path, harness, testmodel, options=options)
    assert solved(record), (record.status, record.error, record.conditions)
    assert record.status == "ok" and record.steps >= 2
    assert record.model_calls >= record.steps - 1 and record.tokens > 0
    folder = tmp_path / record.episode
    steps = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    assert steps and all(s["screenshot"] for s in steps)
    assert all((folder / s["screenshot"]).read_bytes()[:4] == b"\x89PNG" for s in steps)
    assert any("/grocery" in s["url"] for s in steps)
    output = json.loads((folder / "output.json").read_text())
    assert output["completion"] is True and output["error"] is None


# One scripted task per site (runner/testmodel/scripts/).
SITE_TASKS = ",".join(
    [
        TEA,
        "shop_any_electronics",
        "books_author_cheapest_rudneva",
        "rail_pick_from",
        "hotels_pick_city",
        "files_year_datasets_2025",
    ]
)


@pytest.mark.parametrize(
    ("harness", "options"),
    [("dom", {}), ("gui", {"family": "uitars", "page_geometry": True})],
    ids=["dom", "gui-uitars"],
)
def test_a_scripted_task_on_every_site(stack, tmp_path, testmodel, harness, options):
    records = agent_eval(stack, tmp_path, harness, testmodel, tasks=SITE_TASKS, options=options)
    assert {r.site for r in records} == {"grocery", "shop", "books", "rail", "hotels", "files"}
    failed = {r.task: (r.status, r.error) for r in records if not solved(r)}
    assert not failed


@pytest.mark.parametrize("harness", ["dom", "browser-use"])
def test_saying_done_without_acting_is_completion_without_success(
    stack, tmp_path, testmodel, harness
):
    (record,) = agent_eval(stack, tmp_path, harness, testmodel, model="done-at-once")
    assert record.status == "ok"
    assert (record.completion, record.ems, record.done_and_pass) == (1, 0, 0)


def test_a_script_that_never_ends_stops_at_the_step_limit(stack, tmp_path, testmodel):
    (record,) = agent_eval(stack, tmp_path, "dom", testmodel, model="never-ends", max_steps=4)
    assert record.status == "step_limit" and record.completion == 0
    assert 4 <= record.steps <= 5 and record.seconds < 60


def test_an_endpoint_that_answers_500_is_infrastructure(stack, tmp_path, testmodel):
    (record,) = agent_eval(stack, tmp_path, "dom", testmodel, model="server-error")
    assert record.status == "infra_error" and record.ems is None
    assert record.attempts == 3 and "500" in record.error


def test_an_external_command_speaks_the_same_protocol(stack, tmp_path, testmodel):
    command = f"{sys.executable} -m runner.agents.dom_agent"
    (record,) = agent_eval(stack, tmp_path, "external", testmodel, command=command)
    assert solved(record), (record.status, record.error)


def test_the_trajectory_page_shows_the_agents_steps(stack, testmodel, page: Page):
    out = stack.home / "runs" / "20990102T000000Z-dom"
    (record,) = agent_eval(stack, out, "dom", testmodel)
    assert solved(record)
    page.goto(f"{stack.hub_url}/view/login?token={stack.token}")
    page.goto(f"{stack.hub_url}/view/runs/{out.name}")
    expect(page.locator(".notice")).to_contain_text("вызовов модели")
    page.get_by_role("link", name=TEA).click()
    expect(page.locator("#agent h2")).to_contain_text(f"({record.steps})")
    shots = page.locator("#agent img")
    expect(shots).to_have_count(record.steps)
    expect(page.locator("#agent .notice")).to_contain_text("заявил, что закончил")
    source = shots.first.get_attribute("src")
    assert source is not None and page.request.get(f"{stack.hub_url}{source}").ok
    missing = f"{stack.hub_url}/view/trajectories/{record.trajectory_id}/step-999.png"
    assert page.request.get(missing).status == 404
    assert page.request.get(f"{missing[:-12]}..%2Finput.json").status == 404


def test_agentlab_acts_by_bid_in_browsergyms_own_browser(stack, tmp_path, testmodel):
    (record,) = agent_eval(stack, tmp_path, "agentlab", testmodel)
    assert solved(record), (record.status, record.error)
    folder = tmp_path / record.episode
    assert json.loads((folder / "input.json").read_text())["cdp_url"] == ""
    assert not (folder / "chromium.log").exists()  # the runner launched no Chromium
    steps = [json.loads(line) for line in (folder / "steps.jsonl").read_text().splitlines()]
    assert [s["action"].split("(")[0] for s in steps] == ["click", "click", "send_msg_to_user"]
    assert record.final_message == "Чай «Крупяной ряд» в корзине"
