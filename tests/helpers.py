"""Helpers the tests share (fixtures live in conftest.py)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import copy
import json
import math
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import nats
import pytest
from hypothesis import HealthCheck, Phase, settings
from playwright.sync_api import Locator, Page

from runner.chromium import VIEWPORT
from runner.hub import HubClient, Params
from runner.settings import REPO, TASKS_DIR, free_port
from runner.stack import Stack
from runner.wait import WaitTimeout, until
from services.core import perturb
from services.core.models.api import CreatedTrajectory, Verdict
from services.core.models.run import Record, Viewport
from services.core.results.board import Run
from services.core.sites import ENTRY_POINT_GROUP, registry
from services.kit import pagetoken
from services.kit.bus import NATS_USER, TRAJECTORIES_BUCKET

# The stand's frozen today in the test stack.
TODAY = "2026-11-29"


@contextlib.contextmanager
def running_stack(
    home: Path,
    sites: dict[str, str] | None = None,
    supervise: bool = False,
    hub_port: int | None = None,
) -> Iterator[Stack]:
    """A real stack (nats-server and every built site, or only `sites`) under `home`, on
    free ports (the hub on `hub_port` when given), with the stand's today frozen (and, with
    `supervise`, a dead service started again); stopped on the way out."""
    started = Stack(home, hub_port=hub_port or free_port(), today=TODAY, sites=sites)
    started.start(supervise=supervise)
    try:
        yield started
    finally:
        started.stop()


TESTS = Path(__file__).resolve().parent


@contextlib.contextmanager
def plugins(folder: Path, group: str, entries: dict[str, str], name: str) -> Iterator[None]:
    """Plug-ins installed as another package installs them: a distribution `name` declaring
    `entries` (name -> "module:attribute") in the entry-point `group`, its `.dist-info`
    written into `folder` as the images' is (deploy/sites.py), `folder` on sys.path, and
    for the processes started meanwhile on PYTHONPATH with tests/ (where their code is)."""
    declared = "".join(
        f"{json.dumps(key)} = {json.dumps(value)}\n" for key, value in entries.items()
    )
    project = folder / "pyproject.toml"
    project.write_text(
        f'[project]\nname = "{name}"\nversion = "0"\n[project.entry-points."{group}"]\n{declared}'
    )
    script = REPO / "deploy" / "sites.py"
    subprocess.run([sys.executable, script, project, folder, group], check=True)
    path = os.pathsep.join(p for p in (str(folder), str(TESTS), os.environ.get("PYTHONPATH")) if p)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder))
        patch.setenv("PYTHONPATH", path)
        yield


@contextlib.contextmanager
def site_plugins(folder: Path, entries: dict[str, str]) -> Iterator[None]:
    """Site plug-ins (`webpagebench.sites`) installed as `plugins` installs them; the
    registry is read again on the way in and on the way out."""
    try:
        with plugins(folder, ENTRY_POINT_GROUP, entries, "wpbtestsites"):
            registry.cache_clear()
            yield
    finally:
        registry.cache_clear()


@contextlib.contextmanager
def admin_client(stack: Stack) -> Iterator[httpx.Client]:
    """The runner's view of a stack: its hub with the admin token."""
    with httpx.Client(
        base_url=stack.hub_url, timeout=30, headers={"Authorization": f"Bearer {stack.token}"}
    ) as client:
        yield client


def admin_requests(tid: str) -> list[tuple[str, str]]:
    """Every request of the admin API and the pages for people, for trajectory `tid`."""
    return [
        ("POST", "/api/trajectories"),
        ("GET", f"/api/trajectories/{tid}"),
        ("GET", f"/api/trajectories/{tid}/events"),
        ("GET", f"/api/trajectories/{tid}/check"),
        ("POST", "/api/check"),
        ("POST", f"/api/trajectories/{tid}/close"),
        ("GET", "/view/"),
        ("GET", "/view/board"),
        ("GET", "/view/compare?a=some-run&b=other-run"),
        ("GET", "/view/runs/some-run"),
        ("GET", f"/view/trajectories/{tid}"),
    ]


def fixed_budget(examples: int) -> settings:
    """Hypothesis settings for a property test over a running stand: the same `examples`
    examples on every run (derandomized, no database), no deadline, no shrinking."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


def load(name: str) -> dict[str, Any]:
    path = next(TASKS_DIR.rglob(f"{name}.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def make_task(
    conditions: list[dict[str, Any]],
    prompt: str = "На %HOST% сделай что-нибудь.",
    domain: str = "grocery",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "test_data": {
            "bench_first_domain": domain,
            "task": prompt,
            "conditions": conditions,
            **extra,
        }
    }


def hub_api(hub: httpx.Client) -> HubClient:
    """The runner's hub client over a test's client (its address and admin token)."""

    async def send(
        method: str, path: str, body: bytes | None, params: Params | None
    ) -> tuple[int, bytes]:
        headers = {"content-type": "application/json"} if body is not None else {}
        try:
            answer = hub.request(method, path, content=body, params=params, headers=headers)
        except httpx.TransportError as exc:
            raise ConnectionError(repr(exc)) from exc
        return answer.status_code, answer.content

    return HubClient(send)


def create(hub: httpx.Client, task: dict[str, Any] | None = None, **body: Any) -> CreatedTrajectory:
    """A trajectory of `task` (by default one basket_add on Продукты)."""
    default = make_task([{"event_name": "basket_add"}])
    return run_async(hub_api(hub).create(task or default, **body))  # type: ignore[no-any-return]


def run_async(coroutine: Any) -> Any:
    """Run a coroutine to the end from a test, even one whose thread already runs a loop
    (sync Playwright keeps one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def site_tasks(site: str) -> list[Any]:
    """A site's canonical tasks (`TaskRef`s), without the generated variant files."""
    from runner.evaluate import select_tasks

    return [ref for ref in select_tasks(TASKS_DIR, site, None) if not ref.is_variant]


def with_variants(
    refs: list[Any], site: str, variants: dict[str, str], profile: str | None = None
) -> list[Any]:
    """Copies of the tasks rendered through `variants` (the task's domain_configs); with a
    `profile`, named and marked as that profile's variant files are."""
    from runner.evaluate import TaskRef

    out = []
    for ref in refs:
        task = copy.deepcopy(ref.task)
        task["domain_configs"] = {site: {"ui_variants": dict(variants)}}
        name = ref.name
        if profile:
            task["test_data"]["ui_variants"] = dict(variants)
            task["test_data"]["ui_variant_profile"] = profile
            name = f"{ref.name}__{profile}"
        out.append(TaskRef(name, ref.path, task))
    return out


def run_eval(
    stack: Any,
    out: Any,
    harness: str,
    refs: list[Any],
    workers: int = 2,
    time_limit: float = 90,
    agent: Any = None,
    prices: Any = None,
    repeat: int = 1,
    viewport: Any = None,
) -> Run:
    """`runner eval` of these tasks against the test stack (two workers, 90 s a task unless
    told), with an agent harness's settings and price table when given, `repeat` times, at
    `viewport` (the default's when none)."""
    from runner.evaluate import RunPlan, evaluate
    from runner.harness import get_harness
    from services.core.models.run import Viewport

    run = evaluate(
        stack.hub_url,
        stack.token,
        get_harness(harness),
        refs,
        out,
        RunPlan(
            workers=workers, time_limit=time_limit, repeat=repeat, viewport=viewport or Viewport()
        ),
        _skip,
        agent,
        prices,
    )
    return run_async(run)  # type: ignore[no-any-return]


def _skip(record: Record) -> None:
    """`evaluate`'s per-record callback, unused by the tests."""


def failures(records: list[Record]) -> dict[str, tuple[str, str | None]]:
    """Task -> (status, error) of every record that did not pass."""
    return {r.task: (r.status, r.error) for r in records if r.ems != 1}


def runner(
    home: Path, *args: str, port: int | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The `runner` command as a user types it, under its own WPB_HOME and hub port (and
    `env` besides)."""
    env = {
        **os.environ,
        "WPB_HOME": str(home),
        "WPB_HUB_PORT": str(port or free_port()),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "runner", *args],
        env=env,
        text=True,
        capture_output=True,
        timeout=180,
    )


def events_url(client: httpx.Client, page: str) -> str:
    """Where the page at `page` posts its events: its `_events` with the token it was served
    with (opening it writes its screen, as a visit does)."""
    answer = client.get(page)
    answer.raise_for_status()
    return pagetoken.events_url(answer.text)


# Low-level tracking events: logged for every page, never used in conditions.
TRACKING = ("click", "keypress", "scroll")


def semantic(event: dict[str, Any]) -> bool:
    """Whether an event is one conditions can name (not click, keypress or scroll)."""
    return event["type"] not in TRACKING


def wait_events(
    hub: httpx.Client,
    tid: str,
    match: str | Callable[[dict[str, Any]], bool] = semantic,
    at_least: int = 1,
    timeout: float = 10,
) -> list[dict[str, Any]]:
    """The trajectory's events that `match` (an event type, or a test of one event), in
    order, once at least `at_least` of them are stored. Fails the test, printing the log,
    when they are not within `timeout` seconds. Page events are still in flight when the
    page has already moved on; to show that something did NOT happen, wait for an event
    that must come after it, then look."""
    if at_least < 1:
        raise ValueError("at_least must be 1 or more: waiting for nothing proves nothing")
    wanted = (lambda event: event["type"] == match) if isinstance(match, str) else match
    events: list[dict[str, Any]] = []

    def enough() -> list[dict[str, Any]] | None:
        events[:] = run_async(hub_api(hub).events(tid)).events
        found = [event for event in events if wanted(event)]
        return found if len(found) >= at_least else None

    what = match if isinstance(match, str) else getattr(match, "__name__", "match")
    try:
        return until(enough, timeout, f"{at_least} event(s) {what!r}")
    except WaitTimeout:
        found = [event for event in events if wanted(event)]
        pytest.fail(
            f"trajectory {tid}: {len(found)} event(s) {what!r} after {timeout} s, "
            f"wanted at least {at_least}. The log:\n{_format_log(events)}"
        )


def _format_log(events: list[dict[str, Any]], last: int = 200) -> str:
    """An event log, one line an event (its last `last` events)."""
    lines = [
        f"{e['seq']:>5} {e['site']}/{e['source']} {e['type']} "
        f"{json.dumps(e['params'], ensure_ascii=False)}"
        for e in events[-last:]
    ]
    skipped = len(events) - len(lines)
    return (
        "\n".join(([f"  ... {skipped} earlier events"] if skipped else []) + lines) or "  (empty)"
    )


def params_of(events: list[dict[str, Any]], event_type: str | None = None) -> list[dict[str, Any]]:
    """The parameters of each event (of `event_type` only, when given)."""
    return [e["params"] for e in events if event_type is None or e["type"] == event_type]


def verdict(hub: httpx.Client, tid: str, wait_for: str) -> Verdict:
    """The trajectory's check once an event of type `wait_for` is stored."""
    wait_events(hub, tid, wait_for)
    return run_async(hub_api(hub).check(tid))  # type: ignore[no-any-return]


# -- a site in a Chromium page; the page tests' screens and their covering design ---------

# The screens page tests run at: the default and a phone's (the sites' narrow layout).
SCREENS = (VIEWPORT, Viewport(width=390, height=844))


def site_tab(page: Page, domain: str) -> Locator:
    """The tab of `domain`'s site in the page shell's «Разделы», by its caption in the site
    registry (every page of a trajectory shows them, its hub page too)."""
    caption = registry().captions[domain]
    return page.get_by_role("navigation", name="Разделы").get_by_role("link", name=caption)


def open_site(
    page: Page,
    hub: httpx.Client,
    domain: str,
    task: dict[str, Any] | None = None,
    path: str | None = None,
    **body: Any,
) -> CreatedTrajectory:
    """A new trajectory of `task` (by default one `state_changed` on `domain`; `body` the rest
    of what creates it, `ui_variants=` say) with `domain`'s site open in `page`: reached from
    the trajectory's hub page by the site's tab, as a person comes to it, or with `path`
    opened at that address under the site's (`""` its first page)."""
    task = task or make_task([{"event_name": "state_changed"}], domain=domain)
    created = create(hub, task, **body)
    if path is None:
        page.goto(created.url)
        site_tab(page, domain).click()
        page.wait_for_url(f"**/{domain}/")
    else:
        page.goto(f"{created.url}{domain}/{path}")
    return created


def perturbations() -> list[dict[str, str]]:
    """The page as it is (`{}`), then every perturbation's implementation as the `ui_variants`
    that select it (`{"layout": "lazy"}`), in the order of services/core/perturb.py."""
    chosen = [{key: impl} for key, impls in perturb.KEYS.items() for impl in impls]
    return [{}, *(variants for variants in chosen if perturb.NONE not in variants.values())]


def covering_screen(variants: dict[str, str], domain: str) -> Viewport:
    """The one screen the default selection runs `variants` (one of `perturbations()`) on
    `domain` at: a Latin square whose rows are the perturbations and whose columns the sites
    (the registry's order), so every pair is run once and, with at least as many rows and
    columns as screens, every perturbation and every site at every screen."""
    row = perturbations().index(variants)
    column = list(registry().captions).index(domain)
    return SCREENS[(row + column) % len(SCREENS)]


def page_matrix(cases: Iterable[tuple[dict[str, str], str]]) -> pytest.MarkDecorator:
    """Parametrizes a page test by `variants`, `domain` and `screen_page` (a page at a screen,
    the fixture's parameter): every case (`variants`, `domain`) at every screen, the whole
    product, where those off the covering design (`covering_screen`) are marked `full`: the
    default selection (`-m "not full"`) runs each case once, `make test-full` all of them."""
    params = []
    for variants, domain in cases:
        named = [f"{key}={impl}" for key, impl in variants.items()] or [perturb.NONE]
        for screen in SCREENS:
            covered = screen == covering_screen(variants, domain)
            params.append(
                pytest.param(
                    variants,
                    domain,
                    screen,
                    id="-".join([*named, domain, screen.name]),
                    marks=() if covered else pytest.mark.full,
                )
            )
    return pytest.mark.parametrize(
        ("variants", "domain", "screen_page"), params, indirect=["screen_page"]
    )


# -- the Grafana dashboards' queries against a real Prometheus (tests/deploy) -------------

DASHBOARDS = sorted((REPO / "deploy" / "grafana" / "dashboards").glob("*.json"))


def panel_queries() -> list[tuple[str, str, str]]:
    """(dashboard file, panel title, expression) for every query of every panel."""
    found = []
    for path in DASHBOARDS:
        for panel in json.loads(path.read_text())["panels"]:
            for target in panel.get("targets", []):
                found.append((path.name, panel["title"], target["expr"]))
    return found


def query_range(api: httpx.Client, expr: str, window: dict[str, Any]) -> dict[str, list[float]]:
    """A range query's series: their labels' values joined, then their values in time order."""
    answer = api.get("/api/v1/query_range", params={"query": expr, **window})
    assert answer.status_code == 200, (expr, answer.text)
    return {
        ",".join(item["metric"].values()): [float(v) for _, v in item["values"]]
        for item in answer.json()["data"]["result"]
    }


def empty_panels(api: httpx.Client, window: dict[str, Any], rate_interval: str) -> list[str]:
    """Every panel query (Grafana's `$__rate_interval` set to `rate_interval`) that returns
    no finite value from the Prometheus at `api` over `window`."""
    empty = []
    for dashboard, title, expr in panel_queries():
        series = query_range(api, expr.replace("$__rate_interval", rate_interval), window)
        values = [v for vs in series.values() for v in vs]
        if not any(math.isfinite(v) for v in values):
            empty.append(f"{dashboard} «{title}»: {expr}")
    return empty


@dataclass
class Stand:
    """A compose stand (compose.yaml) under a project of its own, on a free port."""

    project: str
    env_file: Path
    home: Path
    hub_url: str
    env: dict[str, str]

    def compose(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        argv = ["docker", "compose", "-p", self.project, "--env-file", str(self.env_file)]
        done = subprocess.run(
            [*argv, *args], cwd=REPO, env=self.env, text=True, capture_output=True, timeout=timeout
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    def token(self) -> str:
        return (self.home / "admin-token").read_text().strip()

    def admin(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.hub_url, timeout=30, headers={"Authorization": f"Bearer {self.token()}"}
        )


def docker(*args: str) -> str:
    done = subprocess.run(["docker", *args], text=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@contextlib.contextmanager
def compose_stand(home: Path, profiles: tuple[str, ...] = ()) -> Iterator[Stand]:
    """Every image current (`make images`'s script: it builds nothing when `make images` has
    built this tree), then the compose stand with these profiles up under `home`,
    Prometheus's port free should a test start the `metrics` profile; `docker compose down
    -v` on the way out."""
    made = runner(home, "compose-env")
    assert made.returncode == 0, made.stdout + made.stderr
    port = free_port()
    env = {
        **os.environ,
        "WPB_HOME": str(home),
        "WPB_HUB_PORT": str(port),
        "WPB_PROMETHEUS_PORT": str(free_port()),
        "COMPOSE_PROFILES": ",".join(profiles),
        # The interpreter that lists the agent harnesses' images (deploy/agent-images.sh).
        "PYTHON": sys.executable,
    }
    stand = Stand(
        f"wpb-test-{os.getpid()}", home / "compose.env", home, f"http://127.0.0.1:{port}", env
    )
    subprocess.run(
        [str(REPO / "deploy" / "images.sh"), str(stand.env_file)], check=True, timeout=900, env=env
    )
    try:
        stand.compose("up", "-d", "--wait")
        yield stand
    finally:
        # The `metrics` profile too, which a test may have started.
        every = [flag for name in ("metrics", *profiles) for flag in ("--profile", name)]
        stand.compose(*every, "down", "-v")


def wait_scraping(api: httpx.Client, job: str = "services", timeout: float = 30) -> None:
    """Until Prometheus has scraped every target of `job` once (its scrape loops start some
    seconds after it is ready; an evaluation shorter than that would leave no series)."""

    def all_up() -> bool:
        mine = targets_of(api, job)
        return bool(mine) and all(t["health"] == "up" for t in mine)

    until(all_up, timeout, f"Prometheus scraping every target of {job}", every=0.2)


def targets_of(api: httpx.Client, job: str) -> list[dict[str, Any]]:
    """Prometheus's active targets of `job`."""
    targets = api.get("/api/v1/targets").json()["data"]["activeTargets"]
    return [t for t in targets if t["labels"]["job"] == job]


def wait_scrapes(api: httpx.Client, job: str = "services", count: int = 1) -> None:
    """Until Prometheus has scraped every target of `job` `count` more times from now (what
    was served until now is in its series then)."""
    for _ in range(count):
        since = time.time()

        def scraped(since: float = since) -> bool:
            mine = targets_of(api, job)
            return bool(mine) and all(scraped_at(t) > since for t in mine)

        until(scraped, 60, f"one more scrape of every target of {job}", every=0.2)


def scraped_at(target: dict[str, Any]) -> float:
    """A target's `lastScrape` (RFC 3339, nanoseconds) in Unix seconds."""
    stamp = re.sub(r"(\.\d{6})\d*", r"\1", target["lastScrape"]).replace("Z", "+00:00")
    return datetime.fromisoformat(stamp).timestamp()


async def stand_nats(stack: Stack) -> nats.NATS:
    """A service's connection to the test stand's NATS."""
    url = f"nats://127.0.0.1:{stack.processes['nats'].port}"
    return await nats.connect(url, user=NATS_USER, password=stack.service_token)


async def _close_in_the_bucket(stack: Stack, tid: str) -> None:
    client = await stand_nats(stack)
    bucket = await client.jetstream().key_value(TRAJECTORIES_BUCKET)
    entry = await bucket.get(tid)
    assert entry.value is not None
    meta = {**json.loads(entry.value), "status": "closed"}
    await bucket.update(tid, json.dumps(meta).encode(), last=entry.revision)
    await client.close()


def serves_a_trajectory(stack: Stack) -> None:
    """Every service ready, and a new trajectory created, each site's first page served
    through the hub, a page event taken and its check answered."""
    with admin_client(stack) as hub:
        status = hub.get("/api/status")
        assert status.status_code == 200, status.text
        task = {
            "test_data": {
                "bench_first_domain": "grocery",
                "task": "На %HOST% открой «Продукты».",
                "conditions": [{"event_name": "state_changed"}],
            }
        }
        created = hub.post("/api/trajectories", json={"task": task})
        assert created.status_code == 201, created.text
        tid = created.json()["trajectory_id"]
        for domain in stack.sites:
            page = hub.get(f"/t/{tid}/{domain}/")
            assert page.status_code == 200, (domain, page.status_code)
        posted = hub.post(
            events_url(hub, f"/t/{tid}/grocery/"), json={"type": "click", "params": {}}
        )
        assert posted.status_code == 200, posted.text
        check = hub.get(f"/api/trajectories/{tid}/check")
        assert check.status_code == 200 and check.json()["ems"] == 1, check.text


def close_behind_the_hub(stack: Stack, tid: str) -> None:
    """Close a trajectory by writing its metadata straight to the bucket, as another hub
    replica would: the services learn of it only through their subscriptions."""
    run_async(_close_in_the_bucket(stack, tid))


def refused_soon(write: Callable[[], httpx.Response], timeout: float = 2) -> None:
    """Fails unless `write` answers 409 (its trajectory closed) within `timeout` seconds."""
    until(lambda: write().status_code == 409, timeout, "a closed trajectory refused", 0.01)


def stand_ready(hub: httpx.Client, timeout: float = 60) -> None:
    """Until the stand at `hub` says every service is ready."""
    until(lambda: hub.get("/api/status").status_code == 200, timeout, "the stand ready", 0.2)
