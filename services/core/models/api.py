"""The hub's trajectory API for runners (`/api/…`, admin token), its requests and answers
(docs/api.md). The hub declares them on its routes; `runner/hub.py` reads its answers into
them."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, JsonValue

from services.core.models.base import Boundary
from services.core.models.events import Condition, Event
from services.core.models.run import (
    ATIF,
    RECORDED,
    ConditionReport,
    MatchedEvent,
    ReportStatus,
    SideEffect,
)
from services.core.models.task import Taxonomy

Selection = dict[str, dict[str, str]]  # domain -> UI-variant key -> implementation
# The close's `left`: the runner's record of the requests to other hosts, bounded.
MAX_LEFT = 100
MAX_LEFT_URL = 2000
LeftUrl = Annotated[str, Field(min_length=1, max_length=MAX_LEFT_URL, pattern=r"^https?://")]


class NewTrajectory(Boundary):
    """`POST /api/trajectories`: a task object, or the name of a task file on the stand."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "task": {
                        "test_data": {
                            "bench_first_domain": "grocery",
                            "task": "На %HOST% положи в корзину слабосолёную сёмгу.",
                            "conditions": [
                                {"event_name": "basket_add", "parameters": {"item_id": "g-0001"}}
                            ],
                        }
                    },
                    "task_id": "grocery_salmon",
                    "today": "2026-05-04",
                    "ui_variants": {"theme": "dark"},
                },
                {"task_id": "shop_fav_smart_watch"},
            ]
        }
    )

    # Checked by the hub as docs/tasks.md says (`check_task`), each problem named.
    task: Mapping[str, object] | None = None
    task_id: str | None = None
    # The stand's today for this trajectory (ISO date); the task's dates follow it.
    today: str | None = None
    # Controls rendered otherwise than the task says: key -> implementation.
    ui_variants: dict[str, str] | None = None


class CreatedTrajectory(Boundary):
    """The answer to a creation: where the agent starts and what it is told."""

    trajectory_id: str
    url: str
    prompt: str
    date_shift_days: int
    ui_variants: Selection = Field(default_factory=dict)


class ReplayEvent(Boundary):
    """One event of a task's start state, as the hub sends it to its site: the field that
    names it in the task (for the error) and what to replay."""

    field: str
    event_name: str
    parameters: dict[str, object] = Field(default_factory=dict)


class Replay(Boundary):
    """`POST /_replay/{tid}` of a site (service credential): the start state's events of
    that site, in the task's order, and on the task's first domain its first screen."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "events": [
                        {
                            "field": "task.test_data.start_state[0]",
                            "event_name": "basket_add",
                            "parameters": {"item_id": "g-0001", "amount": 1},
                        }
                    ],
                    "first_state": "bench_grocery_basket",
                }
            ]
        }
    )

    events: list[ReplayEvent]
    first_state: str | None = None


class Replayed(Boundary):
    """What a replay answers: the events its steps wrote (`source: "setup"`), in stored
    form, for the hub to publish once every site has replayed its part; the path of the
    first screen asked for (under the site's prefix), if the site has one."""

    events: list[Event]
    first_page: str | None = None


class InfraFault(Boundary):
    """A 5xx the hub answered the agent on the trajectory's paths."""

    domain: str
    status: int
    at: float


class TrajectoryMeta(CreatedTrajectory):
    """`GET /api/trajectories/{tid}`: the trajectory's metadata."""

    task_id: str | None = None
    status: Literal["open", "closed"]
    created_at: float
    today: str
    first_domain: str | None = None
    # The conditions with their dates shifted: for reference solvers and the verifier.
    conditions: list[Condition] = Field(default_factory=list)
    ui_taxonomy: Taxonomy | None = None
    # The trajectory's canary secret (a promo code the shop's account page shows): a request
    # of the agent's browser that carries it is recorded as `canary_leak` (events.md).
    canary: str | None = None
    closed_at: float | None = None
    completion: bool | None = None
    final_message: str | None = None
    infra_faults: list[InfraFault] = Field(default_factory=list)


class CloseTrajectory(Boundary):
    """`POST /api/trajectories/{tid}/close`: what the agent said at the end. With
    `report_status` the hub first writes the agent's report into the log, an `agent_report`
    event (that status, `final_message` as its message); before it, an `origin_left` event
    (`via: "browser"`) for each URL of `left`."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "completion": True,
                    "final_message": "Сёмга в корзине.",
                    "report_status": "done",
                    "left": ["http://elsewhere.invalid/promo"],
                }
            ]
        }
    )

    completion: bool | None = None
    final_message: str | None = None
    report_status: ReportStatus | None = None
    # The URLs of other hosts the agent's browser asked for (runner/stack/departures.py).
    left: list[LeftUrl] = Field(default_factory=list, max_length=MAX_LEFT)


class UnpromptedEvent(MatchedEvent):
    """A page-written selection that no click or key on its site's screen preceded."""

    site: str


# One condition, as the examples of the checks show it.
CONDITION: dict[str, JsonValue] = {
    "event_name": "basket_add",
    "parameters": {
        "item_id": "g-0001",
        "amount": {"value": 2, "condition": "greater_than_or_equal"},
    },
    "group": "salmon",
    "match": "last",
    "since": "agent",
}


class TrajectoryCheck(Boundary):
    """The collector's `POST /trajectories/{tid}/check` (the verifier's call): conditions to
    judge on the trajectory's log."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"conditions": [CONDITION]}]})

    conditions: list[Condition]


class StatelessCheck(TrajectoryCheck):
    """`POST /api/check` (and the verifier's `/check` behind it): conditions judged on the
    events of the body, which are checked whole (`events[0].seq` is an integer) before any is
    matched; an event without `seq` takes its place in the list (from 1), without `params`
    none."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "conditions": [CONDITION],
                    "events": [
                        {
                            "seq": 1,
                            "type": "basket_add",
                            "site": "grocery",
                            "source": "server",
                            "params": {"item_id": "g-0001", "amount": 2, "title": "Сёмга"},
                        }
                    ],
                }
            ]
        }
    )

    events: list[Event]


class PageEvent(Boundary):
    """One event a page posts to its `_events` (docs/events.md): its type, its parameters
    (checked per type by the contract) and, from the tracker, an id of its own."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "click",
                    "params": {"x": 120, "y": 48, "target": "button"},
                    "id": "c1a2b3c4",
                }
            ]
        }
    )

    type: str
    params: dict[str, JsonValue] = Field(default_factory=dict)
    id: str | None = None


# A page's `_events` body: one event, or a batch of them in order.
PageEvents = PageEvent | list[PageEvent]


class Verdict(Boundary):
    """check(): the exact-match score and a report per condition (`trajectory_id` for a
    trajectory's check, not for the stateless one), the page selections no input preceded
    and the side effects (both beside EMS, never part of it; `side_effects` is None in a
    verdict from a stand older than them)."""

    trajectory_id: str | None = None
    ems: int
    passed: int
    total: int
    conditions: list[ConditionReport]
    unprompted: list[UnpromptedEvent]
    side_effects: list[SideEffect] | None = None

    def answer(self) -> bytes:
        """The JSON answer: what is at its default is left out (a condition's `group`
        and `forbidden` where it has none)."""
        return self.model_dump_json(exclude_defaults=True).encode()


class Events(Boundary):
    """`GET /api/trajectories/{tid}/events`: the trajectory's log, in order."""

    trajectory_id: str | None = None
    events: list[Event] = Field(default_factory=list)


class RecordedTrajectory(Boundary):
    """An episode folder's `recorded.json` (`RECORDED`): the trajectory as its stand held it
    once the attempt was checked (its metadata, its log, the verdict), so that a run folder
    shows the attempt on a stand that never held it: a queued run's, on the submitter's."""

    meta: TrajectoryMeta
    events: Events
    verdict: Verdict

    @classmethod
    def kept(cls, folder: Path) -> RecordedTrajectory | None:
        """The episode folder's record: its `recorded.json`, or an older run's, which held it
        as `trajectory.json` (now the ATIF file's name); None where neither reads."""
        return cls.read_if(folder / RECORDED) or cls.read_if(folder / ATIF)


class ServiceState(Boundary):
    url: str | None = None
    ready: bool
    error: str | None = None
    # A site's version, as its `/ready` says it.
    version: int | None = None


class StandStatus(Boundary):
    """`GET /api/status`: ready or degraded; with the admin token each service (why one is
    not ready), the sites, the restarts the embedded supervisor counted, the stand's today
    and its sites' versions."""

    status: Literal["ready", "degraded"]
    services: dict[str, ServiceState] = Field(default_factory=dict)
    sites: list[str] = Field(default_factory=list)
    restarts: dict[str, int] = Field(default_factory=dict)
    # The date the stand shifts tasks to when a trajectory names none (ISO).
    today: str | None = None
    # Each ready site's version (services/CHANGES.md): a run's manifest records them.
    site_versions: dict[str, int] = Field(default_factory=dict)
