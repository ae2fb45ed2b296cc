"""What the OpenEnv environment reads from an action string and from a verdict, with nothing
started: BrowserGym's actions as data (never run as code), and the rewards of the verifier's
units (docs/training.md, "Rewards")."""

from __future__ import annotations

from typing import Any

import pytest
from webpagebench_env.models import WebpagebenchObservation
from webpagebench_env.server.actions import ActionError, Call, parse
from webpagebench_env.server.rewards import Standing, WebPageBenchRubric

from services.core.models.api import Verdict


def test_browsergym_actions_are_read_as_calls_of_literals() -> None:
    text = "fill('e7', 'Москва', enable_autocomplete_menu=True)\nclick('e9', button='right')"
    assert parse(text) == [
        Call("fill", ["e7", "Москва"], {"enable_autocomplete_menu": True}),
        Call("click", ["e9"], {"button": "right"}),
    ]
    assert parse("select_option('e3', ['Эконом', 'Купе'])") == [
        Call("select_option", ["e3", ["Эконом", "Купе"]], {})
    ]
    assert parse("send_msg_to_user('Готово')")[0].name == "send_msg_to_user"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "no action given"),
        ("click('e1'", "not an action: '(' was never closed"),
        ("import os", "not a call of an action: import os"),
        ("x = click('e1')", "not a call of an action"),
        ("os.system('true')", "not a call of an action: os.system('true')"),
        ("eval('1')", "unknown action 'eval'"),
        ("click(open('/etc/passwd'))", "click: arguments are literals"),
        ("click()", "click: missing a required argument: 'bid'"),
        ("click('e1', 'left', [], 4)", "click: too many positional arguments"),
        ("click('e1', colour='red')", "click: got an unexpected keyword argument 'colour'"),
        ("report_infeasible('нет')\nclick('e1')", "a report ends the episode"),
        ("\n".join(["noop()"] * 21), "at most 20 actions at once"),
    ],
)
def test_anything_else_is_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(ActionError) as refused:
        parse(text)
    assert str(refused.value).startswith(why)


def verdict(*reports: tuple[bool, Any, bool]) -> Verdict:
    """A verdict of conditions (success, group, forbidden)."""
    conditions = [
        {"event_name": "x", "parameters": {}, "success": ok, "group": group, "forbidden": bad}
        | {"matched_event": None}
        for ok, group, bad in reports
    ]
    passed = sum(ok for ok, _, _ in reports)
    return Verdict.model_validate(
        {
            "ems": 0,
            "passed": passed,
            "total": len(reports),
            "conditions": conditions,
            "unprompted": [],
        }
    )


def test_a_group_is_one_unit_and_forbidden_ones_are_apart() -> None:
    standing = Standing.of(
        verdict(
            (True, None, False),
            (False, "a", False),
            (True, "a", False),
            (False, None, False),
            (False, None, True),
            (True, None, True),
        )
    )
    assert (standing.met, standing.total, standing.broken) == (2, 3, 1)
    assert standing.progress == pytest.approx(2 / 3)


def observation(progress: float, broken: int = 0, ems: int | None = None) -> Any:
    return WebpagebenchObservation(
        progress=progress, forbidden_broken=broken, ems=ems, done=ems is not None
    )


def test_progress_rewards_sum_to_the_final_share_and_forbidden_steps_cost_one() -> None:
    rubric = WebPageBenchRubric()
    first = rubric.start("progress", Standing(0, 2, 0))
    steps = [observation(0.5), observation(0.5, broken=1), observation(1.0, broken=1, ems=0)]
    rewards = [first, *(rubric(None, o) for o in steps)]
    assert rewards == [0.0, 0.5, -1.0, 0.5]
    assert (rubric.progress.last_score, rubric.forbidden.last_score, rubric.outcome.last_score) == (
        0.5,
        0.0,
        0.0,
    )


def test_the_outcome_mode_pays_ems_at_the_end_alone() -> None:
    rubric = WebPageBenchRubric()
    first = rubric.start("outcome", Standing(1, 2, 0))
    rewards = [first, rubric(None, observation(0.5)), rubric(None, observation(1.0, ems=1))]
    assert rewards == [0.0, 0.0, 1.0]
