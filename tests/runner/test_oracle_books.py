"""The oracle solves every Книги task through Chromium (EMS 1), the search donors under
each of the six `text_search` implementations; noop passes none."""

from __future__ import annotations

import asyncio
import copy
from concurrent.futures import ThreadPoolExecutor

import pytest

from runner.evaluate import TaskRef, evaluate, select_tasks
from runner.harness import get_harness
from runner.stack import TASKS_DIR
from services.kit.variants import VARIANTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOMAIN = "books"
SEARCH_DONORS = ["books_search_rudneva_island", "books_search_shubin_river"]


def run(stack, tmp_path, harness: str, refs: list[TaskRef]) -> list[dict]:
    """In a thread of its own: a sync Playwright of other tests may hold this thread's loop."""
    coroutine = evaluate(
        stack.hub_url,
        stack.token,
        get_harness(harness),
        refs,
        tmp_path / harness,
        2,
        90,
        None,
        lambda _: None,
        None,
    )
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(asyncio.run, coroutine).result()
    return list(result["records"])


def with_search_variant(ref: TaskRef, impl: str) -> TaskRef:
    task = copy.deepcopy(ref.task)
    task["domain_configs"] = {DOMAIN: {"ui_variants": {"text_search": impl}}}
    return TaskRef(f"{ref.name}__text_search_{impl}", ref.path, task)


def failures(records: list[dict]) -> dict:
    return {r["task"]: (r["status"], r["error"]) for r in records if r["ems"] != 1}


def test_oracle_solves_every_books_task(stack, tmp_path) -> None:
    records = run(stack, tmp_path, "oracle", select_tasks(TASKS_DIR, DOMAIN, None))
    assert len(records) == 11
    assert not failures(records)


def test_search_donors_under_every_text_search(stack, tmp_path) -> None:
    donors = [r for r in select_tasks(TASKS_DIR, DOMAIN, None) if r.name in SEARCH_DONORS]
    assert len(donors) == 2
    for ref in donors:
        assert ref.ui_primary == "SEARCH"
        assert any(c["event_name"] == "submit_search" for c in ref.task["test_data"]["conditions"])
    refs = [
        with_search_variant(ref, impl) for ref in donors for impl in VARIANTS["text_search"][DOMAIN]
    ]
    records = run(stack, tmp_path, "oracle", refs)
    assert len(records) == 12
    assert not failures(records)


def test_noop_fails_every_books_task(stack, tmp_path) -> None:
    records = run(stack, tmp_path, "noop", select_tasks(TASKS_DIR, DOMAIN, None))
    assert len(records) == 11 and all(r["ems"] == 0 for r in records)
