"""`runner eval`: one trajectory per task, the harness in between, check(), a run directory."""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import json
import platform
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, async_playwright

from runner import browser as chromium
from runner.harness import AgentConfig, Episode, Harness, InfraError
from runner.prices import Price
from runner.prices import cost as prices_cost
from runner.request import RunPlan
from runner.settings import RunnerSettings
from runner.wait import WaitTimeout, until_async
from services.core.results.stats import repeats
from services.core.tasks import load_task, task_files
from services.core.variants import defaults, resolve


class StandNotReady(RuntimeError):
    """The stand an evaluation was to run on is not ready: nothing was run."""


RETRIES = 2  # extra attempts after an infrastructure failure
UNSCORED = ("infra_error", "task_error")  # neither is the agent's failure
GRACE_S = 15  # past the time limit, for a harness to stop and say so itself


@dataclass
class TaskRef:
    name: str
    path: Path
    task: dict[str, Any]

    @property
    def site(self) -> str:
        return str(self.task["test_data"].get("bench_first_domain") or "?")

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
        return str((self.task["test_data"].get("ui_taxonomy") or {}).get("primary", "?"))

    @property
    def controls(self) -> dict[str, str]:
        """The controls rendered otherwise than by default on the task's first site (a
        variant's one changed control, or its profile's few): key -> implementation."""
        chosen = resolve(self.task["test_data"], self.task.get("domain_configs") or {})
        standard = defaults(self.site)
        return {k: v for k, v in chosen.get(self.site, {}).items() if standard.get(k) != v}


def select_tasks(tasks_dir: Path, pattern: str | None, limit: int | None) -> list[TaskRef]:
    """Tasks matching any comma-separated part: a task's exact name selects that task, a
    site name its tasks, a glob (`*`, `?`) the names it matches, anything else the names
    that contain it."""
    refs = [TaskRef(p.stem, p, load_task(p)) for p in task_files(tasks_dir)]
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


def task_set_hash(refs: list[TaskRef]) -> str:
    digest = hashlib.sha256()
    for ref in refs:
        digest.update(ref.name.encode() + b"\0" + ref.path.read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class StandState:
    """What `/api/status` says of the stand: ready or not, the supervisor's restart counts,
    and each service that is not ready with why."""

    ready: bool
    restarts: dict[str, int]
    down: dict[str, str]


class Hub:
    """The runner's side of the trajectory API."""

    def __init__(self, url: str, token: str) -> None:
        self.client = httpx.AsyncClient(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60
        )
        # How long the run, and then each attempt, waits for the stand to be ready.
        self.ready_wait = RunnerSettings().ready_wait_s

    async def call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            answer = await self.client.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise InfraError(f"hub unreachable: {exc}") from exc
        if answer.status_code >= 500:
            raise InfraError(f"hub {method} {path}: {answer.status_code} {answer.text[:200]}")
        if answer.status_code >= 400:
            raise ValueError(f"hub {method} {path}: {answer.status_code} {answer.text[:500]}")
        return answer.json()

    async def stand(self) -> StandState:
        """Whether every service is ready (which are not, and why), and the restarts the
        stack's supervisor counted."""
        try:
            answer = await self.client.get("/api/status", timeout=10)
            body = answer.json()
        except (httpx.TransportError, ValueError) as exc:
            return StandState(False, {}, {"hub": f"unreachable ({type(exc).__name__})"})
        down = {
            name: str(item.get("error") or "not ready")
            for name, item in (body.get("services") or {}).items()
            if not item.get("ready")
        }
        return StandState(answer.status_code == 200, dict(body.get("restarts") or {}), down)

    async def ready(self) -> dict[str, int]:
        """Wait until the stand is ready; its restart counts then. InfraError past
        `ready_wait`, naming each service that is not ready and why."""
        last = StandState(False, {}, {})

        async def ready() -> StandState | None:
            nonlocal last
            last = await self.stand()
            return last if last.ready else None

        try:
            return (await until_async(ready, self.ready_wait, "the stand ready", 0.5)).restarts
        except WaitTimeout:
            down = "; ".join(f"{name}: {why}" for name, why in last.down.items())
            raise InfraError(
                f"the stand was not ready within {self.ready_wait:.0f}s ({down})"
            ) from None

    async def fault(self, tid: str, restarts_before: dict[str, int]) -> str | None:
        """Why the stand, not the agent, may have failed this trajectory: a 5xx the hub
        answered the agent, a service restarted, or a service not ready; None when none."""
        faults = (await self.call("GET", f"/api/trajectories/{tid}")).get("infra_faults") or []
        if faults:
            seen = ", ".join(f"{f['status']} for {f['domain']}" for f in faults[:5])
            return f"the hub answered the agent {seen}"
        stand = await self.stand()
        restarted = sorted(n for n, c in stand.restarts.items() if c != restarts_before.get(n, 0))
        if restarted:
            return f"restarted during the task: {', '.join(restarted)}"
        return None if stand.ready else "the stand was not ready after the task"

    async def close(self) -> None:
        await self.client.aclose()


@dataclass
class RunContext:
    """What every episode of a run shares."""

    hub: Hub
    harness: Harness
    browser: Browser | None
    time_limit: float
    out_dir: Path
    agent: AgentConfig = field(default_factory=AgentConfig)
    prices: dict[str, Price] = field(default_factory=dict)
    chromium: str | None = None


async def run_one(
    run: RunContext, ref: TaskRef, created: dict[str, Any], create_s: float
) -> dict[str, Any]:
    """One attempt on the trajectory `created` for it (in `create_s` seconds)."""
    hub, harness, time_limit = run.hub, run.harness, run.time_limit
    clock = time.monotonic()
    tid = created["trajectory_id"]
    meta = await hub.call("GET", f"/api/trajectories/{tid}")
    phases = {"create": create_s + time.monotonic() - clock}
    episode = Episode(
        task_id=ref.name,
        prompt=created["prompt"],
        url=created["url"],
        first_domain=meta.get("first_domain"),
        time_limit_s=time_limit,
        browser=run.browser,
        conditions=meta["conditions"],
        model=run.agent.model,
        agent=run.agent,
        output_dir=run.out_dir / "episodes" / tid,
        chromium=run.chromium,
    )
    started = time.monotonic()
    status, error = "ok", None
    try:
        # An agent harness enforces the limit itself, killing its process; this is the
        # backstop for harnesses in the runner's process.
        outcome = await asyncio.wait_for(harness.run(episode), time_limit + GRACE_S)
    except TimeoutError:
        outcome, status, error = None, "timeout", f"no answer within {time_limit:.0f}s"
    except InfraError:
        raise
    except Exception as exc:  # the agent's (or solver's) own failure: scored as such
        outcome, status, error = None, "agent_error", f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    phases["agent"] = seconds
    if outcome is not None and outcome.status != "ok":
        status, error = outcome.status, outcome.error
    completion = bool(outcome and outcome.completion)
    usage = outcome.usage if outcome else {}
    cost, priced = prices_cost(run.prices, usage) if usage else (0.0, True)
    clock = time.monotonic()
    await hub.call(
        "POST",
        f"/api/trajectories/{tid}/close",
        json={
            "completion": completion,
            "final_message": outcome.final_message if outcome else "",
        },
    )
    phases["close"] = time.monotonic() - clock
    clock = time.monotonic()
    verdict = await hub.call("GET", f"/api/trajectories/{tid}/check")
    phases["check"] = time.monotonic() - clock
    ems = int(verdict["ems"])
    return {
        "task": ref.name,
        "site": ref.site,
        "ui_primary": ref.ui_primary,
        "variant": ref.is_variant,
        "donor": ref.donor,
        "profile": ref.profile,
        "controls": ref.controls,
        "trajectory_id": tid,
        "date_shift_days": created["date_shift_days"],
        "ems": ems,
        "completion": int(completion),
        "done_and_pass": int(completion and ems == 1),
        "passed": verdict["passed"],
        "total": verdict["total"],
        "conditions": verdict["conditions"],
        "unprompted": len(verdict["unprompted"]),
        "status": status,
        "error": error,
        "final_message": outcome.final_message if outcome else "",
        "steps": outcome.steps if outcome else 0,
        "seconds": round(seconds, 3),
        "phases": {name: round(value, 4) for name, value in phases.items()},
        "tokens": (
            sum(u.get("input_tokens", 0) + u.get("output_tokens", 0) for u in usage.values())
            if usage
            else (outcome.tokens if outcome else 0)
        ),
        "usage": usage,
        "model_calls": sum(u.get("calls", 0) for u in usage.values()),
        "cost": cost if usage else (outcome.cost if outcome else 0.0),
        "priced": priced,
        "episode": f"episodes/{tid}"
        if episode.output_dir and episode.output_dir.exists()
        else None,
    }


async def run_with_retries(run: RunContext, ref: TaskRef) -> dict[str, Any]:
    """The task on a ready stand, again on a new trajectory after an infrastructure failure:
    the hub's or the harness's own (InfraError), a 5xx the hub answered the agent, or a
    service that restarted or was not ready during the attempt. Whatever the harness says,
    such an attempt is `infra_error`, never scored; `infra_errors` lists each."""
    status, last_error = "infra_error", ""
    lost: list[dict[str, Any]] = []
    for attempt in range(1 + RETRIES):
        tid = None
        try:
            restarts = await run.hub.ready()
            clock = time.monotonic()
            created = await run.hub.call(
                "POST", "/api/trajectories", json={"task": ref.task, "task_id": ref.name}
            )
            tid = created["trajectory_id"]
            record = await run_one(run, ref, created, time.monotonic() - clock)
            fault = await run.hub.fault(tid, restarts)
            if fault:
                raise InfraError(fault)
            record["attempts"] = attempt + 1
            record["infra_errors"] = lost
            return record
        except InfraError as exc:
            status, last_error = "infra_error", str(exc)
            lost.append({"trajectory_id": tid, "error": last_error})
            await asyncio.sleep(1 + attempt)
        except ValueError as exc:  # the stand refused the task itself
            status, last_error = "task_error", str(exc)
            break
    return {
        "task": ref.name,
        "site": ref.site,
        "ui_primary": ref.ui_primary,
        "variant": ref.is_variant,
        "donor": ref.donor,
        "profile": ref.profile,
        "controls": ref.controls,
        "status": status,
        "error": last_error,
        "attempts": attempt + 1,
        "infra_errors": lost,
        "ems": None,
        "completion": None,
        "done_and_pass": None,
        "conditions": [],
        "steps": 0,
        "seconds": 0.0,
        "tokens": 0,
        "usage": {},
        "model_calls": 0,
        "cost": 0.0,
        "priced": True,
        "final_message": "",
    }


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Means over scored records (infrastructure failures excluded), overall and by facet."""

    def block(rows: list[dict[str, Any]]) -> dict[str, Any]:
        scored = [r for r in rows if r["status"] not in UNSCORED]
        n = len(scored)

        def mean(key: str) -> float | None:
            return round(sum(r[key] for r in scored) / n, 4) if n else None

        return {
            "tasks": len(rows),
            "scored": n,
            "unscored": len(rows) - n,
            # Infrastructure failures, apart: tasks that never got a clean attempt, and
            # attempts lost to the stand and run again.
            "infra_errors": sum(r["status"] == "infra_error" for r in rows),
            "infra_retries": sum(len(r.get("infra_errors", [])) for r in rows),
            "ems": mean("ems"),
            "completion": mean("completion"),
            "done_and_pass": mean("done_and_pass"),
            "steps": mean("steps"),
            "seconds": mean("seconds"),
            # pass@k, pass^k and agreement over a task's attempts (`runner eval --repeat`).
            **repeats(scored),
            "totals": {
                "steps": sum(r["steps"] for r in rows),
                "seconds": round(sum(r["seconds"] for r in rows), 3),
                "tokens": sum(r.get("tokens", 0) for r in rows),
                "model_calls": sum(r.get("model_calls", 0) for r in rows),
                "cost": round(sum(r.get("cost", 0.0) for r in rows), 6),
                "priced": all(r.get("priced", True) for r in rows),
            },
        }

    def by(key: Callable[[dict[str, Any]], str]) -> dict[str, Any]:
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in records:
            groups[key(record)].append(record)
        return {name: block(rows) for name, rows in sorted(groups.items())}

    summary = {
        "overall": block(records),
        "by_site": by(lambda r: r["site"]),
        "by_ui_primary": by(lambda r: r["ui_primary"]),
        "canonical_vs_variant": by(lambda r: "variant" if r["variant"] else "canonical"),
    }
    summary["paired_variants"] = paired(records)
    return summary


def paired(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Each variant against its donor in the same run (attempt with attempt): where the
    widget, not the task, fails."""
    donors = {
        (r["task"], r["repeat"]): r
        for r in records
        if not r["variant"] and r["status"] not in UNSCORED
    }
    pairs = [
        (donors[r["donor"], r["repeat"]], r)
        for r in records
        if r["variant"] and r["status"] not in UNSCORED and (r["donor"], r["repeat"]) in donors
    ]
    if not pairs:
        return {"pairs": 0}
    return {
        "pairs": len(pairs),
        "donor_ems": round(sum(d["ems"] for d, _ in pairs) / len(pairs), 4),
        "variant_ems": round(sum(v["ems"] for _, v in pairs) / len(pairs), 4),
        "donor_pass_variant_fail": sorted(
            {v["task"] for d, v in pairs if d["ems"] and not v["ems"]}
        ),
        "donor_fail_variant_pass": sorted(
            {v["task"] for d, v in pairs if v["ems"] and not d["ems"]}
        ),
    }


async def evaluate(
    hub_url: str,
    token: str,
    harness: Harness,
    refs: list[TaskRef],
    out_dir: Path,
    plan: RunPlan,
    on_record: Callable[[dict[str, Any]], None],
    agent: AgentConfig | None = None,
    prices: dict[str, Price] | None = None,
) -> dict[str, Any]:
    """Each of `refs` `plan.repeat` times (records keep the attempt number as `repeat`).
    Refuses (StandNotReady) a stand that is not ready within WPB_READY_WAIT_S, before any
    attempt."""
    workers, time_limit, today, repeat = plan.workers, plan.time_limit, plan.today, plan.repeat
    hub = Hub(hub_url, token)
    try:
        await hub.ready()
    except InfraError as exc:
        await hub.close()
        raise StandNotReady(f"{exc}; see runner status") from None
    agent = agent or AgentConfig()
    out_dir.mkdir(parents=True, exist_ok=True)
    records: list[dict[str, Any]] = []
    async with async_playwright() as playwright:
        browser = await chromium.launch(playwright) if harness.needs_browser else None
        run = RunContext(
            hub,
            harness,
            browser,
            time_limit,
            out_dir,
            agent,
            prices or {},
            chromium.executable(playwright),
        )
        backend = getattr(harness, "backend", None) or {"kind": "local"}
        manifest = {
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "harness": harness.name,
            "model": agent.model,
            "agent": {
                "base_url": agent.base_url,
                "api_key_env": agent.api_key_env,
                "temperature": agent.temperature,
                "max_steps": agent.max_steps,
                "options": agent.options,
                "command": agent.command,
            },
            "prices": sorted(run.prices),
            "tasks": len(refs),
            "repeat": repeat,
            "task_set_hash": task_set_hash(refs),
            "task_names": [r.name for r in refs],
            # Where the agents ran: `local` (processes, the runner's Chromium) or the docker
            # backend's images, network and limits.
            "backend": backend,
            "browser": f"chromium {browser.version}"
            if browser
            else f"chromium in {backend['images']['browser']}"
            if backend["kind"] == "docker"
            else run.chromium,
            "viewport": chromium.VIEWPORT,
            "locale": chromium.LOCALE,
            "timezone": chromium.TIMEZONE,
            "today": today,
            "workers": workers,
            "time_limit_s": time_limit,
            "hub": hub_url,
            "versions": {
                "webpagebench": _version(),
                "python": platform.python_version(),
                "playwright": _version("playwright"),
            },
        }
        (out_dir / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1))
        queue: asyncio.Queue[tuple[TaskRef, int]] = asyncio.Queue()
        for number in range(1, repeat + 1):
            for ref in refs:
                queue.put_nowait((ref, number))
        with (out_dir / "records.jsonl").open("w", encoding="utf-8") as sink:

            async def worker() -> None:
                while not queue.empty():
                    ref, number = queue.get_nowait()
                    record = {**await run_with_retries(run, ref), "repeat": number}
                    records.append(record)
                    sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                    sink.flush()
                    on_record(record)

            await asyncio.gather(*(worker() for _ in range(max(1, workers))))
        if browser:
            await browser.close()
    await hub.close()
    order = {ref.name: i for i, ref in enumerate(refs)}
    records.sort(key=lambda r: (order[r["task"]], r["repeat"]))
    summary = summarize(records)
    (out_dir / "summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    return {"manifest": manifest, "records": records, "summary": summary}


def _version(package: str = "webpagebench") -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"
