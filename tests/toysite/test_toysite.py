"""A seventh site installed from outside the project (issue 22): Игрушки (`toysite/`) is
declared by entry points of another distribution (its descriptor, its oracle's solver) and
nothing outside its folder changes.
The stack serves it through the hub beside the others' tabs, the validator knows its screen
and vocabulary, the oracle solves its task with its own solver in real Chromium, the audit
finds its UI class evidenced, and its own event type goes through the contract."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.http import create, run_async
from support.runs import run_eval
from support.stand import admin_client, plugins, running_stack, site_plugins

from runner.harnesses.oracle import ENTRY_POINT_GROUP as ORACLES
from runner.run.evaluate import select_tasks
from runner.stack.stack import Stack, built_sites
from runner.suite.audit import audit_suite, collect
from runner.suite.suite import validate, validate_paths
from services.core import perturb
from services.core.sites import registry
from services.core.variants import resolve

TOY = Path(__file__).resolve().parent
TASKS = TOY / "tasks"
TOY_ORACLE = {"toy": "toysite.oracle:solve"}


@pytest.fixture(scope="module")
def toy_stack(processes: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The toy site installed, and a stack of the toy site alone (the hub shows every tab)."""
    with (
        site_plugins(tmp_path_factory.mktemp("plugins"), {"toy": "toysite.plugin:SITE"}),
        plugins(tmp_path_factory.mktemp("oracles"), ORACLES, TOY_ORACLE, "wpbtestoracles"),
        running_stack(tmp_path_factory.mktemp("wpb-toy"), sites=built_sites("toy")) as started,
    ):
        yield started


def test_the_toy_site_is_registered_after_the_others(toy_stack: Stack) -> None:
    sites = registry()
    assert list(sites.captions)[-1] == "toy" and len(sites.captions) == 7
    assert built_sites("toy") == {"toy": "toysite.app"}
    assert resolve({}, {"toy": {"ui_variants": {"bell_style": "square"}}})["toy"] == {
        "bell_style": "square",
        "theme": "light",
        **{key: "none" for key in perturb.KEYS},
    }


def test_the_hub_serves_the_toy_site(toy_stack: Stack) -> None:
    with admin_client(toy_stack) as hub, httpx.Client(base_url=toy_stack.hub_url) as agent:
        task = json.loads((TASKS / "toy" / "toy_ring_bell.json").read_text(encoding="utf-8"))
        tid = create(hub, task).trajectory_id
        page = agent.get(f"/t/{tid}/")
        assert page.status_code == 200 and "Игрушки" in page.text and "Маркет" in page.text
        toy = agent.get(f"/t/{tid}/toy/")
        assert toy.status_code == 200 and "Позвонить" in toy.text
        rung = agent.post(f"/t/{tid}/toy/ring", data={"bell": "Бубенец"})
        assert rung.status_code == 303
        events = hub.get(f"/api/trajectories/{tid}/events").json()["events"]
        ring = [e for e in events if e["type"] == "toy_ring"]
        assert [(e["site"], e["source"], e["params"]) for e in ring] == [
            ("toy", "server", {"bell": "Бубенец"})
        ]
        # The page may not write the server's event, and the contract checks its parameters.
        refused = agent.post(f"/t/{tid}/toy/_events", json={"type": "toy_ring", "params": {}})
        assert refused.status_code in (403, 422), refused.text


def test_the_validator_knows_the_toy_site(toy_stack: Stack) -> None:
    assert {path.stem: problems for path, problems in validate_paths([TASKS]).items()} == {
        "toy_ring_bell": []
    }
    task = json.loads((TASKS / "toy" / "toy_ring_bell.json").read_text(encoding="utf-8"))
    wrong = copy.deepcopy(task)
    wrong["test_data"]["bench_first_state"] = "bench_toy_attic"
    wrong["test_data"]["conditions"][0]["parameters"] = {"bell": "Гонг", "tone": "C"}
    problems = validate(wrong, "wrong")
    assert any("unknown screen 'bench_toy_attic'" in p for p in problems), problems
    assert any("'Гонг' is not in the toy catalog" in p for p in problems), problems
    assert any("tone: not a parameter of 'toy_ring'" in p for p in problems), problems


def test_the_oracle_solves_the_toy_task_and_the_audit_passes_it(
    toy_stack: Stack, tmp_path: Path
) -> None:
    refs = select_tasks(TASKS, None, None)
    run = run_eval(toy_stack, tmp_path / "run", "oracle", refs, workers=1)
    records = run.records
    assert [(r.task, r.ems, r.status) for r in records] == [("toy_ring_bell", 1, "ok")], records
    items = run_async(collect(toy_stack.hub_url, toy_stack.token, refs, records))
    summary = audit_suite(items)
    result = summary.tasks["toy_ring_bell"]
    assert result.class_check is not None and result.class_check.ok, result.class_check
    assert summary.ok and summary.caught == summary.tried > 0, summary
