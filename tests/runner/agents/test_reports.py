"""How each harness turns its framework's way of ending into the agent's report (protocol 2),
without a browser: the tagged final answer, the `dom` tools, browser-use's history, the
reference harnesses."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from runner.agents import dom_agent
from runner.agents.browser_use_agent import report_status
from runner.agents.protocol import read_report, tagged
from runner.harnesses.harness import Episode
from runner.harnesses.noop import NoopHarness
from runner.harnesses.oracle import report_of, required
from services.core.models.events import Condition


def test_a_tagged_final_answer_reads_back_as_its_report() -> None:
    for status in ("infeasible", "needs_input", "gave_up", "done"):
        assert read_report(tagged(status, "Такого чая нет")) == (status, "Такого чая нет")
    assert read_report("  [Needs_Input]  Какой чай?") == ("needs_input", "Какой чай?")
    assert read_report("Чай в корзине [infeasible]") == ("done", "Чай в корзине [infeasible]")


def test_the_dom_agents_final_tools() -> None:
    assert dom_agent.final_status("done", {"message": "Ок", "success": True}) == "done"
    assert dom_agent.final_status("done", {"message": "Нет", "success": False}) == "gave_up"
    assert dom_agent.final_status("report", {"status": "infeasible"}) == "infeasible"
    with pytest.raises(dom_agent.StepError, match="status 'done'"):
        dom_agent.final_status("report", {"status": "done"})
    names = {tool["function"]["name"] for tool in dom_agent.TOOLS}
    assert set(dom_agent.FINAL) <= names


@dataclass
class History:
    """What `report_status` reads of browser-use's AgentHistoryList."""

    done: bool
    success: bool | None

    def is_done(self) -> bool:
        return self.done

    def is_successful(self) -> bool | None:
        return self.success


def test_browser_uses_done_and_report_action() -> None:
    assert report_status(History(True, True), None) == "done"
    assert report_status(History(True, False), None) == "gave_up"
    assert report_status(History(True, False), "needs_input") == "needs_input"
    assert report_status(History(False, None), None) is None  # stopped by its step limit


def test_the_oracle_reports_what_a_task_requires_and_noop_says_done() -> None:
    report: Condition = {"event_name": "agent_report", "parameters": {"status": "infeasible"}}
    forbidden: Condition = {"event_name": "basket_add", "parameters": {}, "forbidden": True}
    assert report_of([report, forbidden]) == "infeasible"
    assert required([report, forbidden]) == []  # no site solver sees either
    assert report_of([forbidden]) == "done"
    episode = Episode(
        task_id="t", prompt="", url="", first_domain=None, time_limit_s=1, browser=None
    )
    outcome = asyncio.run(NoopHarness().run(episode))
    assert (outcome.completion, outcome.report) == (True, "done")
