"""The robustness section from records (docs/results.md, "Robustness"): perturbation
variants paired with their donors in the released run at the same viewport, a run at the
mobile viewport against the same suite's run at the default one, the recovery tasks'
success and duplicate commits; each figure against a hand computation, then in `runner
board --suite robustness`, its heat map rows and the static export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.runs import runner

from runner.results.static_board import export
from runner.run.evaluate import summarize
from services.core.models.folder import Run, RunFolder, finished_runs
from services.core.models.run import ConditionReport, Manifest, Record, Viewport
from services.core.results.board import build

DONORS = ("shop_cart_kettle", "books_cart_novel")
MOBILE = Viewport(width=390, height=844)


def variant(donor: str, repeat: int, key: str, impl: str, ems: int) -> Record:
    return Record(
        task=f"{donor}__{key}_{impl}",
        repeat=repeat,
        site=donor.split("_")[0],
        variant=True,
        donor=donor,
        controls={key: impl},
        ems=ems,
    )


def recovery(task: str, repeat: int, ems: int, committed_again: bool) -> Record:
    """A recovery attempt whose task forbids placing the order again."""
    conditions = [
        ConditionReport(
            event_name="basket_add", parameters={}, success=bool(ems), matched_event=None
        ),
        ConditionReport(
            event_name="submit_payment",
            parameters={},
            forbidden=True,
            success=not committed_again,
            matched_event=None,
        ),
    ]
    return Record(
        task=task, repeat=repeat, site="shop", recovery=True, ems=ems, conditions=conditions
    )


def write_run(root: Path, name: str, suite: str, records: list[Record], viewport: Viewport) -> Run:
    folder = root / name
    manifest = Manifest(
        created_at=name,
        harness="dom",
        model="m",
        suite=suite,
        repeat=2,
        tasks=len({r.task for r in records}),
        task_set_hash=f"{suite}-set",
        viewport=viewport,
    )
    RunFolder(folder).write(manifest, records, summarize(records))
    run = RunFolder(folder).read()
    assert run is not None
    return run


def robustness_records(failing: int) -> list[Record]:
    """Two donors × two attempts under `overlay=consent` (all pass) and `latency=slow` (the
    first `failing` attempts fail), and a recovery task twice: solved once, the second time
    paying again."""
    records = []
    for donor in DONORS:
        for n in (1, 2):
            records.append(variant(donor, n, "overlay", "consent", 1))
            index = DONORS.index(donor) * 2 + n
            records.append(variant(donor, n, "latency", "slow", int(index > failing)))
    records += [
        recovery("shop_recover_paid", 1, 1, committed_again=False),
        recovery("shop_recover_paid", 2, 0, committed_again=True),
    ]
    return records


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("home") / "runs"
    donors = [
        Record(task=d, repeat=n, site=d.split("_")[0], donor=d, ems=1)
        for d in DONORS
        for n in (1, 2)
    ]
    write_run(root, "20990401T000000Z-dom", "released", donors, Viewport())
    write_run(root, "20990401T000001Z-dom", "robustness", robustness_records(3), Viewport())
    # At 390x844: no released run there, and one more slow attempt fails.
    write_run(root, "20990401T000002Z-dom", "robustness", robustness_records(4), MOBILE)
    return root


def every(runs: Path) -> list[Run]:
    return finished_runs(runs)


def test_the_robustness_figures_by_hand(runs: Path) -> None:
    assert build(every(runs)).robustness == []  # the released board has none
    runs_at = {run.viewport: run for run in every(runs) if run.suite == "robustness"}
    released = [run for run in every(runs) if run.suite == "released"]
    (desktop,) = build([*released, runs_at["1280x800"]], suite="robustness").robustness
    (mobile,) = build(every(runs), suite="robustness").robustness  # the newest: at 390x844
    assert (desktop.viewport, mobile.viewport) == ("1280x800", "390x844")
    # Donor (A, all four pass) against variant (B): consent 4 of 4, slow 1 of 4.
    assert desktop.donor_run == "20990401T000000Z-dom"
    slow = desktop.by_perturbation["latency=slow"]
    assert (slow.n, slow.both, slow.a_only, slow.b_only) == (4, 1, 3, 0)
    assert slow.delta == -0.75 and slow.p == 0.25  # McNemar: 2 · (1/2)³
    consent = desktop.by_perturbation["overlay=consent"]
    assert (consent.n, consent.both, consent.delta, consent.p) == (4, 4, 0.0, 1.0)
    assert desktop.perturbed is not None and desktop.perturbed.n == 8
    assert desktop.perturbed.a_only == 3
    assert desktop.default_run is None and desktop.against_default is None
    # Recovery: solved once of two; the order placed again once of the two that forbid it.
    assert (desktop.recovery.k, desktop.recovery.n) == (1, 2)
    assert (desktop.duplicate_commit.k, desktop.duplicate_commit.n) == (1, 2)
    # The mobile run: no released run at 390x844 to pair with; against the desktop run of
    # the suite, attempt with attempt: one more slow attempt fails there (10 attempts).
    assert mobile.donor_run is None and mobile.by_perturbation == {}
    assert mobile.default_run == "20990401T000001Z-dom"
    against = mobile.against_default
    assert against is not None and (against.n, against.a_only, against.b_only) == (10, 1, 0)


def test_the_heat_map_pairs_a_suites_variants_with_the_released_donors(runs: Path) -> None:
    # The newest robustness run is the mobile one; its donors are only at 1280x800.
    assert build(every(runs), suite="robustness").variants.controls == []
    board = build([r for r in every(runs) if r.viewport == "1280x800"], suite="robustness")
    assert board.variants.controls == ["latency=slow", "overlay=consent"]
    cell = board.variants.cells["latency=slow"]["m · dom"]
    assert (cell.n, cell.a_only) == (4, 3)


def test_runner_board_and_its_export_show_the_robustness_section(
    processes, runs: Path, tmp_path: Path
) -> None:
    home = runs.parent
    shown = runner(home, "board", "--suite", "robustness")
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert "Robustness" in out and "390x844" in out and "-0.100 [-0.32; +0.14]" in out
    assert "0.500 [0.09–0.91]" in out  # recovery 1 of 2
    exported = runner(home, "board", "export", str(tmp_path / "site"), "--suite", "robustness")
    assert exported.returncode == 0, exported.stderr
    page = (tmp_path / "site" / "ru" / "index.html").read_text()
    assert 'aria-label="Устойчивость"' in page and "Восстановление" in page
    data = json.loads((tmp_path / "site" / "board.json").read_text())
    (row,) = data["board"]["robustness"]
    assert row["viewport"] == "390x844" and row["against_default"]["a_only"] == 1
    released = tmp_path / "released"
    export([r for r in every(runs) if r.suite == "released"], released)
    assert 'aria-label="Устойчивость"' not in (released / "ru" / "index.html").read_text()
