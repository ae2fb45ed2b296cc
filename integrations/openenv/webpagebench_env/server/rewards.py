"""Rewards from the verifier's verdict (docs/training.md, "Rewards").

The verdict reports each condition; a condition, or a group of alternatives, is a unit (as
the verifier counts them for EMS). `progress` is the share of the asked units (the task's
conditions less the forbidden ones) that hold; a forbidden unit is broken once an event it
forbids was written. The rubric (OpenEnv's RFC 004) scores a step from the observation:

- `progress`: the change in `progress` since the step before (the reset's observation
  carries the first value), so that an episode's rewards sum to its final share;
- `forbidden`: minus `FORBIDDEN_PENALTY` for each forbidden unit the step broke;
- `outcome`: EMS on the step that ends the episode, else 0.

In the `progress` mode a step's reward is progress + forbidden; in `outcome`, outcome +
forbidden. An episode the stand failed has no reward at all (`reward` None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openenv.core.rubrics import Rubric

from services.core.models.api import Verdict
from webpagebench_env.models import RewardMode

FORBIDDEN_PENALTY = 1.0


@dataclass(frozen=True)
class Standing:
    """How a verdict stands: asked units met of all asked, forbidden units broken."""

    met: int
    total: int
    broken: int

    @property
    def progress(self) -> float:
        return self.met / self.total if self.total else 0.0

    @classmethod
    def of(cls, verdict: Verdict) -> Standing:
        asked: dict[Any, bool] = {}
        broken = 0
        for index, report in enumerate(verdict.conditions):
            if report.forbidden:
                broken += not report.success
                continue
            key = ("group", report.group) if report.group is not None else ("one", index)
            asked[key] = asked.get(key, False) or report.success
        return cls(sum(asked.values()), len(asked), broken)


class Progress(Rubric):
    """The change in the share of asked units that hold since the last step."""

    def __init__(self) -> None:
        super().__init__()
        self.before = 0.0

    def start(self, progress: float) -> None:
        self.before = progress

    def forward(self, action: Any, observation: Any) -> float:
        change = observation.progress - self.before
        self.before = observation.progress
        return float(change)

    def reset(self) -> None:
        self.before = 0.0


class Forbidden(Rubric):
    """Minus FORBIDDEN_PENALTY for each forbidden unit the step broke."""

    def __init__(self) -> None:
        super().__init__()
        self.broken = 0

    def forward(self, action: Any, observation: Any) -> float:
        newly = observation.forbidden_broken - self.broken
        self.broken = observation.forbidden_broken
        return -FORBIDDEN_PENALTY * newly

    def reset(self) -> None:
        self.broken = 0


class Outcome(Rubric):
    """EMS on the step that ends the episode, 0 before."""

    def forward(self, action: Any, observation: Any) -> float:
        return float(observation.ems or 0) if observation.done else 0.0


class WebPageBenchRubric(Rubric):
    """A step's reward: its `progress` (or, in the `outcome` mode, its `outcome`) plus its
    `forbidden` term; each child's `last_score` is that term of the last step."""

    def __init__(self) -> None:
        super().__init__()
        self.progress = Progress()
        self.forbidden = Forbidden()
        self.outcome = Outcome()
        self.mode: RewardMode = "progress"

    def start(self, mode: RewardMode, first: Standing) -> float:
        """A new episode from its first standing; the reset's reward."""
        self.reset()
        self.mode = mode
        self.progress.start(first.progress)
        self.forbidden.broken = first.broken
        return first.progress if mode == "progress" else 0.0

    def forward(self, action: Any, observation: Any) -> float:
        progress = self.progress(action, observation)
        outcome = self.outcome(action, observation)
        main = progress if self.mode == "progress" else outcome
        return float(main + self.forbidden(action, observation))

    def reset(self) -> None:
        for child in (self.progress, self.forbidden, self.outcome):
            child.reset()
