"""The stand's HTTP API as the tests speak it: tasks to create, trajectories created through
the runner's hub client, their events waited for and their verdicts read."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, Phase, settings

from runner.hub import HubClient, Params
from runner.settings import TASKS_DIR
from runner.wait import WaitTimeout, until
from services.core.models.api import CreatedTrajectory, Verdict
from services.kit import pagetoken


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
