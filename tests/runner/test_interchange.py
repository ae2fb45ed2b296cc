"""The upstream results.json layout both ways: our run out and back in, on our board."""

from __future__ import annotations

import json

import pytest

from runner.results.interchange import InterchangeError, import_file, to_upstream
from runner.run.evaluate import select_tasks, task_set_hash
from runner.settings import TASKS_DIR
from services.core.models.folder import Run, finished_runs
from services.core.models.run import AgentSettings, Manifest, Record, Summary
from services.core.results.board import build

DONOR, VARIANT = "hotels_pick_city", "hotels_pick_city__theme_dark"


def record(task: str, ems: int, completion: int, usage: dict | None = None) -> Record:
    fields = {
        "task": task,
        "repeat": 1,
        "site": "hotels",
        "ui_primary": "SELECT_AC",
        "variant": "__" in task,
        "donor": task.split("__")[0],
        "controls": {"theme": "dark"} if "__" in task else {},
        "ems": ems,
        "completion": completion,
        "done_and_pass": int(ems and completion),
        "passed": ems,
        "total": 1,
        "conditions": [
            {
                "event_name": "bench_hotel_select_city",
                "parameters": {},
                "success": bool(ems),
                "matched_event": None,
            }
        ],
        "status": "ok",
        "error": None,
        "final_message": "Готово.",
        "steps": 4,
        "seconds": 2.5,
        "usage": usage or {},
        "cost": 0.0,
    }
    return Record.model_validate(fields)


def our_run() -> Run:
    usage = {"m": {"input_tokens": 100, "output_tokens": 20, "calls": 3}}
    manifest = Manifest(
        created_at="2026-11-30T10:00:00+00:00",
        harness="dom",
        model="m",
        agent=AgentSettings(base_url="http://127.0.0.1:8011/v1"),
        task_set_hash="x",
    )
    records = [record(DONOR, 1, 1, usage), record(VARIANT, 0, 1, usage)]
    return Run("20991201T000000Z-dom", manifest, records, Summary())


def test_export_writes_the_upstream_layout():
    data = to_upstream(our_run(), TASKS_DIR).model_dump()
    run = data["run"]
    assert (run["model"], run["agent_harness"]) == ("m", "dom")
    assert (run["total_tasks"], run["passed_tasks"], run["failed_tasks"]) == (2, 1, 1)
    assert run["success_rate"] == 0.5 and run["total_duration_seconds"] == 5.0
    assert (run["total_agent_steps"], run["avg_agent_steps"]) == (8, 4.0)
    assert (run["prompt_tokens"], run["completion_tokens"], run["total_tokens"]) == (200, 40, 240)
    assert run["llm_calls"] == 6 and run["token_usage_by_model"]["m"]["calls"] == 6
    assert run["finished_at"] == "2026-11-30T10:00:05+00:00"
    test = data["tests"][1]
    assert test["test_name"] == VARIANT and test["success"] is False
    assert test["agent_is_done"] is True and "Женева" in test["input"]
    assert test["check"]["ems"] == 0 and test["ui_taxonomy"] == {"primary": "SELECT_AC"}


def test_import_puts_an_upstream_file_on_our_board(tmp_path):
    path = tmp_path / "results.json"
    to_upstream(our_run(), TASKS_DIR).write(path)
    folder = import_file(path, tmp_path / "runs", TASKS_DIR)
    (run,) = finished_runs(tmp_path / "runs")
    assert run.name == folder.name and run.manifest.model == "m"
    assert {r.task: r.controls for r in run.records} == {
        DONOR: {},
        VARIANT: {"theme": "dark"},
    }
    board = build([run])
    (row,) = board.rows
    assert (row.ems.k, row.ems.n, row.false_done.k) == (1, 2, 1)
    assert board.variants.cells["theme=dark"]["m · dom"].a_only == 1
    # Our task files named: the run is on the task set `runner eval` of them records.
    assert run.task_set == task_set_hash(select_tasks(TASKS_DIR, f"{DONOR},{VARIANT}", None))
    assert run.suite == "released"


def test_import_refuses_other_files(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"tests": []}))
    with pytest.raises(InterchangeError, match="run"):
        import_file(path, tmp_path / "runs", TASKS_DIR)
    path.write_text(json.dumps({"run": {}, "tests": [{"test_name": "x"}]}))
    with pytest.raises(InterchangeError, match="success"):
        import_file(path, tmp_path / "runs", TASKS_DIR)
