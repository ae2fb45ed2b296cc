"""The upstream results.json layout both ways: our run out and back in, on our board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner.results.interchange import InterchangeError, import_file, to_upstream
from runner.run.evaluate import select_tasks, task_set_hash
from runner.settings import TASKS_DIR
from services.core.models.folder import Run, finished_runs
from services.core.models.run import AgentSettings, Manifest, Record, Summary
from services.core.results.board import build, compare

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
    assert run["llm_calls"] == 6 and run["token_usage_by_model"]["m"]["llm_calls"] == 6
    assert run["finished_at"] == "2026-11-30T10:00:05+00:00"
    assert run["provider"] == "openai" and run["finished"] is True
    assert run["webpagebench"]["task_set_hash"] == "x"  # the manifest's provenance beside
    test = data["tests"][1]
    assert test["test_name"] == VARIANT and test["success"] is False
    assert test["agent_is_done"] is True and "Женева" in test["input"]
    check = test["dab_check"]
    assert (check["passed"], check["failed"], check["total"]) == (0, 1, 1)
    assert check["failed_conditions"] == ["bench_hotel_select_city"] and not check["all_passed"]
    assert test["ui_taxonomy"]["declared"]["primary"] == "SELECT_AC"
    assert test["ui_taxonomy"]["ui_patterns"]["pattern_keys"] == ["theme:dark"]
    assert test["token_usage"] == {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "llm_calls": 3,
    }
    assert data["ui_taxonomy_stats"]["by_primary"]["SELECT_AC"]["passed"] == 1


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


# Upstream's own shapes (its bench_eval recorder, track.summarize_checks and
# ui_taxonomy_report): a hotel search of its own with two models, one priced; a task named as
# one of ours that asks something else; a test whose agent never ran (a dry run).
UPSTREAM_RUN = {
    "model": "gpt-x",
    "provider": "openai",
    "agent_harness": "browser-use",
    "mock": "bench",
    "started_at": "2026-06-20T10:00:00+00:00",
    "finished_at": "2026-06-20T10:01:10+00:00",
    "finished": True,
    "worker_id": None,
}


def upstream_test(name: str, prompt: str, domain: str, primary: str, **fields) -> dict:
    row = {
        "test_name": name,
        "track_id": "t-" + name,
        "task_url": "http://localhost/" + name,
        "agent_harness": "browser-use",
        "input": prompt,
        "actual_output": "Готово.",
        "success": False,
        "duration_seconds": 30.0,
        "agent_steps": 6,
        "agent_is_done": True,
        "agent_error": None,
        "token_usage": {},
        "token_usage_by_model": {},
        "tokens": None,
        "dab_check": checked(0, 0, []),
        "agent": {"steps": 6, "is_done": True},
        "trajectory": {},
        "ui_taxonomy": {
            "domain": domain,
            "declared": {"primary": primary, "classes": [primary, "NAV"]},
            "checked_classes": [primary, "NAV"],
            "used_classes": ["NAV"],
            "ui_patterns": {
                "domain": domain,
                "profile_id": None,
                "variants": {"date": "popup_grid", "theme": "light"},
                "pattern_keys": ["date:popup_grid", "theme:light"],
            },
        },
        "extended_metrics": {"false_done": False},
    }
    return row | fields


def checked(passed: int, total: int, results: list[tuple[str, dict, bool]]) -> dict:
    """A `dab_check` as upstream's track.summarize_checks writes it."""
    return {
        "passed": passed,
        "failed": total - passed,
        "total": total,
        "score": passed / total if total else 0.0,
        "all_passed": total > 0 and passed == total,
        "failed_conditions": [name for name, _, ok in results if not ok],
        "check_results": [
            {"event_name": name, "parameters": params, "success": ok}
            for name, params, ok in results
        ],
    }


def usage(prompt: int, completion: int, calls: int, cost: float | None = None) -> dict:
    counts = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "llm_calls": calls,
    }
    return counts | ({"cost_usd": cost} if cost else {})


def upstream_file() -> dict:
    hotel = upstream_test(
        "hotel_search_scenario_dubai",
        "Найди отель в Дубае на 05–09.03.2027.",
        "hotels",
        "DATE",
        success=True,
        dab_check=checked(
            2,
            2,
            [
                ("bench_hotel_select_city", {"cityId": "ae-dubai"}, True),
                ("state_changed", {"new_state": "bench_hotel_search"}, True),
            ],
        ),
        token_usage=usage(9000, 600, 7),
        token_usage_by_model={
            "gpt-x": usage(8000, 500, 6, 0.0123),
            "gpt-x-mini": usage(1000, 100, 1),
        },
        tokens=9600,
    )
    files = upstream_test(
        "files_archive_month_csv",
        "Скачай архив отчётов за март в формате CSV.",
        "files",
        "LIST",
        dab_check=checked(
            1,
            2,
            [
                ("bench_files_select_collection", {"collection": "reports"}, True),
                ("bench_files_download", {"file": "march.csv"}, False),
            ],
        ),
        token_usage=usage(3000, 200, 3),
        token_usage_by_model={"gpt-x": usage(3000, 200, 3, 0.004)},
        tokens=3200,
    )
    dry = upstream_test(
        "grocery_basket_any_product",
        "Положи в корзину любой товар.",
        "grocery",
        "BASKET",
        actual_output=None,
        duration_seconds=None,
        agent_steps=0,
        agent_is_done=None,
        token_usage=usage(0, 0, 0),
        tokens=0,
        agent={"skipped": True, "reason": "dry_run"},
    )
    return {
        "run": UPSTREAM_RUN,
        "ui_taxonomy_stats": {},
        "tests": [hotel, files, dry],
        "extended_metrics_meta": {"schema_version": 1},
    }


# What upstream's readers (its recorder's summary, report, progress, cost and leaderboard
# export) read of a row.
READ = (
    "test_name",
    "input",
    "actual_output",
    "success",
    "duration_seconds",
    "agent_steps",
    "agent_is_done",
    "agent_error",
    "tokens",
    "token_usage",
    "token_usage_by_model",
)
CHECK = ("passed", "failed", "total", "score", "all_passed", "failed_conditions")
TAXONOMY = ("domain", "declared", "checked_classes")


def imported(tmp_path: Path) -> Run:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(upstream_file(), ensure_ascii=False))
    import_file(path, tmp_path / "runs", TASKS_DIR)
    (run,) = finished_runs(tmp_path / "runs")
    return run


def test_an_upstream_file_imports_whole_and_exports_back_the_same(tmp_path):
    run = imported(tmp_path)
    assert (run.manifest.model, run.manifest.provider) == ("gpt-x", "openai")
    hotel, files, dry = run.records
    # Every site, class and condition count as the file has them; the token split; the cost.
    assert [(r.site, r.ui_primary) for r in run.records] == [
        ("hotels", "DATE"),
        ("files", "LIST"),
        ("grocery", "BASKET"),
    ]
    assert (hotel.passed, hotel.total, files.passed, files.total) == (2, 2, 1, 2)
    assert hotel.usage["gpt-x"].input_tokens == 8000 and hotel.usage["gpt-x-mini"].calls == 1
    assert hotel.cost_usd is None  # one of its models has no recorded cost: unknown
    assert files.cost_usd == 0.004 and files.tokens == 3200
    assert dry.status == "infra_error" and not dry.scored  # its agent never ran
    # The figures of its own summary, over the tests whose agent ran.
    assert (run.summary.overall.scored, run.summary.overall.ems) == (2, 0.5)
    assert run.summary.overall.infra_errors == 1
    back = to_upstream(run, TASKS_DIR).model_dump()
    for before, after in zip(upstream_file()["tests"], back["tests"], strict=True):
        assert {k: after[k] for k in READ} == {k: before[k] for k in READ}
        assert {k: after["dab_check"][k] for k in CHECK} == {
            k: before["dab_check"][k] for k in CHECK
        }
        assert [
            {k: c[k] for k in ("event_name", "parameters", "success")}
            for c in after["dab_check"]["check_results"]
        ] == before["dab_check"]["check_results"]
        taxonomy, original = after["ui_taxonomy"], before["ui_taxonomy"]
        assert {k: taxonomy[k] for k in TAXONOMY} == {k: original[k] for k in TAXONOMY}
        assert taxonomy["ui_patterns"]["pattern_keys"] == original["ui_patterns"]["pattern_keys"]
    head = back["run"]
    for name in ("model", "provider", "agent_harness", "started_at", "finished"):
        assert head[name] == UPSTREAM_RUN[name], name
    assert (head["total_tasks"], head["passed_tasks"], head["failed_tasks"]) == (3, 1, 2)
    assert head["total_duration_seconds"] == 60.0 and head["avg_duration_seconds"] == 30.0
    tokens = (head["prompt_tokens"], head["completion_tokens"], head["total_tokens"])
    assert tokens == (12000, 800, 12800) and head["avg_tokens_per_task"] == 6400
    assert head["token_usage_by_model"]["gpt-x"]["cost_usd"] == 0.0163
    assert head["cost_usd"] is None  # one attempt's cost is unknown
    assert back["ui_taxonomy_stats"]["by_primary"]["DATE"]["passed"] == 1


def test_an_upstream_task_named_as_ours_keeps_its_own_identity(tmp_path):
    theirs = imported(tmp_path)
    files = next(r for r in theirs.records if r.task == "files_archive_month_csv")
    (ref,) = select_tasks(TASKS_DIR, files.task, None)
    assert files.task_hash != ref.hash and theirs.task_set.startswith("upstream-")
    mine = Run(
        "20991201T000000Z-dom",
        theirs.manifest.model_copy(update={"task_set_hash": "x", "imported_from": None}),
        [ref.record(ems=1, completion=1, done_and_pass=1, passed=3, total=3)],
        Summary(),
    )
    result = compare(mine, theirs)
    assert result.common == 0 and result.changed == [ref.name]
