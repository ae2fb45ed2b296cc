"""Helpers the tests share (fixtures live in conftest.py)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from typing import Any

import httpx

from runner.stack import TASKS_DIR

# The stand's frozen today in the test stack.
TODAY = "2026-11-29"


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


def create(hub: httpx.Client, task: dict[str, Any] | None = None, **body: Any) -> dict[str, Any]:
    answer = hub.post(
        "/api/trajectories",
        json={"task": task or make_task([{"event_name": "basket_add"}]), **body},
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def run_async(coroutine: Any) -> Any:
    """Run a coroutine to the end from a test, even one whose thread already runs a loop
    (sync Playwright keeps one)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def evaluate_site(
    stack: Any, out: Any, harness: str, site: str, variants: dict[str, str] | None = None
) -> dict[str, Any]:
    """`runner eval` over a site's canonical tasks, each rendered through `variants` (set as
    the task's domain_configs, as a variant task file would) — for oracle runs per profile."""
    import asyncio
    import copy
    from concurrent.futures import ThreadPoolExecutor

    from runner.evaluate import evaluate, select_tasks
    from runner.harness import get_harness

    refs = [ref for ref in select_tasks(TASKS_DIR, site, None) if "__" not in ref.name]
    for ref in refs:
        ref.task = copy.deepcopy(ref.task)
        ref.task["domain_configs"] = {site: {"ui_variants": variants or {}}}
    run = evaluate(
        stack.hub_url,
        stack.token,
        get_harness(harness),
        refs,
        out,
        2,
        90,
        None,
        lambda _: None,
        None,
    )
    # A thread of its own: the sync Playwright fixtures keep an event loop in this one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run).result()  # type: ignore[no-any-return]
