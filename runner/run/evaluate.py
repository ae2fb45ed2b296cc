"""`runner eval`: one trajectory per task, the harness in between, check(), a run directory."""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import hashlib
import platform
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, async_playwright

from runner.agents.fonts import rendered_fonts
from runner.errors import InfraError, ModelRefused
from runner.harnesses.environments import package_version
from runner.harnesses.harness import Episode, Harness, Outcome
from runner.hub import HubClient, HubRefused
from runner.models.proxy import ModelProxy
from runner.run.prices import Price
from runner.run.prices import cost as prices_cost
from runner.run.provenance import commit
from runner.settings import RunnerSettings
from runner.stack import chromium
from runner.wait import WaitTimeout, until_async
from services.core import inject
from services.core.failure import classify
from services.core.models.api import CreatedTrajectory
from services.core.models.protocol import STEPS, Step
from services.core.models.run import (
    EPISODES,
    LOCAL,
    MANIFEST,
    RECORDS,
    SUMMARY,
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
    Viewport,
    record_lines,
)
from services.core.models.task import RELEASED, Task
from services.core.results.board import Run
from services.core.results.safety import injected
from services.core.results.stats import repeats
from services.core.sites import registry
from services.core.tasks import load_task, suite_of, task_files
from services.core.variants import defaults, resolve


class StandNotReady(RuntimeError):
    """The stand an evaluation was to run on is not ready: nothing was run."""


RETRIES = 2  # extra attempts after an infrastructure failure
GRACE_S = 15  # past the time limit, for a harness to stop and say so itself


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
            site=self.site,
            ui_primary=self.ui_primary,
            variant=self.is_variant,
            donor=self.donor,
            profile=self.profile,
            controls=controls,
            recovery="start_state" in self.task["test_data"],
            **fields,
        )

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
    each service that is not ready with why, and the stand's today."""

    ready: bool
    restarts: dict[str, int]
    down: dict[str, str]
    today: str | None = None


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
        return StandState(status.status == "ready", status.restarts, down, status.today)

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


@dataclass
class RunContext:
    """What every episode of a run shares."""

    stand: Stand
    harness: Harness
    browser: Browser | None
    time_limit: float
    out_dir: Path
    agent: AgentConfig = field(default_factory=AgentConfig)
    prices: dict[str, Price] = field(default_factory=dict)
    chromium: str | None = None
    model_proxy: ModelProxy | None = None
    viewport: Viewport = field(default_factory=Viewport)
    # The today each trajectory is created for (None: the stand's own); a queue's episodes
    # carry the submitter's, so that hosts' clocks never shift a run's dates.
    today: str | None = None
    # Awaited with each trajectory the attempts create, before the agent starts on it: a
    # queue worker (runner/queue/worker.py) records it in its lease, to close it when fenced.
    on_created: Callable[[str], Awaitable[None]] | None = None


@contextlib.asynccontextmanager
async def run_context(
    stand: Stand,
    harness: Harness,
    out_dir: Path,
    time_limit: float,
    agent: AgentConfig,
    prices: dict[str, Price],
    today: str | None = None,
    viewport: Viewport | None = None,
) -> AsyncIterator[RunContext]:
    """What the attempts of a run share, `runner eval`'s and a queue worker's alike: the
    runner's Chromium for a harness that needs it, the recording proxy in front of the
    model's endpoint; both ended on the way out."""
    proxy = ModelProxy(agent.base_url) if agent.base_url else None
    async with async_playwright() as playwright, contextlib.AsyncExitStack() as cleanup:
        if proxy is not None:
            cleanup.push_async_callback(proxy.close)
        browser = await chromium.launch(playwright) if harness.needs_browser else None
        if browser is not None:
            cleanup.push_async_callback(browser.close)
        yield RunContext(
            stand,
            harness,
            browser,
            time_limit,
            out_dir,
            agent,
            prices,
            chromium.executable(playwright),
            proxy,
            viewport or Viewport(),
            today,
        )


async def run_one(
    run: RunContext, ref: TaskRef, created: CreatedTrajectory, create_s: float
) -> Record:
    """One attempt on the trajectory `created` for it (in `create_s` seconds)."""
    hub, harness, time_limit = run.stand.hub, run.harness, run.time_limit
    clock = time.monotonic()
    tid = created.trajectory_id
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
        model=run.agent.model,
        agent=run.agent,
        output_dir=run.out_dir / EPISODES / tid,
        chromium=run.chromium,
        model_proxy=run.model_proxy,
        viewport=run.viewport,
    )
    started = time.monotonic()
    try:
        # An agent harness enforces the limit itself, killing its process; this is the
        # backstop for harnesses in the runner's process.
        outcome = await asyncio.wait_for(harness.run(episode), time_limit + GRACE_S)
    except TimeoutError:
        outcome = Outcome(False, status=Status.TIMEOUT, error=f"no answer within {time_limit:.0f}s")
    except (InfraError, ModelRefused):
        raise
    except Exception as exc:  # the agent's (or solver's) own failure: scored as such
        outcome = Outcome(False, status=Status.AGENT_ERROR, error=f"{type(exc).__name__}: {exc}")
    seconds = time.monotonic() - started
    phases["agent"] = seconds
    usage = outcome.usage
    cost, priced = prices_cost(run.prices, usage) if usage else (outcome.cost, True)
    clock = time.monotonic()
    await hub.close_trajectory(
        tid, outcome.completion, outcome.final_message, outcome.report, outcome.left
    )
    phases["close"] = time.monotonic() - clock
    clock = time.monotonic()
    verdict = await hub.check(tid)
    phases["check"] = time.monotonic() - clock
    completion = bool(outcome.completion)
    failure = None
    if verdict.ems != 1 and outcome.status.scored:
        sites = registry()
        failure = classify(
            status=outcome.status,
            completion=completion,
            reports=verdict.conditions,
            events=(await hub.events(tid)).events,
            steps=Step.read_lines(episode.output_dir / STEPS) if episode.output_dir else [],
            error=outcome.error,
            site=ref.site,
            writers=sites.writers,
            sites=sites.sites_of,
        )
    return ref.record(
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
        episode=f"{EPISODES}/{tid}" if episode.output_dir and episode.output_dir.exists() else None,
    )


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


async def evaluate(
    hub_url: str,
    token: str,
    harness: Harness,
    refs: list[TaskRef],
    out_dir: Path,
    plan: RunPlan,
    on_record: Callable[[Record], None],
    agent: AgentConfig | None = None,
    prices: dict[str, Price] | None = None,
) -> Run:
    """Each of `refs` `plan.repeat` times (records keep the attempt number as `repeat`).
    Refuses (StandNotReady) a stand that is not ready within WPB_READY_WAIT_S, before any
    attempt. A model that refuses the harness's requests (ModelRefused) ends the run at
    once; the records written so far stay."""
    workers, time_limit, repeat = plan.workers, plan.time_limit, plan.repeat
    stand = Stand(HubClient.connect(hub_url, token))
    try:
        state = await stand.ready()
    except InfraError as exc:
        await stand.hub.close()
        raise StandNotReady(f"{exc}; see runner status") from None
    agent = agent or AgentConfig()
    out_dir.mkdir(parents=True, exist_ok=True)
    records: list[Record] = []
    async with (
        contextlib.AsyncExitStack() as cleanup,
        run_context(
            stand, harness, out_dir, time_limit, agent, prices or {}, viewport=plan.viewport
        ) as run,
    ):
        cleanup.push_async_callback(stand.hub.close)
        backend = getattr(harness, "backend", None) or dict(LOCAL)
        if (digests := getattr(harness, "digests", None)) is not None:
            backend = {**backend, "digests": await asyncio.to_thread(digests)}
        manifest = run_manifest(
            harness.name,
            agent,
            run.prices,
            refs,
            plan,
            backend,
            browser_label(harness, run.browser, run.chromium),
            hub_url,
            state.today,
            await harness_facts(run),
        )
        manifest.write(out_dir / MANIFEST)
        queue: asyncio.Queue[tuple[TaskRef, int]] = asyncio.Queue()
        for episode in episodes(refs, repeat):
            queue.put_nowait(episode)
        with (out_dir / RECORDS).open("w", encoding="utf-8") as sink:

            async def worker() -> None:
                while not queue.empty():
                    ref, number = queue.get_nowait()
                    record = (await run_with_retries(run, ref)).model_copy(
                        update={"repeat": number}
                    )
                    records.append(record)
                    sink.write(record_lines([record]))
                    sink.flush()
                    on_record(record)

            # A worker's error (a ModelRefused) cancels the others and ends the run.
            try:
                async with asyncio.TaskGroup() as group:
                    for _ in range(max(1, workers)):
                        group.create_task(worker())
            except* Exception as failed:
                raise failed.exceptions[0] from None
    order = {ref.name: i for i, ref in enumerate(refs)}
    records.sort(key=lambda r: (order[r.task], r.repeat))
    summary = summarize(records)
    summary.write(out_dir / SUMMARY)
    return Run(out_dir.name, manifest, records, summary)


def run_manifest(
    harness: str,
    agent: AgentConfig,
    prices: dict[str, Price],
    refs: list[TaskRef],
    plan: RunPlan,
    backend: dict[str, Any],
    browser: str | None,
    hub: str | None,
    today: str | None = None,
    facts: HarnessFacts | None = None,
) -> Manifest:
    """What a run runs, as its manifest.json says it: a local run's and a queue's alike.
    `today` is the stand's where the plan names none; `facts` the harness's."""
    facts = facts or HarnessFacts()
    return Manifest(
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        harness=harness,
        model=agent.model,
        agent=AgentSettings(**agent.model_dump(exclude={"model"})),
        prices=sorted(prices),
        tasks=len(refs),
        repeat=plan.repeat,
        suite=run_suite(refs),
        task_set_hash=task_set_hash(refs),
        task_names=[r.name for r in refs],
        backend=backend,
        browser=browser,
        viewport=plan.viewport,
        locale=chromium.LOCALE,
        timezone=chromium.TIMEZONE,
        today=plan.today or today,
        workers=plan.workers,
        time_limit_s=plan.time_limit,
        hub=hub,
        versions=Versions(
            webpagebench=package_version(),
            python=platform.python_version(),
            playwright=package_version("playwright"),
        ),
        commit=commit(),
        harness_packages=facts.packages,
        observation=facts.observation,
        action=facts.action,
        fonts=facts.fonts,
    )


@dataclass(frozen=True)
class HarnessFacts:
    """What a run's harness tells of itself for the manifest (runner/run/provenance.py)."""

    packages: dict[str, str] = field(default_factory=dict)
    observation: str | None = None
    action: str | None = None
    fonts: dict[str, str] = field(default_factory=dict)


async def harness_facts(run: RunContext) -> HarnessFacts:
    """Its packages, what its agent sees and does, and the fonts its browser renders with:
    the runner's own Chromium's for a harness that uses it, else as the harness probes an
    episode's (none for one without a browser, noop)."""
    harness = run.harness
    packages = getattr(harness, "packages", None)
    probe = getattr(harness, "rendered_fonts", None)
    if run.browser is not None:
        fonts = await rendered_fonts(run.browser)
    elif probe is not None and run.chromium is not None:
        fonts = await probe(run.chromium, run.viewport)
    else:
        fonts = {}
    return HarnessFacts(
        packages=await asyncio.to_thread(packages) if packages else {},
        observation=getattr(harness, "observation", None),
        action=getattr(harness, "action", None),
        fonts=fonts,
    )


def browser_label(harness: Harness, browser: Browser | None, executable: str | None) -> str | None:
    """The Chromium the agents ran: the runner's (its version), or the docker backend's
    image, or the binary the agents launch."""
    if browser:
        return f"chromium {browser.version}"
    backend = getattr(harness, "backend", None) or {}
    if backend.get("kind") == "docker":
        return f"chromium in {backend['images']['browser']}"
    return executable
