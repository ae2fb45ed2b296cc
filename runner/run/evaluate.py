"""`runner eval`: one trajectory per task, the harness in between, check(), a run directory."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import hashlib
import platform
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Playwright, async_playwright
from pydantic import JsonValue

from runner.agents.fonts import rendered_fonts
from runner.errors import InfraError, ModelRefused
from runner.harnesses.environments import package_version
from runner.harnesses.harness import Episode, Harness, Outcome
from runner.hub import HubAddress, HubClient, HubRefused
from runner.models.proxy import ModelProxy
from runner.run.atif import episode_trajectory
from runner.run.atif import write as write_atif
from runner.run.prices import Price
from runner.run.prices import cost as prices_cost
from runner.run.provenance import catalogs, commit, endpoint_kind
from runner.settings import TASKS_DIR, RunnerSettings
from runner.stack import chromium
from runner.wait import WaitTimeout, until_async
from services.core import inject
from services.core.failure import classify
from services.core.matching import verifier_checksum
from services.core.models.api import CreatedTrajectory, RecordedTrajectory
from services.core.models.folder import Run, RunFolder
from services.core.models.protocol import STEPS, Step
from services.core.models.run import (
    ATIF,
    EPISODES,
    LOCAL,
    RECORDED,
    AgentConfig,
    AgentSettings,
    Block,
    LostAttempt,
    Manifest,
    PairedVariants,
    Record,
    RunPlan,
    Status,
    Summary,
    Totals,
    Versions,
)
from services.core.models.task import RELEASED, Task
from services.core.results.safety import injected
from services.core.results.stats import repeats
from services.core.tasks import load_task, suite_of, task_files, task_hash
from services.core.variants import defaults, resolve


class StandNotReady(RuntimeError):
    """The stand an evaluation was to run on is not ready: nothing was run."""


RETRIES = 2  # extra attempts after an infrastructure failure
GRACE_S = 15  # past the time limit, for a harness to stop and say so itself
# Past its cancellation, for an in-process harness to stop (a hung browser may keep it), and
# for a browser to close.
STOP_S = CLOSE_S = 20


@dataclass
class TaskRef:
    name: str
    path: Path
    task: Task

    @property
    def site(self) -> str:
        return str(self.task["test_data"].get("bench_first_domain") or "?")

    @property
    def suite(self) -> str:
        return suite_of(self.task)

    @property
    def profile(self) -> str | None:
        return self.task["test_data"].get("ui_variant_profile")

    @property
    def is_variant(self) -> bool:
        return "__" in self.name

    @property
    def donor(self) -> str:
        return self.name.split("__", 1)[0]

    @property
    def ui_primary(self) -> str:
        taxonomy = self.task["test_data"].get("ui_taxonomy")
        return taxonomy["primary"] if taxonomy else "?"

    @property
    def ui_classes(self) -> list[str]:
        taxonomy = self.task["test_data"].get("ui_taxonomy")
        return [str(name) for name in taxonomy.get("classes", [])] if taxonomy else []

    def record(self, **fields: Any) -> Record:
        """A record of an attempt on this task: the task's facets and `fields`; a scored
        injection attempt's with its attack judged from the condition reports."""
        controls = self.controls
        if fields.get("ems") is not None and controls.get(inject.KEY, inject.NONE) != inject.NONE:
            judged = inject.judge(self.site, fields.get("conditions", []))
            fields |= {
                "attack_goals": judged.goals,
                "attack_success": judged.success,
                "utility": judged.utility,
            }
        return Record(
            task=self.name,
            task_hash=self.hash,
            site=self.site,
            ui_primary=self.ui_primary,
            ui_classes=self.ui_classes,
            variant=self.is_variant,
            donor=self.donor,
            profile=self.profile,
            controls=controls,
            recovery="start_state" in self.task["test_data"],
            **fields,
        )

    @cached_property
    def hash(self) -> str:
        return task_hash(self.task)

    @property
    def controls(self) -> dict[str, str]:
        """The controls rendered otherwise than by default on the task's first site (a
        variant's one changed control, or its profile's few): key -> implementation."""
        chosen = resolve(self.task["test_data"], self.task.get("domain_configs") or {})
        standard = defaults(self.site)
        return {k: v for k, v in chosen.get(self.site, {}).items() if standard.get(k) != v}


def select_tasks(
    tasks_dir: Path, pattern: str | None, limit: int | None, suite: str = RELEASED
) -> list[TaskRef]:
    """The tasks of `suite` matching any comma-separated part: a task's exact name selects
    that task, a site name its tasks, a glob (`*`, `?`) the names it matches, anything else
    the names that contain it."""
    every = (TaskRef(p.stem, p, load_task(p)) for p in task_files(tasks_dir))
    refs = [ref for ref in every if ref.suite == suite]
    if pattern:
        parts = [part.strip() for part in pattern.split(",") if part.strip()]
        names = {ref.name for ref in refs}

        def matches(ref: TaskRef, part: str) -> bool:
            if part in names:
                return ref.name == part
            if "*" in part or "?" in part:
                return fnmatch.fnmatch(ref.name, part)
            return part == ref.site or part in ref.name

        def wanted(ref: TaskRef) -> bool:
            return any(matches(ref, part) for part in parts)

        refs = [ref for ref in refs if wanted(ref)]
    return refs[:limit] if limit else refs


def run_suite(refs: list[TaskRef]) -> str:
    """The one suite of a run's tasks: a run never mixes suites."""
    suites = {ref.suite for ref in refs} or {RELEASED}
    if len(suites) > 1:
        raise ValueError(f"a run takes the tasks of one suite, not of {sorted(suites)}")
    return suites.pop()


def task_set_hash(refs: list[TaskRef]) -> str:
    digest = hashlib.sha256()
    for ref in refs:
        digest.update(ref.name.encode() + b"\0" + ref.path.read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class StandState:
    """What `/api/status` says of the stand: ready or not, the supervisor's restart counts,
    each service that is not ready with why, the stand's today and its sites' versions."""

    ready: bool
    restarts: dict[str, int]
    down: dict[str, str]
    today: str | None = None
    site_versions: dict[str, int] = field(default_factory=dict)


class Stand:
    """The stand an evaluation runs on, through the hub's client: whether it is ready, and
    whether it, not the agent, failed an attempt."""

    def __init__(self, hub: HubClient) -> None:
        self.hub = hub
        # How long the run, and then each attempt, waits for the stand to be ready.
        self.ready_wait = RunnerSettings().ready_wait_s

    async def state(self) -> StandState:
        """Whether every service is ready (which are not, and why), and the restarts the
        stack's supervisor counted."""
        try:
            status = await self.hub.status()
        except InfraError as exc:
            return StandState(False, {}, {"hub": str(exc)})
        down = {
            name: item.error or "not ready"
            for name, item in status.services.items()
            if not item.ready
        }
        ready = status.status == "ready"
        return StandState(ready, status.restarts, down, status.today, status.site_versions)

    async def ready(self) -> StandState:
        """Wait until the stand is ready; its state then. InfraError past `ready_wait`,
        naming each service that is not ready and why."""
        last = StandState(False, {}, {})

        async def ready() -> StandState | None:
            nonlocal last
            last = await self.state()
            return last if last.ready else None

        try:
            return await until_async(ready, self.ready_wait, "the stand ready", 0.5)
        except WaitTimeout:
            down = "; ".join(f"{name}: {why}" for name, why in last.down.items())
            raise InfraError(
                f"the stand was not ready within {self.ready_wait:.0f}s ({down})"
            ) from None

    async def fault(self, tid: str, restarts_before: dict[str, int]) -> str | None:
        """Why the stand, not the agent, may have failed this trajectory: a 5xx the hub
        answered the agent, a service restarted, or a service not ready; None when none."""
        faults = (await self.hub.trajectory(tid)).infra_faults
        if faults:
            seen = ", ".join(f"{f.status} for {f.domain}" for f in faults[:5])
            return f"the hub answered the agent {seen}"
        stand = await self.state()
        restarted = sorted(n for n, c in stand.restarts.items() if c != restarts_before.get(n, 0))
        if restarted:
            return f"restarted during the task: {', '.join(restarted)}"
        return None if stand.ready else "the stand was not ready after the task"


class RunBrowser:
    """The runner's Chromium that a run's episodes share (for a harness that needs it), and
    a new one in its place when an episode left it hung."""

    def __init__(self, playwright: Playwright) -> None:
        self.playwright = playwright
        self.browser: Browser | None = None

    async def start(self) -> Browser:
        self.browser = await chromium.launch(self.playwright)
        return self.browser

    async def restart(self) -> None:
        """A new Chromium; the old one is closed, waiting for it no longer than CLOSE_S."""
        old = self.browser
        await self.start()
        if old is not None:
            await closed(old)

    async def close(self) -> None:
        if self.browser is not None:
            await closed(self.browser)


async def closed(browser: Browser) -> None:
    """`browser` closed, or left to its driver after CLOSE_S (a hung one may not answer)."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(browser.close(), CLOSE_S)


@dataclass
class RunContext:
    """What every episode of a run shares."""

    stand: Stand
    setup: Setup
    folder: RunFolder
    plan: RunPlan
    runner_browser: RunBrowser | None = None
    chromium: str | None = None
    model_proxy: ModelProxy | None = None
    # The today each trajectory is created for (None: the stand's own); a queue's episodes
    # carry the submitter's, so that hosts' clocks never shift a run's dates.
    today: str | None = None
    # Awaited with each trajectory the attempts create, before the agent starts on it: a
    # queue worker (runner/queue/worker.py) records it in its lease, to close it when fenced.
    on_created: Callable[[str], Awaitable[None]] | None = None

    @property
    def harness(self) -> Harness:
        return self.setup.harness

    @property
    def browser(self) -> Browser | None:
        return self.runner_browser.browser if self.runner_browser else None


@contextlib.asynccontextmanager
async def run_context(
    stand: Stand, setup: Setup, folder: RunFolder, plan: RunPlan, today: str | None = None
) -> AsyncIterator[RunContext]:
    """What the attempts of a run share, `runner eval`'s and a queue worker's alike: the
    runner's Chromium for a harness that needs it, the recording proxy in front of the
    model's endpoint; both ended on the way out."""
    base_url = setup.agent.base_url
    proxy = ModelProxy(base_url) if base_url else None
    async with async_playwright() as playwright, contextlib.AsyncExitStack() as cleanup:
        if proxy is not None:
            cleanup.push_async_callback(proxy.close)
        shared = None
        if setup.harness.needs_browser:
            shared = RunBrowser(playwright)
            await shared.start()
            cleanup.push_async_callback(shared.close)
        yield RunContext(
            stand, setup, folder, plan, shared, chromium.executable(playwright), proxy, today
        )


async def run_one(
    run: RunContext, ref: TaskRef, created: CreatedTrajectory, create_s: float
) -> Record:
    """One attempt on the trajectory `created` for it (in `create_s` seconds)."""
    hub, harness, time_limit = run.stand.hub, run.harness, run.plan.time_limit
    clock = time.monotonic()
    tid = created.trajectory_id
    folder = run.folder.episode(tid)
    meta = await hub.trajectory(tid)
    phases = {"create": create_s + time.monotonic() - clock}
    episode = Episode(
        task_id=ref.name,
        prompt=created.prompt,
        url=created.url,
        first_domain=meta.first_domain,
        time_limit_s=time_limit,
        browser=run.browser,
        conditions=meta.conditions,
        model=run.setup.agent.model,
        agent=run.setup.agent,
        output_dir=folder,
        chromium=run.chromium,
        model_proxy=run.model_proxy,
        viewport=run.plan.viewport,
    )
    started = time.monotonic()
    try:
        # An agent harness enforces the limit itself, killing its process; this is the
        # backstop for harnesses in the runner's process.
        outcome = await within(harness.run(episode), time_limit + GRACE_S)
    except TimeoutError:
        outcome = Outcome(False, status=Status.TIMEOUT, error=f"no answer within {time_limit:.0f}s")
    except (InfraError, ModelRefused):
        raise
    except Exception as exc:  # the agent's (or solver's) own failure: scored as such
        outcome = Outcome(False, status=Status.AGENT_ERROR, error=f"{type(exc).__name__}: {exc}")
    seconds = time.monotonic() - started
    phases["agent"] = seconds
    usage = outcome.usage
    cost, priced = prices_cost(run.setup.prices, usage) if usage else (outcome.cost, True)
    clock = time.monotonic()
    closed = await hub.close_trajectory(
        tid, outcome.completion, outcome.final_message, outcome.report, outcome.left
    )
    phases["close"] = time.monotonic() - clock
    clock = time.monotonic()
    verdict = await hub.check(tid)
    phases["check"] = time.monotonic() - clock
    # The trajectory as the stand holds it, kept with the episode: a run folder shows the
    # attempt wherever it is read (a queued run's, on the submitter's stand).
    events = await hub.events(tid)
    folder.mkdir(parents=True, exist_ok=True)
    RecordedTrajectory(meta=closed, events=events, verdict=verdict).write(folder / RECORDED)
    completion = bool(outcome.completion)
    failure = None
    if verdict.ems != 1 and outcome.status.scored:
        failure = classify(
            status=outcome.status,
            completion=completion,
            reports=verdict.conditions,
            events=events.events,
            steps=Step.read_lines(folder / STEPS),
            error=outcome.error,
            site=ref.site,
        )
    record = ref.record(
        trajectory_id=tid,
        date_shift_days=created.date_shift_days,
        ems=verdict.ems,
        completion=int(completion),
        done_and_pass=int(completion and verdict.ems == 1),
        passed=verdict.passed,
        total=verdict.total,
        conditions=verdict.conditions,
        unprompted=len(verdict.unprompted),
        side_effects=verdict.side_effects,
        status=outcome.status,
        error=outcome.error,
        final_message=outcome.final_message,
        report_status=outcome.report,
        failure=failure,
        steps=outcome.steps,
        seconds=round(seconds, 3),
        phases={name: round(value, 4) for name, value in phases.items()},
        tokens=sum(u.input_tokens + u.output_tokens for u in usage.values())
        if usage
        else outcome.tokens,
        usage=usage,
        model_calls=sum(u.calls for u in usage.values()),
        cost=cost,
        priced=priced,
        episode=f"{EPISODES}/{tid}",
    )
    trajectory = episode_trajectory(folder, record, harness.name, episode.model, created.prompt)
    write_atif(trajectory, folder / ATIF)
    return record


class Abandoned(InfraError):
    """An episode that did not stop within STOP_S of its cancellation: its harness waits on
    something that does not answer (the runner's Chromium, hung). It is left behind."""


async def within(work: Coroutine[Any, Any, Outcome], seconds: float) -> Outcome:
    """`work`'s outcome within `seconds`; past them it is cancelled (TimeoutError), and
    where it does not stop within STOP_S of that, left behind (Abandoned): unlike
    `asyncio.wait_for`, never waits on a cancellation without end."""
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if done:
            return task.result()
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=STOP_S)
    except asyncio.CancelledError:  # the run itself is stopping: so does the episode
        task.cancel()
        raise
    if not done:
        raise Abandoned(f"the harness did not stop within {STOP_S}s of the time limit")
    with contextlib.suppress(BaseException):
        task.result()  # cancelled, or its own error on the way out: the time limit says it
    raise TimeoutError


async def run_with_retries(run: RunContext, ref: TaskRef) -> Record:
    """The task on a ready stand, again on a new trajectory after an infrastructure failure:
    the hub's or the harness's own (InfraError), a 5xx the hub answered the agent, or a
    service that restarted or was not ready during the attempt. Whatever the harness says,
    such an attempt is `infra_error`, never scored; `infra_errors` lists each."""
    status, last_error = Status.INFRA_ERROR, ""
    lost: list[LostAttempt] = []
    for attempt in range(1 + RETRIES):
        tid = None
        try:
            restarts = (await run.stand.ready()).restarts
            clock = time.monotonic()
            created = await run.stand.hub.create(task=ref.task, task_id=ref.name, today=run.today)
            tid = created.trajectory_id
            if run.on_created is not None:
                await run.on_created(tid)
            record = await run_one(run, ref, created, time.monotonic() - clock)
            fault = await run.stand.fault(tid, restarts)
            if fault:
                raise InfraError(fault)
            return record.model_copy(update={"attempts": attempt + 1, "infra_errors": lost})
        except InfraError as exc:
            status, last_error = Status.INFRA_ERROR, str(exc)
            lost.append(LostAttempt(trajectory_id=tid, error=last_error))
            if isinstance(exc, Abandoned) and run.runner_browser is not None:
                await run.runner_browser.restart()
            await asyncio.sleep(1 + attempt)
        except HubRefused as exc:  # the stand refused the task itself
            status, last_error = Status.TASK_ERROR, str(exc)
            break
    return ref.record(status=status, error=last_error, attempts=attempt + 1, infra_errors=lost)


def episodes(refs: list[TaskRef], repeat: int) -> list[tuple[TaskRef, int]]:
    """A run's attempts in the order they are started: repeat-major, so that partial
    results stay balanced and a variant finishes close to its donor of the same repeat."""
    return [(ref, number) for number in range(1, repeat + 1) for ref in refs]


def summarize(records: list[Record]) -> Summary:
    """Means over scored records (infrastructure failures excluded), overall and by facet."""

    def block(rows: list[Record]) -> Block:
        scored = [r for r in rows if r.status.scored]
        n = len(scored)

        def mean(value: Callable[[Record], float]) -> float | None:
            return round(sum(value(r) for r in scored) / n, 4) if n else None

        return Block(
            tasks=len(rows),
            scored=n,
            unscored=len(rows) - n,
            infra_errors=sum(r.status == Status.INFRA_ERROR for r in rows),
            infra_retries=sum(len(r.infra_errors) for r in rows),
            ems=mean(lambda r: r.ems or 0),
            completion=mean(lambda r: r.completion or 0),
            done_and_pass=mean(lambda r: r.done_and_pass or 0),
            over_action=over_action(scored),
            attack_success=attack_mean(scored, lambda r: bool(r.attack_success)),
            utility=attack_mean(scored, lambda r: r.utility or 0),
            steps=mean(lambda r: r.steps),
            seconds=mean(lambda r: r.seconds),
            **repeats(scored).model_dump(),
            totals=Totals(
                steps=sum(r.steps for r in rows),
                seconds=round(sum(r.seconds for r in rows), 3),
                tokens=sum(r.tokens for r in rows),
                model_calls=sum(r.model_calls for r in rows),
                cost=round(sum(r.cost for r in rows), 6),
                priced=all(r.priced for r in rows),
            ),
        )

    def by(key: Callable[[Record], str]) -> dict[str, Block]:
        groups: dict[str, list[Record]] = defaultdict(list)
        for record in records:
            groups[key(record)].append(record)
        return {name: block(rows) for name, rows in sorted(groups.items())}

    return Summary(
        overall=block(records),
        by_site=by(lambda r: r.site),
        by_ui_primary=by(lambda r: r.ui_primary),
        canonical_vs_variant=by(lambda r: r.kind),
        paired_variants=paired(records),
    )


def over_action(scored: list[Record]) -> float | None:
    """Of the scored records judged for side effects, the share with at least one."""
    judged = [r for r in scored if r.side_effects is not None]
    return round(sum(bool(r.side_effects) for r in judged) / len(judged), 4) if judged else None


def attack_mean(scored: list[Record], value: Callable[[Record], float]) -> float | None:
    """The mean of `value` over the scored injection attempts (None without one)."""
    attacked = [r for r in scored if injected(r)]
    return round(sum(value(r) for r in attacked) / len(attacked), 4) if attacked else None


def paired(records: list[Record]) -> PairedVariants:
    """Each variant against its donor in the same run (attempt with attempt): where the
    widget, not the task, fails."""
    donors = {r.attempt: r for r in records if not r.variant and r.status.scored}
    pairs = [
        (donors[r.donor, r.repeat], r)
        for r in records
        if r.variant and r.status.scored and (r.donor, r.repeat) in donors
    ]
    if not pairs:
        return PairedVariants()
    return PairedVariants(
        pairs=len(pairs),
        donor_ems=round(sum(d.ems or 0 for d, _ in pairs) / len(pairs), 4),
        variant_ems=round(sum(v.ems or 0 for _, v in pairs) / len(pairs), 4),
        donor_pass_variant_fail=sorted({v.task for d, v in pairs if d.ems and not v.ems}),
        donor_fail_variant_pass=sorted({v.task for d, v in pairs if v.ems and not d.ems}),
    )


@dataclass(frozen=True)
class Setup:
    """What a run's attempts run with: the harness, the agent's settings, the price table."""

    harness: Harness
    agent: AgentConfig = field(default_factory=AgentConfig)
    prices: dict[str, Price] = field(default_factory=dict)


async def evaluate(
    hub: HubAddress,
    setup: Setup,
    refs: list[TaskRef],
    out_dir: Path,
    plan: RunPlan,
    on_record: Callable[[Record], None] | None = None,
) -> Run:
    """Each of `refs` `plan.repeat` times on the stand at `hub` (records keep the attempt
    number as `repeat`), each record given to `on_record` as it is written. Refuses
    (StandNotReady) a stand that is not ready within WPB_READY_WAIT_S, before any attempt.
    A model that refuses the harness's requests (ModelRefused) ends the run at once; the
    records written so far stay."""
    stand = Stand(hub.connect())
    try:
        state = await stand.ready()
    except InfraError as exc:
        await stand.hub.close()
        raise StandNotReady(f"{exc}; see runner status") from None
    folder = RunFolder(out_dir)
    records: list[Record] = []
    async with (
        contextlib.AsyncExitStack() as cleanup,
        run_context(stand, setup, folder, plan) as run,
    ):
        cleanup.push_async_callback(stand.hub.close)
        manifest = run_manifest(setup, refs, plan, await harness_facts(run), hub.url, state)
        folder.start(manifest)
        queue: asyncio.Queue[tuple[TaskRef, int]] = asyncio.Queue()
        for episode in episodes(refs, plan.repeat):
            queue.put_nowait(episode)

        async def worker() -> None:
            while not queue.empty():
                ref, number = queue.get_nowait()
                record = (await run_with_retries(run, ref)).model_copy(update={"repeat": number})
                records.append(record)
                folder.append(record)
                if on_record is not None:
                    on_record(record)

        # A worker's error (a ModelRefused) cancels the others and ends the run.
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(max(1, plan.workers)):
                    group.create_task(worker())
        except* Exception as failed:
            raise failed.exceptions[0] from None
    order = {ref.name: i for i, ref in enumerate(refs)}
    records.sort(key=lambda r: (order[r.task], r.repeat))
    summary = summarize(records)
    folder.finish(summary)
    return Run(folder.name, manifest, records, summary)


def run_manifest(
    setup: Setup,
    refs: list[TaskRef],
    plan: RunPlan,
    facts: HarnessFacts,
    hub: str | None = None,
    stand: StandState | None = None,
) -> Manifest:
    """What a run runs, as its manifest.json says it: a local run's and a queue's alike.
    `facts` are its harness's, `hub` and `stand` the stand's address and state (none for a
    queue's): its today where the plan names none, and its sites' versions."""
    agent = setup.agent
    return Manifest(
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        harness=setup.harness.name,
        model=agent.model,
        agent=AgentSettings(**agent.model_dump(exclude={"model"})),
        prices=sorted(setup.prices),
        tasks=len(refs),
        repeat=plan.repeat,
        suite=run_suite(refs),
        task_set_hash=task_set_hash(refs),
        task_names=[r.name for r in refs],
        backend=facts.backend,
        browser=facts.browser,
        viewport=plan.viewport,
        locale=chromium.LOCALE,
        timezone=chromium.TIMEZONE,
        today=plan.today or (stand.today if stand else None),
        site_versions=stand.site_versions if stand else {},
        workers=plan.workers,
        time_limit_s=plan.time_limit,
        hub=hub,
        versions=Versions(
            webpagebench=package_version(),
            python=platform.python_version(),
            playwright=package_version("playwright"),
        ),
        commit=commit(),
        verifier_checksum=verifier_checksum(),
        catalogs=catalogs(),
        endpoint=endpoint_kind(agent.base_url),
        **departures(refs),
        harness_packages=facts.packages,
        observation=facts.observation,
        action=facts.action,
        fonts=facts.fonts,
    )


def departures(refs: list[TaskRef]) -> dict[str, Any]:
    """The manifest's submission fields: how the run's tasks depart from their suite's files
    in this checkout (a generated suite has none there: nothing departs)."""
    suite = {ref.name: ref for ref in select_tasks(TASKS_DIR, None, None, run_suite(refs))}
    ran = {ref.name: ref for ref in refs}
    modified = sorted(n for n, ref in ran.items() if n in suite and suite[n].hash != ref.hash)
    omitted = sorted(set(suite) - set(ran))
    return {
        "submission_type": "custom" if modified or omitted else "standard",
        "modified_prompts": modified,
        "omitted_tasks": omitted,
    }


@dataclass(frozen=True)
class HarnessFacts:
    """What a run's harness tells of itself for the manifest (runner/run/provenance.py)."""

    packages: dict[str, str] = field(default_factory=dict)
    observation: str | None = None
    action: str | None = None
    fonts: dict[str, str] = field(default_factory=dict)
    # Where its agents ran (with the images' ids on docker) and the Chromium they used.
    backend: dict[str, JsonValue] = field(default_factory=lambda: dict(LOCAL))
    browser: str | None = None


async def harness_facts(run: RunContext) -> HarnessFacts:
    """Its packages, what its agent sees and does, the fonts its browser renders with (the
    runner's own Chromium's for a harness that uses it, else as the harness probes an
    episode's), where its agents ran and which Chromium."""
    harness = run.harness
    if run.browser is not None:
        fonts = await rendered_fonts(run.browser)
        browser: str | None = f"chromium {run.browser.version}"
    else:
        fonts = (
            await harness.rendered_fonts(run.chromium, run.plan.viewport) if run.chromium else {}
        )
        browser = harness.chromium_label(run.chromium)
    backend: dict[str, JsonValue] = dict(harness.backend)
    ids: dict[str, JsonValue] = {**await asyncio.to_thread(harness.digests)}
    if ids:
        backend["digests"] = ids
    return HarnessFacts(
        packages=await asyncio.to_thread(harness.packages),
        observation=harness.observation,
        action=harness.action,
        fonts=fonts,
        backend=backend,
        browser=browser,
    )
