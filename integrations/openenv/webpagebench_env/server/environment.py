"""WebPageBench as an OpenEnv environment: an episode is a trajectory on the stand and a
browser context of one Chromium that every session of the server shares.

`reset` picks the task (a file by name; a suite's task by seed or by index; a family's
generated instance by seed), creates its trajectory on the hub and opens its first page in the
session's tab: a new context's, or the last episode's with its cookies, storage and history
cleared (its renderer stays warm); `step` does one action string (server/actions.py) and
observes the page, the events the step wrote and the verdict (server/rewards.py); a report,
the step limit or a fault of the stand ends the episode, which closes the trajectory. A fault
of the stand (the hub, a site answering 5xx, the browser gone) ends it with `infra_error` and
no reward.

Every method runs on the server's event loop (`reset_async`, `step_async`); `close`, which
OpenEnv calls from a worker thread, hands the clean-up to that loop, and `reset` and `step`,
for a caller without a loop (the environment held in-process), hand their work to it (or to
a loop of this module's own where there is no server). A session idle longer
than `Config.idle_s` is closed by the reaper, its trajectory with it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import logging
import random
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata
from playwright.async_api import Browser

from runner.agents import browser as shared
from runner.errors import InfraError
from runner.hub import HubAddress, HubRefused
from runner.run.evaluate import TaskRef, select_tasks
from runner.settings import TASKS_DIR
from runner.stack.chromium import SharedChromium, new_context
from runner.suite.generate import draw
from services.core.failure import classify
from services.core.models.api import Verdict
from services.core.models.events import Event
from services.core.models.protocol import Step
from services.core.models.run import Status, Viewport
from services.core.tasks import RELEASED, SUITES
from webpagebench_env.models import (
    EventSeen,
    ReportStatus,
    RewardMode,
    WebpagebenchAction,
    WebpagebenchObservation,
    WebpagebenchState,
)
from webpagebench_env.server.actions import ActionError, Report, Tabs, parse, perform
from webpagebench_env.server.rewards import Standing, WebPageBenchRubric

log = logging.getLogger("wpb.openenv")
CLOSE_TIMEOUT_S = 30
# The renderer processes the shared Chromium keeps: a new context reuses one instead of
# starting its own (each context's storage stays its own whatever process draws it).
RENDERERS = 4


@dataclass(frozen=True)
class Config:
    """The server's settings: the stand, the task files and each episode's limits."""

    hub: HubAddress
    tasks_dir: Path = TASKS_DIR
    max_steps: int = 30
    # A session that neither resets nor steps for this long is closed (0: never).
    idle_s: float = 600.0
    viewport: Viewport = field(default_factory=Viewport)


class EpisodeOver(ValueError):
    """A step after the episode ended (or its session was closed for idleness)."""


class Shared:
    """What the sessions of one server share, made on its event loop at first use: one
    Chromium (started again if it goes away), one client of the hub, the live sessions."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.hub = config.hub.connect()
        self.launched = SharedChromium(f"--renderer-process-limit={RENDERERS}")
        self.sessions: weakref.WeakSet[WebPageBenchEnvironment] = weakref.WeakSet()
        self.reaper: asyncio.Task[None] | None = None
        self.tasks: dict[str, list[TaskRef]] = {}

    async def chromium(self) -> Browser:
        """The shared Chromium; the reaper started with the first session."""
        if self.reaper is None and self.config.idle_s > 0:
            self.reaper = asyncio.create_task(self.reap())
        return await self.launched.get()

    def suite(self, suite: str) -> list[TaskRef]:
        """The suite's task files in name order (read once)."""
        if suite not in self.tasks:
            if suite not in SUITES:
                raise ValueError(f"suite: one of {', '.join(SUITES)}, not {suite!r}")
            self.tasks[suite] = select_tasks(self.config.tasks_dir, None, None, suite)
        return self.tasks[suite]

    async def reap(self) -> None:
        """Close every session idle past the limit, every quarter of it."""
        limit = self.config.idle_s
        while True:
            await asyncio.sleep(max(limit / 4, 0.5))
            now = time.monotonic()
            for session in list(self.sessions):
                if session.holding and not session.turn.locked() and now - session.used > limit:
                    async with session.turn:  # a step that came meanwhile goes first
                        if session.holding and time.monotonic() - session.used > limit:
                            log.info("closing a session idle for %.0f s", now - session.used)
                            await session.finish("gave_up", idle=True)


SHARED: dict[int, Shared] = {}
Method = TypeVar("Method", bound=Callable[..., Awaitable[Any]])
T = TypeVar("T")


def answering(method: Method) -> Method:
    """A session's reset or step: its turn held while it answers (the reaper leaves it alone), used
    when it has answered."""

    @functools.wraps(method)
    async def answer(self: WebPageBenchEnvironment, *args: Any, **kwargs: Any) -> Any:
        async with self.turn:
            try:
                return await method(self, *args, **kwargs)
            finally:
                self.used = time.monotonic()

    return answer  # type: ignore[return-value]


@functools.cache
def own_loop() -> asyncio.AbstractEventLoop:
    """An event loop in a thread of its own, for the environments of a process without a
    server (their Chromium and hub client live on it)."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="webpagebench-env", daemon=True).start()
    return loop


def shared_for(config: Config) -> Shared:
    key = id(config)
    if key not in SHARED:
        SHARED[key] = Shared(config)
    return SHARED[key]


class WebPageBenchEnvironment(
    Environment[WebpagebenchAction, WebpagebenchObservation, WebpagebenchState]
):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, config: Config) -> None:
        super().__init__(rubric=WebPageBenchRubric())
        self.config = config
        self._state = WebpagebenchState()
        self.tabs: Tabs | None = None
        # The last episode's tab, kept for the next (`tab`).
        self.kept: Tabs | None = None
        self.goal = ""
        self.seen = 0  # the last event's sequence number the observations showed
        self.screenshots = False
        self.max_steps = config.max_steps
        # When the session last answered; one of its reset, step or the reaper's close at a
        # time (held while it answers: the reaper leaves it alone meanwhile).
        self.used = time.monotonic()
        self.turn = asyncio.Lock()
        self.site = ""
        self.loop: asyncio.AbstractEventLoop | None = None
        self.idle_closed = False
        # The episode's actions as the runner's steps, for the failure class at the end.
        self.steps: list[Step] = []

    @property
    def rubric_(self) -> WebPageBenchRubric:
        assert isinstance(self.rubric, WebPageBenchRubric)
        return self.rubric

    @property
    def open(self) -> bool:
        return self.tabs is not None

    @property
    def holding(self) -> bool:
        """Whether the session holds a browser context (an episode's or a kept tab's)."""
        return self.tabs is not None or self.kept is not None

    @property
    def state(self) -> WebpagebenchState:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(
            name="webpagebench",
            description=(
                "Six mock sites in Russian (a marketplace, a bookstore, grocery delivery, rail"
                " tickets, hotels, a document cabinet); every action a typed event, rewards"
                " from the verifier's conditions."
            ),
            version="0.1.0",
            documentation_url="https://github.com/webpagebench/webpagebench/blob/main/docs/training.md",
        )

    # -- tasks (OpenEnv's task API: a split is a suite) ----------------------------------

    def list_splits(self) -> list[str]:
        return list(SUITES)

    def num_tasks(self, split: str) -> int:
        return len(shared_for(self.config).suite(split))

    def list_tasks(self, split: str) -> list[dict[str, Any]]:
        return [describe(ref) for ref in shared_for(self.config).suite(split)]

    def get_task(self, split: str, index: int) -> dict[str, Any]:
        refs = shared_for(self.config).suite(split)
        if not 0 <= index < len(refs):
            raise IndexError(f"index: 0..{len(refs) - 1} in {split}")
        return describe(refs[index])

    # -- the episode -----------------------------------------------------------------------

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> Any:
        """`reset_async` for a caller outside any event loop (an environment held in a
        trainer's own process, without the server)."""
        return self.blocking(self.reset_async(seed, episode_id, **kwargs))

    def step(
        self, action: WebpagebenchAction, timeout_s: float | None = None, **kwargs: Any
    ) -> Any:
        """`step_async` for a caller outside any event loop."""
        return self.blocking(self.step_async(action, timeout_s))

    def blocking(self, work: Coroutine[Any, Any, T]) -> T:
        """`work` done on the loop this environment's episodes live on (this module's own
        where none is yet), waited for from the caller's thread."""
        loop = self.loop or own_loop()
        with contextlib.suppress(RuntimeError):
            if asyncio.get_running_loop() is loop:
                work.close()
                raise RuntimeError("on the environment's own loop: await the *_async methods")
        return asyncio.run_coroutine_threadsafe(work, loop).result()

    @answering
    async def reset_async(  # type: ignore[override]
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        suite: str = RELEASED,
        family: str | None = None,
        split: str | None = None,
        index: int | None = None,
        reward_mode: RewardMode = "progress",
        screenshot: bool = False,
        max_steps: int | None = None,
    ) -> WebpagebenchObservation:
        """A new episode (the one before, if still open, closed as given up): the task file
        `task_id`; else the `index`-th task of `split` (a suite); else a `family`'s generated
        instance by `seed`; else a task of `suite` by `seed`. Without a seed one is drawn
        (the state says which)."""
        self.loop = asyncio.get_running_loop()
        common = shared_for(self.config)
        common.sessions.add(self)
        await self.finish("gave_up", keep=True)
        if reward_mode not in ("progress", "outcome"):
            raise ValueError(f"reward_mode: progress or outcome, not {reward_mode!r}")
        if seed is None and task_id is None and index is None:
            seed = random.randrange(2**31)
        self.screenshots = bool(screenshot)
        self.max_steps = self.config.max_steps if max_steps is None else int(max_steps)
        chosen = await asyncio.to_thread(self.choose, task_id, split or suite, family, seed, index)
        hub = common.hub
        created = await (
            hub.create(task=chosen.task) if family else hub.create(task_id=chosen.name)
        )
        self._state = WebpagebenchState(
            episode_id=episode_id or created.trajectory_id,
            task_id=chosen.name,
            suite=chosen.suite,
            family=family,
            seed=seed,
            trajectory_id=created.trajectory_id,
            reward_mode=reward_mode,
        )
        self.goal, self.seen = created.prompt, 0
        self.idle_closed, self.steps, self.site = False, [], chosen.site
        self.tabs, kept = await self.tab(common, created.url)
        error = ""
        try:
            page = self.tabs.page
            await page.goto(created.url, wait_until="load", timeout=shared.LOAD_TIMEOUT_MS * 3)
            if kept:
                await self.tabs.forget()
        except Exception as exc:
            error = f"the first page did not load: {shared.short(str(exc), 200)}"
        observation, standing = await self.observe("", error)
        observation.reward = self.rubric_.start(reward_mode, standing)
        return observation

    async def tab(self, common: Shared, url: str) -> tuple[Tabs, bool]:
        """The episode's tab, and whether it is the last episode's: that one cleared where
        the browser still holds it (its renderer warm: a new context's first page costs
        Chromium about 2.5 times the CPU), else the only one of a new context."""
        browser = await common.chromium()
        kept, self.kept = self.kept, None
        if kept is not None and kept.context.browser is browser:
            parts = urlsplit(url)
            try:
                await kept.cleared(f"{parts.scheme}://{parts.netloc}")
                return kept, True
            except Exception as exc:
                log.info("a kept tab could not be cleared, a new context instead: %s", exc)
        await drop(kept)
        context = await new_context(browser, self.config.viewport)
        page = await context.new_page()
        await shared.prepare(page)
        tabs = Tabs(context, [page])
        tabs.watch()
        return tabs, False

    def choose(
        self,
        task_id: str | None,
        suite: str,
        family: str | None,
        seed: int | None,
        index: int | None,
    ) -> TaskRef:
        common = shared_for(self.config)
        if task_id is not None:
            known = {ref.name: ref for s in SUITES for ref in common.suite(s)}
            if task_id not in known:
                raise ValueError(f"task_id: no task file named {task_id!r}")
            return known[task_id]
        if family is not None:
            assert seed is not None
            name, task = draw(self.config.tasks_dir, family, seed)
            return TaskRef(name, Path(f"{name}.json"), task)
        refs = common.suite(suite)
        if index is not None:
            if not 0 <= index < len(refs):
                raise ValueError(f"index: 0..{len(refs) - 1} in {suite}")
            return refs[index]
        assert seed is not None
        return refs[random.Random(f"{suite}:{seed}").randrange(len(refs))]

    @answering
    async def step_async(  # type: ignore[override]
        self, action: WebpagebenchAction, timeout_s: float | None = None, **kwargs: Any
    ) -> WebpagebenchObservation:
        if self.tabs is None:
            why = "closed after it sat idle" if self.idle_closed else "over"
            raise EpisodeOver(f"the episode is {why}: reset to start another")
        self._state.step_count += 1
        error, ending = "", None
        url = self.tabs.page.url
        try:
            ending = await perform(self.tabs, parse(action.action))
        except ActionError as exc:
            error = str(exc)
        self.steps.append(
            Step(
                step=self._state.step_count,
                time=datetime.now(UTC).isoformat(),
                url=url,
                action=action.action,
                error=error or None,
            )
        )
        limited = ending is None and self._state.step_count >= self.max_steps
        if ending is not None or limited:
            return await self.end(action.action, error, ending)
        observation, _ = await self.observe(action.action, error)
        if observation.infra_error is None:
            observation.reward = self._apply_rubric(action, observation)
        return observation

    async def end(self, action: str, error: str, ending: Report | None) -> WebpagebenchObservation:
        """The episode's last observation: the agent's report (or, None, the step limit)
        closes the trajectory, then the verdict is final."""
        status = None if ending is None else ending.status
        message = "" if ending is None else ending.message
        tid = self._state.trajectory_id
        assert tid is not None
        try:
            await shared_for(self.config).hub.close_trajectory(
                tid, status == "done", message, status
            )
        except InfraError as exc:
            return await self.failed(action, f"the hub: {exc}")
        observation, _ = await self.observe(action, error, final=True)
        observation.report = status
        if observation.infra_error is None and observation.ems != 1:
            failure = await self.failure(ending is None, status == "done")
            observation.metadata["failure_class"] = failure
        if observation.infra_error is None:
            observation.reward = self._apply_rubric(WebpagebenchAction(action=action), observation)
        self._state.report, self._state.ems = status, observation.ems
        await self.release(keep=True)
        return observation

    async def failure(self, limited: bool, completion: bool) -> str | None:
        """The failed episode's failure class (docs/results.md, "Failure classes")."""
        tid = self._state.trajectory_id
        assert tid is not None
        hub = shared_for(self.config).hub
        verdict, events = await asyncio.gather(hub.check(tid), hub.events(tid))
        failure = classify(
            status=Status.STEP_LIMIT if limited else Status.OK,
            completion=completion,
            reports=verdict.conditions,
            events=events.events,
            steps=self.steps,
            error=None,
            site=self.site,
        )
        return None if failure is None else failure.class_

    async def observe(
        self, action: str, error: str, final: bool = False
    ) -> tuple[WebpagebenchObservation, Standing]:
        """The page as it is now, the events since the last observation, the verdict; a
        fault of the stand met on the way ends the episode (`failed`)."""
        assert self.tabs is not None
        tid = self._state.trajectory_id
        assert tid is not None
        hub = shared_for(self.config).hub
        try:
            shared.check_alive(self.tabs.context.browser)  # type: ignore[arg-type]
            events, verdict, meta = await asyncio.gather(
                hub.events(tid, after=self.seen), hub.check(tid), hub.trajectory(tid)
            )
        except (InfraError, ConnectionError) as exc:
            return await self.failed(action, str(exc)), Standing(0, 0, 0)
        if meta.infra_faults:  # the first ends the episode
            fault = meta.infra_faults[-1]
            why = f"the site {fault.domain} answered {fault.status}"
            return await self.failed(action, why), Standing(0, 0, 0)
        page = self.tabs.page
        tree = await snapshot(page)
        self.tabs.tree = tree
        picture = await shared.screenshot(page) if self.screenshots else None
        if events.events:
            self.seen = max(e.get("seq") or self.seen for e in events.events)
        standing = Standing.of(verdict)
        done = final
        observation = WebpagebenchObservation(
            goal=self.goal,
            url=page.url,
            title=await title(page),
            axtree=tree,
            screenshot=base64.b64encode(picture).decode() if picture else None,
            last_action=action,
            last_action_error=error,
            events=[seen(e) for e in events.events],
            step=self._state.step_count,
            conditions_met=standing.met,
            conditions_total=standing.total,
            progress=standing.progress,
            forbidden_broken=standing.broken,
            ems=verdict.ems if final else None,
            done=done,
            metadata=metadata(verdict, self._state),
        )
        self._state.done = done
        return observation, standing

    async def failed(self, action: str, why: str) -> WebpagebenchObservation:
        """The episode ends on the stand's fault: no reward, `infra_error` says why."""
        self._state.infra_error, self._state.done = why, True
        await self.release(close=True)
        return WebpagebenchObservation(
            goal=self.goal,
            last_action=action,
            step=self._state.step_count,
            infra_error=why,
            done=True,
            reward=None,
            metadata={"infra_error": why, "trajectory_id": self._state.trajectory_id},
        )

    async def finish(self, status: ReportStatus, idle: bool = False, keep: bool = False) -> None:
        """End an open episode without a step: its trajectory closed with `status`; the
        session's browser context closed unless `keep` (its tab kept for the next episode)."""
        if self.tabs is not None:
            tid = self._state.trajectory_id
            if tid is not None:
                try:
                    await shared_for(self.config).hub.close_trajectory(tid, False, "", status)
                except (InfraError, HubRefused) as exc:
                    log.warning("could not close %s: %s", tid, exc)
            self._state.report, self._state.done = status, True
            self.idle_closed = idle
            await self.release(keep=keep)
        if not keep:
            kept, self.kept = self.kept, None
            await drop(kept)

    async def release(self, close: bool = False, keep: bool = False) -> None:
        """The episode's tab kept for the next (`keep`) or its browser context closed; with
        `close`, its trajectory closed too (where the hub still answers)."""
        tabs, self.tabs = self.tabs, None
        tid = self._state.trajectory_id
        if close and tid is not None:
            with contextlib.suppress(InfraError, HubRefused):
                await shared_for(self.config).hub.close_trajectory(tid, False, "")
        if keep:
            self.kept = tabs
        else:
            await drop(tabs)

    def close(self) -> None:
        """OpenEnv's end of a session: the episode ended on the server's loop, waited for
        from a worker thread (a WebSocket's end), scheduled from the loop itself (a plain
        HTTP request's)."""
        if self.loop is None or not self.holding:
            return
        with contextlib.suppress(RuntimeError):
            if asyncio.get_running_loop() is self.loop:
                ending = self.loop.create_task(self.finish("gave_up"))
                ENDING.add(ending)
                ending.add_done_callback(ENDING.discard)
                return
        done = asyncio.run_coroutine_threadsafe(self.finish("gave_up"), self.loop)
        try:
            done.result(CLOSE_TIMEOUT_S)
        except Exception as exc:
            log.warning("closing a session: %s", exc)


async def drop(tabs: Tabs | None) -> None:
    """A session's browser context closed (gone already where the browser went away)."""
    if tabs is not None:
        try:
            await tabs.context.close()
        except Exception as exc:
            log.debug("context close: %s", exc)


# Episodes being ended on the loop (held until done: the loop keeps weak references).
ENDING: set[asyncio.Task[None]] = set()


def describe(ref: TaskRef) -> dict[str, Any]:
    """A task as the task API lists it: its name, suite, site and goal."""
    goal = ref.task["test_data"]["task"]
    return {"task_id": ref.name, "suite": ref.suite, "site": ref.site, "goal": goal}


def seen(event: Event) -> EventSeen:
    return EventSeen(
        seq=event.get("seq"),
        site=str(event.get("site", "")),
        type=str(event.get("type", "")),
        source=str(event.get("source", "")),
        params=dict(event.get("params") or {}),
    )


def metadata(verdict: Verdict, state: WebpagebenchState) -> dict[str, Any]:
    """What a trainer logs beside the reward: the conditions met (not what they ask), the
    side effects, the task and its trajectory."""
    return {
        "task_id": state.task_id,
        "trajectory_id": state.trajectory_id,
        "conditions_met": [r.success for r in verdict.conditions],
        "side_effects": [e.reason for e in verdict.side_effects or []],
    }


async def snapshot(page: Any) -> str:
    try:
        return str(await page.aria_snapshot(mode="ai", timeout=shared.LOAD_TIMEOUT_MS))
    except Exception as exc:
        return f"(the tree could not be read: {shared.short(str(exc), 200)})"


async def title(page: Any) -> str:
    try:
        return str(await page.title())
    except Exception:
        return ""
