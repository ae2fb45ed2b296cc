"""The board over runs: one row per model × harness on one suite's task set, every rate
with its Wilson interval, the claimed-versus-confirmed gap, pairwise McNemar tests, the variant
sensitivity table, and the comparison of two runs (docs/results.md)."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations

from services.core.models.board import (
    Board,
    Comparison,
    Facets,
    FailureRow,
    Filter,
    PairedView,
    Pairwise,
    RateView,
    RobustnessRow,
    Row,
    SafetyRow,
    Sensitivity,
    Side,
)
from services.core.models.folder import Run
from services.core.models.run import Manifest, Record, Status, Viewport
from services.core.models.task import RELEASED
from services.core.results import robustness as perturbations
from services.core.results.failures import failed, failure_row, occurring
from services.core.results.heldout import heldout
from services.core.results.robustness import robustness_row
from services.core.results.safety import over_action, relevant, safety_row
from services.core.results.stats import paired, repeats, share

KINDS = ("canonical", "variant")


class MixedSuites(ValueError):
    """Two runs of different suites: their tasks measure different things, never compared."""


def _scored(records: Iterable[Record]) -> list[Record]:
    return [r for r in records if r.scored]


def _by(records: list[Record], key: Callable[[Record], str]) -> dict[str, RateView]:
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    return {name: share(rows, lambda r: r.ems == 1) for name, rows in sorted(groups.items())}


def row(run: Run, only: Filter) -> Row:
    """One board row: the run's records that `only` keeps."""
    records = [r for r in run.records if only.keeps(r)]
    scored = _scored(records)
    said_done = [r for r in scored if r.completion]
    n = len(scored)
    model, harness = run.key
    return Row(
        model=model,
        harness=harness,
        run=run.name,
        created_at=run.manifest.created_at,
        task_set=run.task_set,
        verifier=(run.manifest.verifier_checksum or "")[:12] or None,
        repeat=run.manifest.repeat,
        ems=share(scored, lambda r: r.ems == 1),
        completion=share(scored, lambda r: bool(r.completion)),
        done_and_pass=share(scored, lambda r: bool(r.done_and_pass)),
        # Said done, conditions failed: of every scored attempt (Completion - Done&pass)
        # and of the attempts that said done (the false-done rate).
        gap=share(scored, lambda r: bool(r.completion) and r.ems != 1),
        false_done=share(said_done, lambda r: r.ems != 1),
        over_action=over_action(scored),
        steps=round(sum(r.steps for r in scored) / n, 2) if n else None,
        seconds=round(sum(r.seconds for r in scored) / n, 2) if n else None,
        cost=round(sum(r.cost for r in records), 6),
        priced=all(r.priced for r in records),
        infra_errors=sum(r.status == Status.INFRA_ERROR for r in records),
        infra_retries=sum(len(r.infra_errors) for r in records),
        tasks_scored=len({r.task for r in scored}),
        tasks=len({r.task for r in records}),
        attempts_scored=n,
        **repeats(scored).model_dump(),
        by_site=_by(scored, lambda r: r.site),
        by_ui=_by(scored, lambda r: r.ui_primary),
        by_kind=_by(scored, lambda r: r.kind),
    )


def _outcomes(run: Run, only: Filter) -> dict[tuple[str, int], bool]:
    return {r.attempt: r.ems == 1 for r in _scored(run.records) if only.keeps(r)}


def pair(a: Run, b: Run, only: Filter = Filter()) -> PairedView:
    """A against B on the attempts (task, attempt number) scored in both."""
    left, right = _outcomes(a, only), _outcomes(b, only)
    common = sorted(set(left) & set(right))
    return paired([(left[k], right[k]) for k in common]).view()


def variant_pairs(
    run: Run,
    only: Filter,
    others: list[Run],
    keep: Callable[[Record], bool] = lambda record: True,
) -> dict[str, list[tuple[bool, bool]]]:
    """Per control implementation: (donor passed, variant passed), attempt with attempt, of
    the variants `keep` takes; the donors are the run's own canonical attempts, and those of
    `others` (runs of the suites that hold the donors, where the run's suite does not: the
    released run for safety and robustness, any suite's for steps)."""
    scored = [r for r in _scored(run.records) if only.keeps(r) and keep(r)]
    # The run's own canonical attempts last (a generated suite's instances), over those of
    # the other suites' runs for variants of their tasks (a task's name is unique).
    donors = {r.attempt: r for other in others for r in _scored(other.records) if not r.variant}
    donors |= {r.attempt: r for r in _scored(run.records) if not r.variant}
    pairs: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for record in scored:
        donor = donors.get((record.donor, record.repeat))
        if record.variant and donor is not None:
            pairs[record.control_label].append((donor.ems == 1, record.ems == 1))
    return pairs


def sensitivity(shown: list[Run], runs: list[Run], only: Filter) -> Sensitivity:
    """The variant table (and the heat map): for each control implementation and row, the
    paired donor (A) against variant (B) result; `a_only` pass on the donor and fail on the
    variant. A run of another suite than the released one pairs its variants with their
    donors in `donor_runs`."""
    cells: dict[str, dict[str, PairedView]] = defaultdict(dict)
    for run in shown:
        for control, pairs in variant_pairs(run, only, donor_runs(runs, run)).items():
            cells[control][f"{run.key[0]} · {run.key[1]}"] = paired(pairs).view()
    return Sensitivity(controls=sorted(cells), cells={c: cells[c] for c in sorted(cells)})


@dataclass(frozen=True)
class Chosen:
    """The runs a board shows, on one task set, and the other task sets' runs apart."""

    task_set: str | None
    runs: list[Run]
    apart: dict[str, list[Run]]


def choose(
    runs: list[Run], latest: bool = True, suite: str = RELEASED, task_set: str | None = None
) -> Chosen:
    """The runs a board shows, of `suite` only: the newest per model × harness (every run
    with `latest` False) on `task_set`, or else the task set most rows share (the newest
    such on a tie); the suite's other task sets' runs apart, by set."""
    chosen: dict[tuple[str, str, str], Run] = {}
    ordered = sorted(runs, key=lambda r: (r.created, r.name))
    for run in (r for r in ordered if r.suite == suite):
        chosen[(*run.key, run.task_set if latest else run.name)] = run
    picked = list(chosen.values())
    if task_set is None and picked:
        counts: dict[str, int] = defaultdict(int)
        for run in picked:
            counts[run.task_set] += 1
        newest = {run.task_set: i for i, run in enumerate(picked)}
        task_set = max(counts, key=lambda s: (counts[s], newest[s]))
    main = [r for r in picked if r.task_set == task_set]
    apart: dict[str, list[Run]] = defaultdict(list)
    for run in picked:
        if run.task_set != task_set:
            apart[run.task_set].append(run)
    return Chosen(task_set, main, dict(apart))


SORTS = (
    "ems",
    "completion",
    "done_and_pass",
    "gap",
    "false_done",
    "over_action",
    "cost",
    "seconds",
)
# Sorted lowest first: less is better.
ASCENDING = ("cost", "seconds", "gap", "over_action")


def build(
    runs: list[Run],
    only: Filter = Filter(),
    latest: bool = True,
    suite: str = RELEASED,
    task_set: str | None = None,
    sort: str = "ems",
) -> Board:
    """The board of `suite`'s runs as data (what board.json holds)."""
    picked = choose(runs, latest, suite, task_set)

    def order(rows: list[Row]) -> list[Row]:
        def value(r: Row) -> float:
            field = getattr(r, sort)
            number = field.value if isinstance(field, RateView) else field
            return -1.0 if number is None else float(number)

        return sorted(rows, key=value, reverse=sort not in ASCENDING)

    rows = order([row(run, only) for run in picked.runs])
    by_label = {f"{r.key[0]} · {r.key[1]}": r for r in picked.runs}
    labels = [r.label for r in rows]
    ordered = [by_label[label] for label in labels]
    every = [r for run in picked.runs for r in run.records]
    return Board(
        suite=suite,
        suites=sorted({run.suite for run in runs} | {suite}),
        task_set=picked.task_set,
        task_set_tasks=max((r.manifest.tasks for r in picked.runs), default=0),
        filter=only,
        sort=sort,
        latest=latest,
        facets=Facets(
            site=sorted({r.site for r in every}),
            ui=sorted({r.ui_primary for r in every}),
            kind=[k for k in KINDS if any(r.kind == k for r in every)],
        ),
        rows=rows,
        pairwise=[
            Pairwise(
                a=a,
                b=b,
                run_a=by_label[a].name,
                run_b=by_label[b].name,
                **pair(by_label[a], by_label[b], only).model_dump(),
            )
            for a, b in combinations(labels, 2)
        ],
        variants=sensitivity(ordered, runs, only),
        safety=safety(ordered, runs, only),
        failures=(breakdown := failures(ordered, only)),
        failure_classes=occurring(breakdown),
        robustness=robustness(ordered, runs, only),
        heldout=heldout(ordered, runs, only),
        apart={
            other: order([row(run, only) for run in runs])
            for other, runs in sorted(picked.apart.items())
        },
    )


def newest(runs: list[Run], suite: str, key: tuple[str, str], viewport: str) -> Run | None:
    """The newest run of `suite` by the model × harness `key` at `viewport`."""
    same = [r for r in runs if r.suite == suite and r.key == key and r.viewport == viewport]
    return max(same, key=lambda r: (r.created, r.name), default=None)


def released_run(runs: list[Run], run: Run) -> Run | None:
    """Where `run`'s variants find their donors: the newest run of the released suite by
    the same model × harness at the same viewport (`run` itself when it is of that suite)."""
    return run if run.suite == RELEASED else newest(runs, RELEASED, run.key, run.viewport)


def donor_runs(runs: list[Run], run: Run) -> list[Run]:
    """Where `run`'s variants find donors besides `run` itself: the newest run of each
    other suite by the same model × harness at the same viewport (the steps suite's donors
    are released, safety, robustness and screens tasks)."""
    suites = {r.suite for r in runs} - {run.suite}
    found = (newest(runs, suite, run.key, run.viewport) for suite in sorted(suites))
    return [other for other in found if other is not None]


def safety(shown: list[Run], runs: list[Run], only: Filter) -> list[SafetyRow]:
    """The safety section: a row per shown run, each variant paired with its donor in the
    same model × harness's released run among `runs`; none where no shown run has an
    injection attempt or a stopping task."""
    kept = {run.name: [r for r in run.records if only.keeps(r)] for run in shown}
    if not any(relevant(records) for records in kept.values()):
        return []
    rows = []
    for run in shown:
        released = released_run(runs, run)
        donors = (released.name, released.records) if released else None
        rows.append(safety_row((*run.key, run.name), kept[run.name], donors))
    return rows


def failures(shown: list[Run], only: Filter) -> list[FailureRow]:
    """The failure breakdown: a row per shown run; none where no shown run has a failed
    attempt with a class (every one passed, or the records predate the classes)."""
    kept = {run.name: [r for r in run.records if only.keeps(r)] for run in shown}
    if not any(failed(records) for records in kept.values()):
        return []
    return [failure_row((*run.key, run.name), kept[run.name]) for run in shown]


def robustness(shown: list[Run], runs: list[Run], only: Filter) -> list[RobustnessRow]:
    """The robustness section: a row per shown run, its perturbation variants paired with
    their donors in the same model × harness's released run at the same viewport, and a run
    at another viewport against the same suite's run at the default one; none where no
    shown run has a perturbation variant or a recovery task."""
    kept = {run.name: [r for r in run.records if only.keeps(r)] for run in shown}
    if not any(perturbations.relevant(records) for records in kept.values()):
        return []
    default = Viewport().name
    rows = []
    for run in shown:
        released = released_run(runs, run)
        donors = None
        if released is not None:
            pairs = variant_pairs(run, only, [released], perturbations.perturbed)
            donors = (released.name, pairs)
        reference = None if run.viewport == default else newest(runs, run.suite, run.key, default)
        default_of = None
        if reference is not None:
            against = pair(reference, run, only)
            default_of = (reference.name, against if against.n else None)
        label = (*run.key, run.name, run.viewport)
        rows.append(robustness_row(label, kept[run.name], donors, default_of))
    return rows


def side(run: Run) -> Side:
    model, harness = run.key
    return Side(run=run.name, model=model, harness=harness, suite=run.suite, task_set=run.task_set)


# The manifest fields that say where a run ran; for runs of the same harness, also those
# that say how the harness was set up. A comparison names those that differ.
ENVIRONMENT = (
    "verifier_checksum",
    "catalogs",
    "commit",
    "versions",
    "browser",
    "viewport",
    "fonts",
    "locale",
    "timezone",
    "today",
    "time_limit_s",
    "backend",
    "repeat",
)
HARNESS = ("harness_packages", "observation", "action", "agent")


def manifest_differences(a: Manifest, b: Manifest) -> list[str]:
    """The fields of ENVIRONMENT (and HARNESS, for one harness) in which `a` and `b` differ;
    a run's backend compares by its kind and images (the queue's servers do not matter)."""

    def value(manifest: Manifest, name: str) -> object:
        field = getattr(manifest, name)
        if name == "backend":
            return (field.get("kind"), field.get("images"), field.get("digests"))
        if name == "viewport":
            return field or Viewport()
        return field

    fields = ENVIRONMENT + (HARNESS if a.harness == b.harness else ())
    return [name for name in fields if value(a, name) != value(b, name)]


def compare(a: Run, b: Run) -> Comparison:
    """B against A on their common attempts: overall and by site, UI class and kind, with
    the tasks that flipped and the manifest fields that differ. Attempts of one name on
    different tasks (their records' task hashes differ) are not paired but named. Runs of
    different suites are refused (MixedSuites)."""
    if a.suite != b.suite:
        raise MixedSuites(
            f"run {a.name} is of the {a.suite} suite and run {b.name} of the {b.suite}"
            " suite: runs of different suites are not compared"
        )
    every = Filter()
    left, right = _outcomes(a, every), _outcomes(b, every)
    records = {r.attempt: r for r in b.records}
    hashes = {r.attempt: r.task_hash for r in a.records}
    both = sorted(set(left) & set(right))
    changed = [
        i
        for i in both
        if None not in (hashes[i], records[i].task_hash) and hashes[i] != records[i].task_hash
    ]
    common = [i for i in both if i not in changed]

    def facet(key: Callable[[Record], str]) -> dict[str, PairedView]:
        groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
        for item in common:
            groups[key(records[item])].append((left[item], right[item]))
        return {name: paired(pairs).view() for name, pairs in sorted(groups.items())}

    def name(item: tuple[str, int]) -> str:
        return item[0] if b.manifest.repeat == 1 else f"{item[0]} #{item[1]}"

    return Comparison(
        a=side(a),
        b=side(b),
        same_task_set=a.task_set == b.task_set,
        common=len(common),
        only_a=len(set(left) - set(right)),
        only_b=len(set(right) - set(left)),
        overall=paired([(left[i], right[i]) for i in common]).view(),
        by_site=facet(lambda r: r.site),
        by_ui=facet(lambda r: r.ui_primary),
        by_kind=facet(lambda r: r.kind),
        pass_to_fail=[name(i) for i in common if left[i] and not right[i]],
        fail_to_pass=[name(i) for i in common if right[i] and not left[i]],
        changed=[name(i) for i in changed],
        differences=manifest_differences(a.manifest, b.manifest),
    )


CSV_RATES = ("ems", "completion", "done_and_pass", "gap", "false_done", "over_action")


def to_csv(board: Board) -> str:
    """The board's rows as CSV: each rate with its interval's bounds."""
    out = io.StringIO()
    writer = csv.writer(out)
    header = ["model", "harness", "run", "suite", "task_set"]
    for name in CSV_RATES:
        header += [name, f"{name}_low", f"{name}_high"]
    header += ["steps", "seconds", "cost", "infra_errors", "infra_retries", "tasks_scored"]
    header += ["tasks", "repeat", "pass_at_k", "pass_hat_k", "agreement"]
    writer.writerow(header)
    for item in board.rows:
        k = str(item.attempts)
        line: list[object] = [item.model, item.harness, item.run, board.suite, item.task_set]
        for name in CSV_RATES:
            rate_of: RateView = getattr(item, name)
            line += [rate_of.value, rate_of.low, rate_of.high]
        line += [item.steps, item.seconds, item.cost, item.infra_errors]
        line += [item.infra_retries, item.tasks_scored, item.tasks, item.repeat]
        line += [item.pass_at_k.get(k), item.pass_hat_k.get(k), item.agreement]
        writer.writerow(["" if v is None else v for v in line])
    return out.getvalue()
