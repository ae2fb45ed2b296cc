"""The board's held-out gap (docs/results.md, "The held-out gap"): a model × harness's EMS
on a generated suite against its EMS on the released tasks that the suite's families model
(each family names its donors, `tasks/families/`), overall and per family, with Newcombe's
interval for the difference of two independent rates. An agent that learned the released
tasks scores lower on unseen instances of the same families; an honest one does not."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from services.core.families import SMALL_SPACE, Family, instance_family, load_families
from services.core.models.board import Filter, GapView, HeldoutRow
from services.core.models.run import Record
from services.core.models.task import RELEASED
from services.core.results.stats import newcombe_unpaired, share
from services.core.tasks import GENERATED_SUITE, SUITES


class Run(Protocol):
    """What the gap reads of a board's run (services.core.results.board.Run)."""

    @property
    def name(self) -> str: ...
    @property
    def records(self) -> list[Record]: ...
    @property
    def key(self) -> tuple[str, str]: ...
    @property
    def suite(self) -> str: ...
    @property
    def viewport(self) -> str: ...
    @property
    def created(self) -> str: ...


# The repository's task folder, whose families/ name each family's donors.
TASKS_DIR = Path(__file__).resolve().parents[3] / "tasks"


def generated(suite: str) -> bool:
    """Whether `suite` is a generated one (`<family>-<seed>`, `all-<seed>`)."""
    return suite not in SUITES and GENERATED_SUITE.fullmatch(suite) is not None


def passed(record: Record) -> bool:
    return record.ems == 1


def gap(released: list[Record], made: list[Record]) -> GapView:
    """Generated (B) against released (A) on the scored attempts of each."""
    a, b = share(released, passed), share(made, passed)
    delta, low, high = newcombe_unpaired(a.k, a.n, b.k, b.n)
    return GapView(
        released=a,
        generated=b,
        delta=None if delta is None else round(delta, 4),
        low=round(low, 4),
        high=round(high, 4),
        significant=delta is not None and (low > 0 or high < 0),
    )


def heldout_row(
    released: Run, made: Run, only: Filter, families: Mapping[str, Family]
) -> HeldoutRow | None:
    """The gap of one pair of runs by family, the families that both runs have attempts of,
    and which of those are small (their answers repeat across seeds); None where they share
    none."""
    # The instances themselves: their variants are the sensitivity table's.
    mine = [r for r in made.records if r.scored and not r.variant and only.keeps(r)]
    theirs = [r for r in released.records if r.scored and only.keeps(r)]
    by_family: dict[str, GapView] = {}
    small: dict[str, int] = {}
    every_released: dict[str, Record] = {}
    every_made: list[Record] = []
    for family in sorted({f for r in mine if (f := instance_family(r.task))}):
        known = families.get(family)
        stems = set(known.donors if known else ())
        base = [r for r in theirs if r.task in stems]
        ours = [r for r in mine if instance_family(r.task) == family]
        if not base:
            continue
        by_family[family] = gap(base, ours)
        if known is not None and known.space < SMALL_SPACE:
            small[family] = known.space
        every_made += ours
        every_released |= {f"{r.task}#{r.repeat}": r for r in base}
    if not by_family:
        return None
    model, harness = made.key
    return HeldoutRow(
        model=model,
        harness=harness,
        released_run=released.name,
        generated_run=made.name,
        generated_suite=made.suite,
        overall=gap(list(every_released.values()), every_made),
        by_family=by_family,
        small=small,
    )


def heldout(
    shown: Sequence[Run],
    runs: Sequence[Run],
    only: Filter,
    families: Mapping[str, Family] | None = None,
) -> list[HeldoutRow]:
    """A row per shown run that has a counterpart: on the released board, the newest
    generated run of the same model × harness at the same viewport; on a generated suite's
    board, the newest released one. None on the other suites' boards."""
    if families is None:
        families = load_families(TASKS_DIR)
    rows = []
    for run in shown:
        same = [r for r in runs if r.key == run.key and r.viewport == run.viewport]
        if run.suite == RELEASED:
            others = [r for r in same if generated(r.suite)]
        elif generated(run.suite):
            others = [r for r in same if r.suite == RELEASED]
        else:
            continue
        other = max(others, key=lambda r: (r.created, r.name), default=None)
        if other is None:
            continue
        released, made = (run, other) if run.suite == RELEASED else (other, run)
        row = heldout_row(released, made, only, families)
        if row is not None:
            rows.append(row)
    return rows
