"""The harness interface and registry: adapters between an agent and a trajectory.

Every harness, the built-ins too (pyproject.toml), is declared in the entry-point group
`webpagebench.harnesses`: a name and a factory of a `Harness` (a subclass that gives `name`
and `run`). Nothing is found by importing a module for its side effects.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import Browser
from pydantic import JsonValue

from services.core.models.events import Condition
from services.core.models.run import LOCAL, AgentConfig, ReportStatus, Status, Usage, Viewport

if TYPE_CHECKING:
    from runner.models.proxy import ModelProxy

ENTRY_POINT_GROUP = "webpagebench.harnesses"


@dataclass
class Episode:
    """What a harness receives for one task."""

    task_id: str
    prompt: str
    url: str
    first_domain: str | None
    time_limit_s: float
    browser: Browser | None
    # The shifted success conditions: for reference solvers only; an agent harness that
    # reads them is not measuring an agent.
    conditions: list[Condition] = field(default_factory=list)
    model: str | None = None
    agent: AgentConfig = field(default_factory=AgentConfig)
    # Where the episode's steps, screenshots and logs go (the run's episodes/<trajectory>/).
    output_dir: Path | None = None
    # The Chromium binary for harnesses that launch their own browser per episode.
    chromium: str | None = None
    # The runner's recording proxy in front of `agent.base_url` (runner/models/proxy.py), for
    # harnesses whose agent can reach the runner's loopback.
    model_proxy: ModelProxy | None = None
    # The run's page size and zoom (`runner eval --viewport --zoom`): every harness's browser
    # renders the pages so.
    viewport: Viewport = field(default_factory=Viewport)


@dataclass
class Outcome:
    completion: bool
    final_message: str = ""
    # What the agent reported (the runner logs it as `agent_report`); None: no report.
    report: ReportStatus | None = None
    steps: int = 0
    tokens: int = 0
    cost: float = 0.0
    # Tokens and calls per model.
    usage: dict[str, Usage] = field(default_factory=dict)
    # Whether every model used has a price in the price table (cost 0 otherwise).
    priced: bool = True
    # `ok`, or why the agent stopped short: `timeout`, `step_limit`, `agent_error`.
    status: Status = Status.OK
    error: str | None = None
    # The URLs of other hosts the agent's browser asked for and the runner failed
    # (runner/stack/departures.py); the close sends them to the hub.
    left: list[str] = field(default_factory=list)


class Harness(ABC):
    """The base of every harness, a plug-in's too: it gives `name` and `run`, and
    `needs_browser` where it drives the runner's Chromium. The facts a run's manifest records
    of it have defaults here, which a harness overrides where it knows them."""

    name: str
    # Whether `run` is given the runner's Chromium (episode.browser).
    needs_browser: bool = False
    # What its agent sees and how it acts, in words (the manifest's observation and action).
    observation: str | None = None
    action: str | None = None
    # Where its agents run (the manifest's backend): beside the runner, unless it says more.
    backend: dict[str, JsonValue] = LOCAL

    @abstractmethod
    async def run(self, episode: Episode) -> Outcome:
        """The episode, run to its end: what the agent said and did."""

    def packages(self) -> dict[str, str]:
        """The framework and package versions its agent runs with (none known here)."""
        return {}

    def digests(self) -> dict[str, str]:
        """The ids of the images its agents ran in (none outside containers)."""
        return {}

    async def rendered_fonts(self, executable: str, viewport: Viewport) -> dict[str, str]:
        """The fonts of the browser its agents use when that is not the runner's Chromium
        (`executable`): none for a harness without a browser."""
        return {}

    def chromium_label(self, executable: str | None) -> str | None:
        """The Chromium its agents ran, when not the runner's: the binary they launch."""
        return executable


def available() -> dict[str, Callable[[], Harness]]:
    """Every harness declared in the entry-point group, ours and other packages', by name."""
    return {entry.name: entry.load() for entry in entry_points(group=ENTRY_POINT_GROUP)}


def harness_factory(name: str) -> Callable[[], Harness]:
    """The factory of the harness declared as `name`; a KeyError lists those declared."""
    harnesses = available()
    if name not in harnesses:
        raise KeyError(f"unknown harness {name!r}; available: {', '.join(sorted(harnesses))}")
    return harnesses[name]


def get_harness(name: str) -> Harness:
    return harness_factory(name)()
