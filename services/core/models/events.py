"""An event and a condition as typed dicts: the shapes of the hot path (the collector stores
and matches thousands a second, the verifier scores them) checked by mypy at no cost at run
time. The event's parameters are checked per type by the contract (`contract.py`); a
condition's by `matching.validate_conditions`."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required

# pydantic reads these in the API's models, and wants typing_extensions' before Python 3.12.
from typing_extensions import TypedDict

# An event's or a condition's parameters: free-form JSON, given its shape per event type
# by the contract (a condition's may hold operators: `{"condition": "gte", "value": 2}`).
Parameters = dict[str, Any]


class Event(TypedDict, total=False):
    """One event of a trajectory's log (docs/events.md)."""

    id: str
    trajectory_id: str
    ts: float
    site: str
    # `server` (a site's own handler), `page` (the page's JavaScript) or `setup` (a task's
    # start state, replayed by the site before the agent starts).
    source: str
    type: Required[str]
    params: Parameters
    # Its place in the trajectory's log, from 1 (given by the collector).
    seq: int


class Condition(TypedDict):
    """One success condition of a task (docs/tasks.md, "Conditions")."""

    event_name: str
    parameters: NotRequired[Parameters]
    # Conditions of one group hold when any of them does.
    group: NotRequired[str | int]
    # Holds while no matching event exists.
    forbidden: NotRequired[bool]
    # `last`: judged on the last event of a quantity's family.
    match: NotRequired[Literal["any", "last"]]
    # `agent` (the default): judged on the events after the agent starts, the start state's
    # (`source: "setup"`) left out; `start`: on the whole log.
    since: NotRequired[Literal["agent", "start"]]
