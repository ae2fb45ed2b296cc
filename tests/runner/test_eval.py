"""`runner eval` end to end: the oracle solves every grocery task through Chromium; noop
declares done and passes none. The run directory holds what docs/harnesses.md lists."""

from __future__ import annotations

import copy
import json

import pytest
from helpers import run_async, run_eval

from runner.agents.fonts import FAMILIES
from runner.evaluate import RunPlan, TaskRef, evaluate, select_tasks
from runner.harness import get_harness
from runner.provenance import commit
from runner.settings import TASKS_DIR

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def run(stack, tmp_path, harness: str, pattern: str, workers: int = 2) -> dict:
    refs = select_tasks(TASKS_DIR, pattern, None)
    return run_async(
        evaluate(
            stack.hub_url,
            stack.token,
            get_harness(harness),
            refs,
            tmp_path / harness,
            RunPlan(workers=workers, time_limit=90),
            lambda _: None,
        )
    )


def test_oracle_solves_every_grocery_task(stack, hub, tmp_path) -> None:
    result = run(stack, tmp_path, "oracle", "grocery")
    records = result.records
    assert len(records) == len(select_tasks(TASKS_DIR, "grocery", None)) >= 8
    assert sum(not r.variant for r in records) == 8  # the canonical grocery tasks
    failed = {r.task: (r.status, r.error, r.conditions) for r in records if r.ems != 1}
    assert not failed
    assert all(r.completion == 1 and r.done_and_pass == 1 and r.steps > 0 for r in records)
    assert result.summary.overall.ems == 1.0
    out = tmp_path / "oracle"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["harness"] == "oracle" and manifest["browser"].startswith("chromium")
    assert len(manifest["task_set_hash"]) == 16 and manifest["locale"] == "ru-RU"
    assert manifest["suite"] == "released"
    # Where it ran: this checkout's commit, the date the stand shifted the tasks to, the
    # fonts the runner's Chromium draws, what the oracle sees and does.
    assert manifest["commit"] == commit() and len(manifest["commit"].split("-")[0]) == 40
    assert manifest["today"] == hub.get("/api/status").json()["today"]
    assert set(manifest["fonts"]) == set(FAMILIES) and all(manifest["fonts"].values())
    assert manifest["observation"].startswith("none") and manifest["action"].startswith(
        "Playwright"
    )
    assert manifest["harness_packages"] == {}  # the runner's own harness
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == len(records) and all(json.loads(line)["ems"] == 1 for line in lines)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["by_site"]["grocery"]["ems"] == 1.0


def test_noop_completes_and_fails_every_task(stack, tmp_path) -> None:
    result = run(stack, tmp_path, "noop", "grocery")
    overall = result.summary.overall
    assert overall.tasks == len(select_tasks(TASKS_DIR, "grocery", None))
    assert overall.ems == 0.0 and overall.completion == 1.0
    assert overall.done_and_pass == 0.0


def test_task_filter_and_limit() -> None:
    assert [r.name for r in select_tasks(TASKS_DIR, "grocery_showcase_*", None)] == [
        "grocery_showcase_ryazhenka",
        "grocery_showcase_tea",
    ]
    assert len(select_tasks(TASKS_DIR, "grocery", 3)) == 3
    assert select_tasks(TASKS_DIR, "nothing-like-this", None) == []


def test_unknown_harness_is_refused() -> None:
    with pytest.raises(KeyError, match=r"available: .*noop.*oracle"):
        get_harness("gpt-magic")


def test_oracle_leaves_forbidden_events_alone(stack, tmp_path) -> None:
    """A forbidden condition is never a step for the reference solver: adding one for an
    event the solution does not make keeps EMS 1; forbidding the required event fails."""
    (ref,) = select_tasks(TASKS_DIR, "grocery_showcase_ryazhenka", None)

    def forbidding(name: str, item_id: str) -> TaskRef:
        task = copy.deepcopy(ref.task)
        task["test_data"]["conditions"].append(
            {"event_name": "basket_add", "parameters": {"item_id": item_id}, "forbidden": True}
        )
        return TaskRef(name, ref.path, task)

    refs = [forbidding("no_kefir", "g-0052"), forbidding("no_ryazhenka", "g-0219")]
    records = {r.task: r for r in run_eval(stack, tmp_path / "oracle", "oracle", refs).records}
    assert records["no_kefir"].ems == 1, records["no_kefir"]
    contradiction = records["no_ryazhenka"]
    assert contradiction.ems == 0 and contradiction.completion == 1
    required, forbidden = contradiction.conditions
    assert required.success and not forbidden.success and forbidden.forbidden is True
    assert forbidden.matched_event and forbidden.matched_event.params["item_id"] == "g-0219"
