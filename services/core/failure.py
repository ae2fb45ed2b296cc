"""Why an attempt failed (docs/results.md, "Failure classes"): one class for every failed,
scored attempt, from its log, its condition reports and the agent's recorded steps, with no
model in the loop.

The classes, in precedence order (the first that holds is the attempt's class; every other
that holds is a tag):

1. `forbidden_action`: a forbidden condition fired (the event that broke it is the evidence);
2. `agent_error`: the agent itself broke (its message);
3. `looped`: the same action on the same target `LOOP_RUN` or more times in a row, or one
   screen served more than `LOOP_VISITS` times;
4. `timeout`, 5. `step_limit`: a limit ended the attempt;
6. `wrong_target`: the first unmet condition's event type is in the log, with other
   parameters (a near miss: the parameters that differ are named);
7. `false_success`: the agent said it was done;
8. `premature_stop`: the agent stopped on its own while a screen that writes the unmet
   condition's event had been reached (it was there, and left it undone);
9. `never_reached`: none of that: the event is not in the log and no screen that writes it
   was ever served.

A forbidden action or a crash is what a reader must see first whatever else went wrong; a
loop explains the limit it usually runs into, so it comes before the limits; among the
attempts that ended on their own, the most specific account of the unmet condition wins.

The failure point is the first condition, in the task's order, that did not hold (for a
group, its first member), and the last step at which the agent was still on that
condition's site, the step after which it left the path to it (none when it never got
there).

Pure functions and data: no web framework, no broker.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import get_args
from urllib.parse import urlsplit

from pydantic import JsonValue

from services.core.matching import event_params, value_matches
from services.core.models.events import Event
from services.core.models.protocol import Step
from services.core.models.run import ConditionReport, Failure, FailureClass, Point, Status
from services.core.sites import registry

# FailureClass lists the classes in precedence order.
PRECEDENCE: tuple[FailureClass, ...] = get_args(FailureClass)
LOOP_RUN = 3  # the same action on the same target this many times in a row
LOOP_VISITS = 6  # one screen served more than this many times
# An action's keys that name an element in one snapshot only (the dom agent's `ref`).
SNAPSHOT_KEYS = frozenset({"ref"})
SCREEN = "state_changed"
TRAJECTORY_PATH = "/t/"


def first_unmet(reports: Sequence[ConditionReport]) -> int | None:
    """The index of the first required condition that did not hold, in the task's order; in
    a group that failed (no member held), its first member."""
    held_groups = {r.group for r in reports if r.group is not None and r.success}
    for index, report in enumerate(reports):
        if report.forbidden or report.success:
            continue
        if report.group is None or report.group not in held_groups:
            return index
    return None


def _differences(wanted: Mapping[str, JsonValue], event: Event) -> list[str]:
    """`name: actual (wanted expected)` for each of the condition's parameters the event
    does not match."""
    actual = event_params(event)
    return [
        f"{name}: {actual.get(name, '—')} (wanted {expected})"
        for name, expected in wanted.items()
        if name not in actual or not value_matches(expected, actual[name])
    ]


def _nearest(report: ConditionReport, events: Sequence[Event]) -> tuple[Event, list[str]] | None:
    """The event of the unmet condition's type whose parameters differ in fewest names, and
    the differences; None when the log has no event of that type."""
    same_type = [e for e in events if e.get("type") == report.event_name]
    if not same_type:
        return None
    scored = [(e, _differences(report.parameters, e)) for e in same_type]
    return min(scored, key=lambda pair: len(pair[1]))


def same_action(action: JsonValue) -> str:
    """What makes two recorded actions the same: the action without the references a
    harness gives an element in one snapshot only (`ref`: `f2e5` is `f3e5` a page later)."""
    if isinstance(action, dict):
        action = {k: v for k, v in action.items() if k not in SNAPSHOT_KEYS}
    return json.dumps(action, sort_keys=True, ensure_ascii=False)


def _loop(steps: Sequence[Step], served: Counter[str]) -> str | None:
    """The evidence of a loop, or None."""
    run, previous = 0, None
    for step in steps:
        action = same_action(step.action)
        run = run + 1 if action == previous and step.action is not None else 1
        previous = action
        if run >= LOOP_RUN:
            return (
                f"the same action {LOOP_RUN} times in a row from step {step.step}: {action[:160]}"
            )
    for screen, times in served.most_common(1):
        if times > LOOP_VISITS:
            return f"the screen {screen} served {times} times"
    return None


def site_of_url(url: str) -> str | None:
    """The site a trajectory URL is on (`/t/<tid>/<site>/...`); None off the trajectory or
    on the hub's own page."""
    path = urlsplit(url).path
    if not path.startswith(TRAJECTORY_PATH):
        return None
    parts = path.split("/")
    return parts[3] if len(parts) > 3 and parts[3] else None


def _left_at(on: frozenset[str], steps: Sequence[Step]) -> int | None:
    """The last step at which the agent was on one of the sites `on`."""
    there = [s.step for s in steps if site_of_url(s.url) in on]
    return there[-1] if there else None


def classify(
    *,
    status: Status,
    completion: bool,
    reports: Sequence[ConditionReport],
    events: Sequence[Event],
    steps: Sequence[Step],
    error: str | None,
    site: str,
    writers: Mapping[str, frozenset[str]] | None = None,
    sites: Mapping[str, frozenset[str]] | None = None,
) -> Failure | None:
    """The failure of a scored attempt that did not pass; None for one that passed (every
    condition held) or was not scored. `site` is the task's first site; `writers` maps an
    event type to the screens (`state_changed.new_state`) whose controls write it, `sites`
    to the sites that write it (by default the declared sites' `writers` and `sites_of`)."""
    if writers is None or sites is None:
        declared = registry()
        writers, sites = declared.writers, declared.sites_of
    fired = [r for r in reports if r.forbidden and not r.success]
    index = first_unmet(reports)
    if not status.scored or (index is None and not fired and reports):
        return None
    holds: dict[FailureClass, str] = {}
    if fired:
        broke = fired[0].matched_event
        holds["forbidden_action"] = fired[0].event_name + (
            f" (event {broke.seq})" if broke is not None and broke.seq is not None else ""
        )
    if status == Status.AGENT_ERROR:
        holds["agent_error"] = error or "the agent broke"
    # The screens served (`state_changed.new_state`), each with how often.
    served = Counter(
        str(event_params(e).get("new_state")) for e in events if e.get("type") == SCREEN
    )
    if (loop := _loop(steps, served)) is not None:
        holds["looped"] = loop
    if status == Status.TIMEOUT:
        holds["timeout"] = error or "the time limit"
    if status == Status.STEP_LIMIT:
        holds["step_limit"] = error or "the step limit"
    point = None
    if index is not None:
        unmet = reports[index]
        writing = sites.get(unmet.event_name, frozenset())
        point = Point(
            condition=index,
            event_name=unmet.event_name,
            parameters=unmet.parameters,
            step=_left_at(frozenset({site}) if site in writing else writing, steps),
        )
        near = _nearest(unmet, events)
        reached = set(served) & writers.get(unmet.event_name, frozenset())
        if near is not None:
            event, differences = near
            holds["wrong_target"] = f"{unmet.event_name} (event {event.get('seq')}): " + "; ".join(
                differences
            )
        if status == Status.OK and reached:
            holds["premature_stop"] = f"stopped after reaching {', '.join(sorted(reached))}"
        if near is None and not reached:
            holds["never_reached"] = f"no {unmet.event_name}, and no screen that writes it served"
    if completion:
        unheld = point.event_name if point else fired[0].event_name
        holds["false_success"] = f"said done; {unheld} did not hold"
    # Never empty: a failed attempt has an unmet condition (whose account is wrong_target,
    # premature_stop or never_reached) or a forbidden one that fired.
    ordered = [name for name in PRECEDENCE if name in holds]
    if not ordered:  # a task without conditions: nothing to fail
        return None
    return Failure.model_validate(
        {"class": ordered[0], "tags": ordered[1:], "evidence": holds, "point": point}
    )
