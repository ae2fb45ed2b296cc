"""What goes over the wire between a trainer and the WebPageBench environment (OpenEnv's
pydantic types): one action string, the observation after it, the episode's state."""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.types import Action, Observation, State
from pydantic import BaseModel, Field

# The report that ends an episode (the runner's `ReportStatus`).
ReportStatus = Literal["done", "infeasible", "needs_input", "gave_up"]
# How a step's reward is made (docs/training.md, "Rewards"): the change in the share of the
# task's conditions that hold, or EMS once at the end; forbidden steps cost in both.
RewardMode = Literal["progress", "outcome"]


class WebpagebenchAction(Action):
    """One BrowserGym high-level action (`click('e12')`, `fill('e7', 'Москва')`,
    `goto('…')`, `mouse_click(640, 400)`, `send_msg_to_user('…')`, …), several on lines of
    their own, or `report(status, message)`; element ids are the `[ref=…]` of the newest
    `axtree`."""

    action: str = Field(min_length=1, max_length=20_000)


class EventSeen(BaseModel):
    """An event a site recorded during the step: what happened, never what was wanted."""

    seq: int | None = None
    site: str = ""
    type: str = ""
    source: str = ""
    params: dict[str, Any] = Field(default_factory=dict)


class WebpagebenchObservation(Observation):
    """The page after an action, the events the step wrote, and how far the conditions are.
    `reward` is None, never 0, on an episode the stand failed (`infra_error`)."""

    goal: str = ""
    url: str = ""
    title: str = ""
    # Playwright's accessibility snapshot (mode `ai`): each element's role, name and
    # `[ref=eN]`, the id an action names.
    axtree: str = ""
    # The viewport as a base64 PNG, where the episode asked for screenshots.
    screenshot: str | None = None
    last_action: str = ""
    last_action_error: str = ""
    events: list[EventSeen] = Field(default_factory=list)
    step: int = 0
    # The verifier's units (a condition, or a group of alternatives) and how many hold; the
    # asked ones without the forbidden, and the forbidden ones broken so far.
    conditions_met: int = 0
    conditions_total: int = 0
    progress: float = 0.0
    forbidden_broken: int = 0
    # At the end: exact match (1 or 0), the report the episode ended with.
    ems: int | None = None
    report: ReportStatus | None = None
    infra_error: str | None = None


class WebpagebenchState(State):
    """The episode: which task (a file's name, or a family's instance by seed), its
    trajectory on the stand and how it ended."""

    task_id: str | None = None
    suite: str | None = None
    family: str | None = None
    seed: int | None = None
    trajectory_id: str | None = None
    reward_mode: RewardMode = "progress"
    done: bool = False
    ems: int | None = None
    report: ReportStatus | None = None
    infra_error: str | None = None
