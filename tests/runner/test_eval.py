"""`runner eval` end to end: the oracle solves every grocery task through Chromium; noop
declares done and passes none. The run directory holds what docs/harnesses.md lists. The
episodes and the run directory are the corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

import copy
import json
import subprocess

import pytest
from support.runs import run_eval

from runner.agents.fonts import FAMILIES
from runner.harnesses.harness import get_harness
from runner.run.evaluate import TaskRef, departures, select_tasks, summarize
from runner.settings import REPO, TASKS_DIR
from services.core.tasks import task_hash


def grocery() -> list[TaskRef]:
    return select_tasks(TASKS_DIR, "grocery", None)


@pytest.mark.corpus(oracle=grocery)
def test_oracle_solves_every_grocery_task(hub, corpus) -> None:
    refs = grocery()
    records = corpus.oracle.records(refs)
    assert len(refs) >= 8
    assert sum(not r.variant for r in records) == 8  # the canonical grocery tasks
    failed = {r.task: (r.status, r.error, r.conditions) for r in records if r.ems != 1}
    assert not failed
    assert all(r.completion == 1 and r.done_and_pass == 1 and r.steps > 0 for r in records)
    assert summarize(records).overall.ems == 1.0
    # The folder of the run they are in: the released suite's.
    out = corpus.oracle.folders["released"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["harness"] == "oracle" and manifest["browser"].startswith("chromium")
    assert len(manifest["task_set_hash"]) == 16 and manifest["locale"] == "ru-RU"
    assert manifest["suite"] == "released"
    # Where it ran: this checkout's commit (HEAD, or one before it when a commit was made
    # since the corpus ran), the date the stand shifted the tasks to, the fonts the runner's
    # Chromium draws, what the oracle sees and does.
    named = manifest["commit"].split("-")[0]
    since = subprocess.run(["git", "-C", str(REPO), "merge-base", "--is-ancestor", named, "HEAD"])
    assert len(named) == 40 and since.returncode == 0
    assert manifest["today"] == hub.get("/api/status").json()["today"]
    assert set(manifest["fonts"]) == set(FAMILIES) and all(manifest["fonts"].values())
    assert manifest["observation"].startswith("none") and manifest["action"].startswith(
        "Playwright"
    )
    assert manifest["harness_packages"] == {}  # the runner's own harness
    # Its provenance: the catalogs it ran on, no model, what it left out of the suite.
    assert len(manifest["catalogs"]) == 16 and manifest["endpoint"] == "none"
    ran = set(manifest["task_names"])
    assert manifest["modified_prompts"] == []
    assert (
        set(manifest["omitted_tasks"])
        == {r.name for r in select_tasks(TASKS_DIR, None, None)} - ran
    )
    assert manifest["submission_type"] == ("custom" if manifest["omitted_tasks"] else "standard")
    lines = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(lines) == len(corpus.oracle.runs["released"].records)
    written = {line["task"]: line["ems"] for line in lines}
    assert {ref.name: 1 for ref in refs}.items() <= written.items()
    hashes = {line["task"]: line["task_hash"] for line in lines}
    assert all(hashes[ref.name] == task_hash(ref.task) for ref in refs)
    assert all(line["cost_usd"] == 0 for line in lines)  # no model: known to cost nothing
    summary = json.loads((out / "summary.json").read_text())
    assert summary["by_site"]["grocery"]["ems"] == 1.0


@pytest.mark.corpus(noop=grocery)
def test_noop_completes_and_fails_every_task(corpus) -> None:
    refs = grocery()
    overall = summarize(corpus.noop.records(refs)).overall
    assert overall.tasks == len(refs)
    assert overall.ems == 0.0 and overall.completion == 1.0
    assert overall.done_and_pass == 0.0


def test_a_run_of_edited_tasks_or_of_a_part_is_custom() -> None:
    refs = select_tasks(TASKS_DIR, None, None)
    assert departures(refs) == {
        "submission_type": "standard",
        "modified_prompts": [],
        "omitted_tasks": [],
    }
    first, *rest = refs
    task = copy.deepcopy(first.task)
    task["test_data"]["task"] += " Быстро."
    edited = departures([TaskRef(first.name, first.path, task), *rest])
    assert edited["submission_type"] == "custom" and edited["modified_prompts"] == [first.name]
    part = departures(rest)
    assert part["omitted_tasks"] == [first.name] and part["modified_prompts"] == []


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
