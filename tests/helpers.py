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
