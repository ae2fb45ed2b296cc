"""The board from real runs: the oracle (twice a task), noop and two scripted test-model runs
(one that solves, one that says done at once) on the same three tasks, a donor and its
dark-theme variant among them. Every figure is checked against a hand computation; the page
and the static export are rendered in Chromium in both themes."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from support.runs import run_eval, runner

from runner.results.static_board import export
from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from services.core.models.board import Board, Filter, Row
from services.core.models.folder import Run, finished_runs
from services.core.models.run import AgentConfig
from services.core.results.board import build, compare
from services.core.sites import registry

TASKS = "grocery_showcase_tea,hotels_pick_city,hotels_pick_city__theme_dark"
Z2 = 1.959963984540054**2
CHARTS = ("ems", "gap", "site", "ui", "heatmap", "cost")


@pytest.fixture(scope="module")
def runs(own_stack, testmodel) -> Path:
    """Four runs in the runs folder of a stack of the module's own, whose hub pages show
    them and nothing another module wrote."""
    root = own_stack.home / "runs"
    refs = select_tasks(TASKS_DIR, TASKS, None)
    assert len(refs) == 3
    run_eval(own_stack, root / "20990301T000000Z-oracle", "oracle", refs, repeat=2)
    run_eval(own_stack, root / "20990301T000001Z-noop", "noop", refs)
    for second, model in ((2, "test"), (3, "done-at-once")):
        agent = AgentConfig(model=model, base_url=testmodel, max_steps=12)
        run_eval(own_stack, root / f"20990301T00000{second}Z-dom", "dom", refs, 150, agent=agent)
    return root


def mine(root: Path) -> list[Any]:
    return [run for run in finished_runs(root) if run.name.startswith("20990301")]


def rows_by_model(board: Board) -> dict[str, Row]:
    return {f"{r.model}/{r.harness}": r for r in board.rows}


def test_every_figure_by_hand(runs):
    board = build(mine(runs))
    rows = rows_by_model(board)
    assert set(rows) == {"—/oracle", "—/noop", "test/dom", "done-at-once/dom"}
    assert board.task_set_tasks == 3 and not board.apart and board.suites == ["released"]
    oracle, noop = rows["—/oracle"], rows["—/noop"]
    # The oracle: 3 tasks × 2 attempts, all pass; Wilson's lower bound for 6/6 is 6/(6+z²).
    assert oracle.ems.k == oracle.ems.n == 6 and oracle.repeat == 2
    assert oracle.ems.low == pytest.approx(6 / (6 + Z2), abs=1e-4)
    assert oracle.gap.value == 0 and oracle.false_done.value == 0
    assert oracle.pass_at_k == {"1": 1.0, "2": 1.0} and oracle.pass_hat_k["2"] == 1.0
    assert oracle.agreement == 1.0 and oracle.tasks_scored == 3
    # noop says done and does nothing: Completion 1, EMS 0, the whole gap is false done.
    for row in (noop, rows["done-at-once/dom"]):
        assert (row.completion.value, row.ems.value) == (1.0, 0.0)
        assert row.gap.k == row.false_done.k == row.false_done.n == 3
        assert row.ems.high == pytest.approx(Z2 / (3 + Z2), abs=1e-4)
        assert row.agreement is None and row.infra_errors == 0
    # The scripted model, by hand from its own records.
    solver = rows["test/dom"]
    records = next(r for r in mine(runs) if r.name.endswith("2Z-dom")).records
    passed = sum(r.ems for r in records)
    assert solver.ems.k == passed and solver.ems.n == 3 and passed >= 2
    assert solver.steps == round(sum(r.steps for r in records) / 3, 2)
    assert solver.seconds == round(sum(r.seconds for r in records) / 3, 2)
    assert solver.gap.k == sum(r.completion and not r.ems for r in records)
    assert board.rows[0].harness == "oracle"  # sorted by EMS


def test_runs_on_other_site_versions_are_ranked_apart(runs):
    """Each run's manifest records the stand's site versions (its sites' `/ready`); a run on
    other pages is another task set: apart, never a row of the main table."""
    solver = next(r for r in mine(runs) if r.name.endswith("2Z-dom"))
    assert solver.manifest.site_versions == {site.domain: site.version for site in registry().sites}
    assert " · books 4 files 3 grocery 3 hotels 4 rail 4 shop 4" in solver.task_set
    older = {**solver.manifest.site_versions, "hotels": 1}
    moved = Run("moved", solver.manifest.model_copy(update={"site_versions": older}), [])
    board = build([*mine(runs), moved])
    assert "moved" not in {r.run for r in board.rows} and len(board.rows) == 4
    ((task_set, apart),) = board.apart.items()
    assert "hotels 1" in task_set and [r.run for r in apart] == ["moved"]


def test_pairwise_and_variants_by_hand(runs):
    board = build(mine(runs))
    pair = next(p for p in board.pairwise if {p.a, p.b} == {"— · oracle", "— · noop"})
    # Common attempts: attempt 1 of each task; the oracle alone passes all 3: p = 2 / 2³.
    assert (pair.n, pair.both, pair.neither) == (3, 0, 0)
    assert {pair.a_only, pair.b_only} == {0, 3}
    assert pair.p == 0.25 and not pair.significant
    cells = board.variants.cells
    assert board.variants.controls == ["theme=dark"]
    oracle = cells["theme=dark"]["— · oracle"]
    assert (oracle.n, oracle.both, oracle.delta) == (2, 2, 0.0)
    assert cells["theme=dark"]["— · noop"].neither == 1


def test_failure_breakdown_by_hand(runs):
    board = build(mine(runs))
    breakdown = {f"{f.model}/{f.harness}": f for f in board.failures}
    assert [f"{f.model}/{f.harness}" for f in board.failures] == [
        r.label.replace(" · ", "/") for r in board.rows
    ]
    oracle = breakdown["—/oracle"]
    assert (oracle.failed, oracle.scored, oracle.by_class) == (0, 6, {})
    # noop and the done-at-once model say done having done nothing, on every task.
    for name in ("—/noop", "done-at-once/dom"):
        row = breakdown[name]
        assert (row.failed, row.scored) == (3, 3)
        assert row.by_class["false_success"].k == 3
        assert row.by_class["false_success"].low == pytest.approx(3 / (3 + Z2), abs=1e-4)
        assert row.by_site["false_success"] == {"grocery": 1, "hotels": 2}
        assert sum(row.by_ui["false_success"].values()) == 3
    # The solver, by hand from its own records.
    solver = breakdown["test/dom"]
    records = next(r for r in mine(runs) if r.name.endswith("2Z-dom")).records
    classes = [r.failure.class_ for r in records if r.failure is not None]
    assert solver.failed == len(classes) == sum(not r.ems for r in records)
    assert {c: v.k for c, v in solver.by_class.items()} == {c: classes.count(c) for c in classes}
    # The conditions noop's failed attempts left unmet most often, counted by hand.
    noop = breakdown["—/noop"]
    by_hand = Counter(
        (c.event_name, json.dumps(c.parameters, sort_keys=True))
        for r in next(run for run in mine(runs) if run.name == noop.run).records
        if r.failure is not None
        for c in r.conditions
        if not c.success
    )
    listed = {(u.event_name, json.dumps(u.parameters, sort_keys=True)): u for u in noop.unmet}
    assert len(listed) == min(5, len(by_hand)) and listed
    assert all(u.attempts == by_hand[key] for key, u in listed.items())
    assert [u.attempts for u in noop.unmet] == sorted(by_hand.values(), reverse=True)[:5]


def test_filters_count_only_their_tasks(runs):
    hotels = rows_by_model(build(mine(runs), Filter(site="hotels")))
    assert hotels["—/oracle"].ems.n == 4 and hotels["—/noop"].ems.n == 2
    variants = rows_by_model(build(mine(runs), Filter(kind="variant")))
    assert variants["—/oracle"].ems.n == 2


def test_compare_lists_flips_and_facets(runs):
    oracle, noop = (
        next(r for r in mine(runs) if r.name.endswith(end)) for end in ("oracle", "noop")
    )
    result = compare(oracle, noop)
    assert sorted(result.pass_to_fail) == sorted(TASKS.split(","))
    assert result.fail_to_pass == [] and result.only_a == 3  # the oracle's second attempts
    assert result.by_site["hotels"].a_only == 2 and result.overall.delta == -1.0


def test_compare_names_the_manifest_fields_that_differ(runs, tmp_path):
    solver, quitter = (
        next(r for r in mine(runs) if r.name.endswith(e)) for e in ("2Z-dom", "3Z-dom")
    )
    assert compare(solver, quitter).differences == []  # one harness, one stand, one browser
    changed = {"time_limit_s": 30.0, "fonts": {"sans-serif": "Другой"}}
    other = Run("other", solver.manifest.model_copy(update=changed), solver.records)
    assert compare(solver, other).differences == ["fonts", "time_limit_s"]
    # Another harness: its setup is not compared, only where it ran (twice a task).
    oracle = next(r for r in mine(runs) if r.name.endswith("oracle"))
    cross = compare(solver, oracle).differences
    assert "repeat" in cross and not {"agent", "harness_packages", "fonts"} & set(cross)
    home = tmp_path / "home"
    (home / "runs").mkdir(parents=True)
    for run in (solver, other):
        folder = home / "runs" / run.name
        shutil.copytree(runs / solver.name, folder)
        run.manifest.write(folder / "manifest.json")
    shown = runner(home, "compare", solver.name, "other")
    assert shown.returncode == 0, shown.stderr
    assert "the manifests differ in fonts, time_limit_s" in " ".join(shown.stdout.split())


def test_another_verifier_is_flagged_and_another_task_not_paired(runs, tmp_path):
    solver = next(r for r in mine(runs) if r.name.endswith("2Z-dom"))
    assert solver.manifest.verifier_checksum and solver.manifest.catalogs
    assert all(r.task_hash for r in solver.records)
    edited, *rest = solver.records
    other = Run(
        "other",
        solver.manifest.model_copy(update={"verifier_checksum": "f" * 64, "model": "другая"}),
        [edited.model_copy(update={"task_hash": "0" * 16}), *rest],
    )
    result = compare(solver, other)
    assert "verifier_checksum" in result.differences
    assert result.changed == [edited.task] and result.common == len(rest)
    assert edited.task not in result.pass_to_fail + result.fail_to_pass
    board = build([solver, other])
    assert board.verifiers == sorted({solver.manifest.verifier_checksum[:12], "f" * 12})
    assert build([solver]).verifiers == []


def test_runner_board_and_compare_in_the_terminal(runs, tmp_path):
    home = tmp_path / "home"
    (home / "runs").mkdir(parents=True)
    for run in mine(runs):
        (home / "runs" / run.name).symlink_to(runs / run.name)
    shown = runner(home, "board", "--site", "hotels")
    assert shown.returncode == 0, shown.stderr
    assert "oracle" in shown.stdout and "theme=dark" in shown.stdout
    assert "Why attempts failed" in shown.stdout and "false_success" in shown.stdout
    # Piped: every column, and the conditions left unmet most often in words.
    assert "pass^k" in shown.stdout and "left out" not in shown.stdout
    assert "the conditions left unmet most often" in shown.stdout
    assert "chose the city: city: Женева, Швейцария (ch-gva)" in shown.stdout
    as_json = runner(home, "board", "--site", "hotels", "--json")
    assert as_json.returncode == 0, as_json.stderr
    board = Board.model_validate_json(as_json.stdout)
    assert {r.harness for r in board.rows} >= {"oracle", "noop"}
    compared = runner(home, "compare", "20990301T000000Z-oracle", "20990301T000001Z-noop")
    assert compared.returncode == 0 and "hotels_pick_city" in compared.stdout
    missing = runner(home, "compare", "20990301T000000Z-oracle", "nothing")
    assert missing.returncode == 2 and "no run named" in missing.stdout


def check_page(browser: Browser, url: str, theme: str, login: str | None = None) -> str:
    """Open the board in `theme`; no console error, every chart and the table there; the
    page's background colour."""
    context = browser.new_context(color_scheme=theme)  # type: ignore[arg-type]
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    if login:  # the login cookie, without opening the runs page
        assert context.request.get(login).ok
    page.goto(url)
    expect(page.get_by_role("table", name="Leaderboard")).to_be_visible()
    for name in CHARTS:
        expect(page.locator(f'svg[data-chart="{name}"]')).to_have_count(1)
    assert page.locator('svg[data-chart="ems"] rect.bar').count() == 4
    page.get_by_role("columnheader", name="Gap").click()
    first = page.get_by_role("table", name="Leaderboard").get_by_role("row").nth(1)
    # The largest gap first: noop's or the done-at-once model's, 3 of 3.
    expect(first.get_by_role("cell").nth(5)).to_have_text("1.000 [0.44–1.00]")
    classes = page.get_by_role("table", name="Failure classes", exact=True)
    expect(classes.get_by_role("row", name="false success")).to_contain_text("3 · 1.000")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    context.close()
    assert not errors, errors
    return str(background)


def test_the_hub_page_in_both_themes(runs, own_stack, browser):
    login = f"{own_stack.hub_url}/view/login?token={own_stack.token}"
    url = f"{own_stack.hub_url}/view/board"
    light, dark = (check_page(browser, url, theme, login) for theme in ("light", "dark"))
    assert light == "rgb(255, 255, 255)" and dark != light


def test_the_static_export_in_both_themes(runs, tmp_path, browser):
    index = export(mine(runs), tmp_path / "site")
    assert (tmp_path / "site" / "assets" / "board.css").is_file()
    light, dark = (check_page(browser, index.as_uri(), theme) for theme in ("light", "dark"))
    assert light != dark
    data = json.loads((tmp_path / "site" / "board.json").read_text())
    assert data["board"]["rows"][0]["ems"]["value"] == 1.0
    assert "site-hotels.html" in data["filtered"] and (tmp_path / "site/site-hotels.html").exists()
    table = list(csv.DictReader(io.StringIO((tmp_path / "site" / "board.csv").read_text())))
    assert {r["harness"] for r in table} == {"oracle", "noop", "dom"}
    oracle = next(r for r in table if r["harness"] == "oracle")
    assert (oracle["ems"], oracle["pass_hat_k"], oracle["repeat"]) == ("1.0", "1.0", "2")
