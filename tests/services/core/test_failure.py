"""The failure classes from synthetic attempts (docs/results.md, "Failure classes"): each
class alone, then every pair that can happen together, whose first in the precedence is
the class and whose second is a tag; the failure point and the evidence."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pytest

from services.core.failure import PRECEDENCE, FailureClass, classify
from services.core.models.events import Event
from services.core.models.protocol import Step
from services.core.models.run import ConditionReport, MatchedEvent, Record, Status

TID = "0" * 32
WANTED = {"item_id": "m-005"}
WRITERS = {"basket_add": frozenset({"bench_catalog_category", "bench_catalog_item"})}
SITES = {"basket_add": frozenset({"shop", "books"}), "submit_payment": frozenset({"shop"})}


@dataclass
class Attempt:
    status: Status = Status.OK
    completion: bool = False
    error: str | None = None
    reports: list[ConditionReport] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    def event(self, site: str, kind: str, **params: Any) -> Event:
        event: Event = {"site": site, "source": "server", "type": kind, "params": params}
        event["seq"] = len(self.events) + 1
        self.events.append(event)
        return event

    def step(self, url: str, action: Any) -> None:
        number = len(self.steps) + 1
        self.steps.append(Step(step=number, time="t", url=url, action=action))

    def classify(self) -> Any:
        return classify(
            status=self.status,
            completion=self.completion,
            reports=self.reports,
            events=self.events,
            steps=self.steps,
            error=self.error,
            site="shop",
            writers=WRITERS,
            sites=SITES,
        )


def required(attempt: Attempt, success: bool = False) -> None:
    attempt.reports.append(
        ConditionReport(
            event_name="basket_add", parameters=dict(WANTED), success=success, matched_event=None
        )
    )


def shop(path: str = "") -> str:
    return f"http://127.0.0.1:8000/t/{TID}/shop/{path}"


# What makes each class hold, added to an attempt whose required basket_add is unmet.
def forbidden_action(a: Attempt) -> None:
    paid = a.event("shop", "submit_payment", method="card")
    a.reports.append(
        ConditionReport(
            event_name="submit_payment",
            parameters={},
            forbidden=True,
            success=False,
            matched_event=MatchedEvent(seq=paid["seq"], type="submit_payment", params={}),
        )
    )


def agent_error(a: Attempt) -> None:
    a.status, a.error = Status.AGENT_ERROR, "KeyError: 'x'"


def looped(a: Attempt) -> None:
    for _ in range(3):
        a.step(shop("c/sport"), {"click": {"index": 7}})


def timeout(a: Attempt) -> None:
    a.status, a.error = Status.TIMEOUT, "no answer within 300s"


def step_limit(a: Attempt) -> None:
    a.status = Status.STEP_LIMIT


def wrong_target(a: Attempt) -> None:
    a.event("shop", "basket_add", item_id="m-003", amount=1)


def false_success(a: Attempt) -> None:
    a.completion = True


def premature_stop(a: Attempt) -> None:
    a.event("shop", "state_changed", new_state="bench_catalog_category", category="sport")


def never_reached(a: Attempt) -> None:
    a.event("shop", "state_changed", new_state="bench_catalog_main")


MAKERS = {
    "forbidden_action": forbidden_action,
    "agent_error": agent_error,
    "looped": looped,
    "timeout": timeout,
    "step_limit": step_limit,
    "wrong_target": wrong_target,
    "false_success": false_success,
    "premature_stop": premature_stop,
    "never_reached": never_reached,
}
# Pairs that cannot both hold: one ending each; a report of done is an ending on its own; a
# near miss is in the log or not; a writing screen was reached or not; stopping on one's
# own is not being stopped.
ENDINGS = {"agent_error", "timeout", "step_limit"}
EXCLUSIVE = (
    {frozenset(p) for p in combinations(ENDINGS, 2)}
    | {frozenset({e, "false_success"}) for e in ENDINGS}
    | {frozenset({e, "premature_stop"}) for e in ENDINGS}
    | {frozenset({"wrong_target", "never_reached"}), frozenset({"premature_stop", "never_reached"})}
)
PAIRS = [(a, b) for a, b in combinations(PRECEDENCE, 2) if frozenset({a, b}) not in EXCLUSIVE]


def attempt_of(*classes: FailureClass) -> Attempt:
    attempt = Attempt()
    required(attempt)
    for name in classes:
        MAKERS[name](attempt)
    return attempt


def test_the_precedence_names_every_class_once() -> None:
    assert sorted(PRECEDENCE) == sorted(MAKERS) and len(set(PRECEDENCE)) == 9


@pytest.mark.parametrize("name", PRECEDENCE)
def test_each_class_alone(name: FailureClass) -> None:
    failure = attempt_of(name).classify()
    assert failure.class_ == name, failure
    assert name in failure.evidence


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a}>{b}" for a, b in PAIRS])
def test_each_pair_takes_the_first_in_precedence(first: FailureClass, second: FailureClass) -> None:
    failure = attempt_of(second, first).classify()
    assert failure.class_ == first and second in failure.tags, failure
    assert set(failure.tags) <= set(PRECEDENCE[PRECEDENCE.index(first) + 1 :])


def test_the_pairs_cover_every_class() -> None:
    assert {name for pair in PAIRS for name in pair} == set(PRECEDENCE)
    assert len(PAIRS) == 36 - len(EXCLUSIVE)


def test_a_passed_or_unscored_attempt_has_none() -> None:
    passed = Attempt()
    required(passed, success=True)
    assert passed.classify() is None
    lost = attempt_of("never_reached")
    lost.status = Status.INFRA_ERROR
    assert lost.classify() is None


def test_the_evidence_names_what_differs_and_what_fired() -> None:
    failure = attempt_of("wrong_target", "forbidden_action", "false_success").classify()
    assert failure.class_ == "forbidden_action"
    assert failure.evidence["forbidden_action"] == "submit_payment (event 2)"
    assert failure.evidence["wrong_target"] == "basket_add (event 1): item_id: m-003 (wanted m-005)"
    assert failure.evidence["false_success"] == "said done; basket_add did not hold"
    assert failure.tags == ["wrong_target", "false_success"]


def test_the_failure_point_is_the_first_unmet_condition_and_the_step_that_left_it() -> None:
    attempt = Attempt(completion=True)
    # The first condition held; the second is a group whose members both failed.
    required(attempt, success=True)
    for item in ("m-006", "m-007"):
        attempt.reports.append(
            ConditionReport(
                event_name="basket_add",
                parameters={"item_id": item},
                group="g",
                success=False,
                matched_event=None,
            )
        )
    attempt.step(shop(), {"click": 1})
    attempt.step(shop("c/sport"), {"click": 2})
    attempt.step(f"http://127.0.0.1:8000/t/{TID}/books/", {"click": 3})
    attempt.step("http://elsewhere.example/", {"goto": 4})
    failure = attempt.classify()
    assert failure.point is not None
    assert (failure.point.condition, failure.point.parameters) == (1, {"item_id": "m-006"})
    assert failure.point.step == 2  # it left the shop after step 2
    # A group of which one member held has held: the next unmet condition is the point.
    attempt.reports[2] = attempt.reports[2].model_copy(update={"success": True})
    assert attempt.classify() is None


def test_the_same_target_under_new_snapshot_references_is_a_loop() -> None:
    attempt = attempt_of("never_reached")
    for snapshot in (1, 2, 3):  # the dom agent's references name an element in one snapshot
        attempt.step(
            shop(""), {"ref": f"f{snapshot}e5", "name": "click", "target": "link «Маркет»"}
        )
    assert attempt.classify().class_ == "looped"
    other = attempt_of("never_reached")
    for target in ("link «Маркет»", "link «Маркет»", "link «Книги»"):
        other.step(shop(""), {"ref": "e5", "name": "click", "target": target})
    assert other.classify().class_ == "never_reached"


def test_a_screen_served_again_and_again_is_a_loop() -> None:
    attempt = attempt_of("never_reached")
    for _ in range(7):
        attempt.event("shop", "state_changed", new_state="bench_catalog_search")
    failure = attempt.classify()
    assert failure.class_ == "looped"
    assert failure.evidence["looped"] == "the screen bench_catalog_search served 7 times"


def test_a_record_writes_and_reads_its_failure_as_class() -> None:
    failure = attempt_of("timeout", "looped").classify()
    record = Record(task="shop_x", ems=0, failure=failure)
    line = json.loads(record.dumps(None))
    assert line["failure"]["class"] == "looped" and line["failure"]["tags"][0] == "timeout"
    assert Record.model_validate(line).failure == failure
