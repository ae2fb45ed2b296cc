"""The sandbox that holds the stand: `sandbox=("webpagebench", {"hub": …})`.

At the task's start it takes the stand at `hub` (compose's), else the embedded stack that
runs under `home` (`$WPB_HOME`), else starts one there for the task and stops it at the
task's end (`runner.stack.stack.stand_at`); the task's samples share it and one headless
Chromium. Each sample gets a trajectory of its own and a browser context of its own, whose tab
the browser tools act on (`tools.py`); both are closed at the sample's end (a trajectory the
scorer did not close is closed as given up). A trajectory's state is the stand's, keyed by its
id: samples that run at once never see each other's carts or events.

Commands and files (`exec`, `read_file`, `write_file`) are the local sandbox's: a temporary
folder on this host, for a solver that wants one; the tools need none of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from inspect_ai.util import SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from inspect_ai.util._sandbox.local import LocalSandboxEnvironment
from playwright.async_api import BrowserContext, Page
from pydantic import BaseModel, ConfigDict

from runner.agents import browser as shared
from runner.hub import HubClient
from runner.settings import runner_home
from runner.stack.chromium import SharedChromium, new_context
from runner.stack.stack import stand_at
from services.core.models.api import CreatedTrajectory, Verdict

# An element of the snapshot Playwright takes (`[ref=e12]`), shown to the model as `[12]`.
REF = re.compile(r"\[ref=([A-Za-z0-9_-]+)\]")


class StandConfig(BaseModel):
    """The sandbox's configuration: the stand's hub (none: the embedded stack), the runner's
    home holding its admin token and stack (none: `$WPB_HOME`), a started stack's today."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hub: str | None = None
    home: str | None = None
    today: str | None = None


@dataclass
class Stand:
    """What the samples of the tasks in this process share, while any task uses it."""

    hub: HubClient
    exits: contextlib.ExitStack
    users: int = 0
    chromium: SharedChromium = field(default_factory=SharedChromium)


@sandboxenv(name="webpagebench")
class StandSandbox(LocalSandboxEnvironment):
    """One sample's trajectory and tab on the task's stand (the module's docstring)."""

    stand: ClassVar[Stand | None] = None

    def __init__(self) -> None:
        super().__init__()
        self.created: CreatedTrajectory | None = None
        self.context: BrowserContext | None = None
        self.closed = False
        # The newest tree's element ids -> Playwright's references.
        self.refs: dict[int, str] = {}

    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return StandConfig(**config)

    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        if cls.stand is None:
            cls.stand = await asyncio.to_thread(open_stand, settings(config))
        cls.stand.users += 1

    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        return {"default": cls()}

    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        for environment in environments.values():
            await environment.as_type(StandSandbox).release()
        await super().sample_cleanup(task_name, config, environments, interrupted)

    @classmethod
    async def task_cleanup(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, cleanup: bool
    ) -> None:
        stand = cls.stand
        if stand is None:
            return
        stand.users -= 1
        if stand.users > 0:
            return
        cls.stand = None
        await stand.chromium.close()
        await stand.hub.close()
        await asyncio.to_thread(stand.exits.close)

    # -- one sample ----------------------------------------------------------------------

    @property
    def hub(self) -> HubClient:
        if StandSandbox.stand is None:
            raise RuntimeError("the webpagebench sandbox has no stand (its task did not start)")
        return StandSandbox.stand.hub

    @property
    def page(self) -> Page:
        if self.context is None or not self.context.pages:
            raise RuntimeError("the sample has no page: its trajectory was not opened")
        return self.context.pages[-1]

    async def open(self, task_id: str) -> CreatedTrajectory:
        """The sample's trajectory of task `task_id`, its first page open in a new context."""
        assert StandSandbox.stand is not None
        self.created = await self.hub.create(task_id=task_id)
        self.context = await new_context(await StandSandbox.stand.chromium.get())
        page = await self.context.new_page()
        await shared.prepare(page)
        await page.goto(self.created.url, wait_until="load", timeout=shared.LOAD_TIMEOUT_MS * 3)
        return self.created

    async def tree(self) -> str:
        """The tab's accessibility snapshot, each element's reference shown as a number (the
        tools' `element_id`); the numbers hold until the next snapshot."""
        page = self.page
        await shared.settle(page)
        snapshot = await page.aria_snapshot(mode="ai", timeout=shared.LOAD_TIMEOUT_MS)
        self.refs = {}

        def number(found: re.Match[str]) -> str:
            self.refs[len(self.refs) + 1] = found.group(1)
            return f"[{len(self.refs)}]"

        return f"{page.url}\n{REF.sub(number, str(snapshot))}"

    async def finish(self, completion: bool, answer: str) -> Verdict:
        """The trajectory closed with the agent's answer (`done` where it submitted one) and
        its verdict."""
        assert self.created is not None
        tid = self.created.trajectory_id
        await self.hub.close_trajectory(tid, completion, answer, "done" if completion else None)
        self.closed = True
        return await self.hub.check(tid)

    async def release(self) -> None:
        """The sample's context closed, its trajectory too where the scorer did not."""
        if self.created is not None and not self.closed:
            with contextlib.suppress(Exception):
                await self.hub.close_trajectory(self.created.trajectory_id, False, "", "gave_up")
        if self.context is not None:
            with contextlib.suppress(Exception):  # the browser went away with it
                await self.context.close()
            self.context = None


def settings(config: SandboxEnvironmentConfigType | None) -> StandConfig:
    if config is None:
        return StandConfig()
    if isinstance(config, StandConfig):
        return config
    raise ValueError(f"the webpagebench sandbox's config: hub, home, today; not {config!r}")


def open_stand(config: StandConfig) -> Stand:
    """The stand the config names, held open until the last task using it ends."""
    home = Path(config.home) if config.home else runner_home()
    exits = contextlib.ExitStack()
    try:
        address = exits.enter_context(stand_at(home, config.hub, config.today))
    except BaseException:
        exits.close()
        raise
    return Stand(address.connect(), exits)
