"""The held-out gap from records (docs/results.md, "The held-out gap"): a released run and a
generated one by the same model × harness, EMS on the families' donors against EMS on their
instances, overall and per family, each figure against a hand computation; the generated
suite's variants paired with its own instances; then `runner board` on both suites."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.runs import runner

from runner.run.evaluate import summarize
from services.core.models.folder import Run, RunFolder, finished_runs
from services.core.models.run import Manifest, Record
from services.core.results.board import build
from services.core.results.page import render_board
from services.core.results.stats import newcombe_unpaired

SUITE = "all-7"


def record(task: str, repeat: int, ems: int, **fields: object) -> Record:
    return Record(task=task, repeat=repeat, site=task.split("_")[0], ems=ems, **fields)


def write_run(root: Path, name: str, suite: str, records: list[Record]) -> Run:
    folder = root / name
    manifest = Manifest(
        created_at=name,
        harness="dom",
        model="m",
        suite=suite,
        tasks=len({r.task for r in records}),
        task_set_hash=f"{suite}-set",
    )
    RunFolder(folder).write(manifest, records, summarize(records))
    run = RunFolder(folder).read()
    assert run is not None
    return run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("home") / "runs"
    # The released donors: grocery_units' one (passed), shop_units' two (both passed).
    donors = [
        record("grocery_several_units", 1, 1),
        record("shop_units_dish_soap", 1, 1),
        record("shop_units_spaghetti", 1, 1),
        record("grocery_showcase_tea", 1, 0),  # no family of the generated run models it
        record("files_year_lab_2023", 1, 1),
    ]
    write_run(root, "20990601T000000Z-dom", "released", donors)
    # The generated instances: grocery_units 1 of 4, shop_units 2 of 2; an instance's dark
    # variant fails where the instance passed.
    made = [
        *(record(f"grocery_units-7-00{k}", 1, int(k == 1)) for k in range(1, 5)),
        *(record(f"shop_units-7-00{k}", 1, 1) for k in (1, 2)),
        record("files_year-7-001", 1, 1),  # a small family: 13 distinct instances
        record(
            "shop_units-7-001__theme_dark",
            1,
            0,
            variant=True,
            donor="shop_units-7-001",
            controls={"theme": "dark"},
        ),
    ]
    write_run(root, "20990601T000001Z-dom", SUITE, made)
    return root


def every(runs: Path) -> list[Run]:
    return finished_runs(runs)


def test_the_gap_by_hand(runs: Path) -> None:
    for suite in ("released", SUITE):  # both boards show it
        (row,) = build(every(runs), suite=suite).heldout
        assert (row.released_run, row.generated_run) == (
            "20990601T000000Z-dom",
            "20990601T000001Z-dom",
        )
        assert (row.overall.released.k, row.overall.released.n) == (4, 4)
        assert (row.overall.generated.k, row.overall.generated.n) == (4, 7)  # not the variant
        delta, low, high = newcombe_unpaired(4, 4, 4, 7)
        assert row.overall.delta == pytest.approx(delta, abs=1e-4) == round(4 / 7 - 1, 4)
        assert (row.overall.low, row.overall.high) == (round(low, 4), round(high, 4))
        grocery = row.by_family["grocery_units"]
        assert (grocery.released.k, grocery.generated.k, grocery.generated.n) == (1, 1, 4)
        assert row.by_family["shop_units"].delta == 0.0
        assert set(row.by_family) == {"files_year", "grocery_units", "shop_units"}
        assert row.small == {"files_year": 13}  # its figures are marked, the others' not


def test_a_small_familys_figures_are_marked_on_the_page(runs: Path) -> None:
    board = build(every(runs), suite=SUITE)
    page = render_board(board, href=lambda _: "#", assets="", lang="ru")
    marked = re.findall(r"<code>(\w+)</code><br><small[^>]*>([^<]*)</small>", page)
    said = "малое семейство (различных заданий: 13): новый seed повторяет их ответы"
    assert marked == [("files_year", said)]


def test_a_generated_suites_variants_pair_with_its_own_instances(runs: Path) -> None:
    board = build(every(runs), suite=SUITE)
    cell = board.variants.cells["theme=dark"]["m · dom"]
    assert (cell.n, cell.a_only, cell.delta) == (1, 1, -1.0)


def test_runner_board_shows_the_gap_on_both_suites(processes, runs: Path) -> None:
    for suite in ("released", SUITE):
        shown = runner(runs.parent, "board", "--suite", suite)
        assert shown.returncode == 0, shown.stderr
        assert "Held-out" in shown.stdout and "grocery_units" in shown.stdout, shown.stdout
        assert "(small: 13 distinct tasks)" in shown.stdout, shown.stdout
