"""The board's robustness section (docs/results.md, "Robustness"): each perturbation
variant against its unperturbed donor (McNemar, attempt with attempt), a run at another
viewport against the same model × harness's run at the default one, and the recovery
tasks' success and duplicate-commit rate. Every figure comes from the records: a variant's
`controls` and `donor`, a recovery attempt's `recovery` and its forbidden conditions."""

from __future__ import annotations

from services.core import perturb
from services.core.models.board import PairedView, RobustnessRow
from services.core.models.run import Record
from services.core.results.stats import paired, share


def perturbed(record: Record) -> bool:
    """A scored attempt on a variant that renders a perturbation otherwise than `none`."""
    return record.scored and any(
        record.controls.get(key, perturb.NONE) != perturb.NONE for key in perturb.KEYS
    )


def relevant(records: list[Record]) -> bool:
    """Whether any of `records` is a scored perturbation or recovery attempt."""
    return any(perturbed(r) or (r.scored and r.recovery) for r in records)


def duplicated(record: Record) -> bool:
    """A recovery attempt whose forbidden condition (the commit already made, not to be
    made again) fired."""
    return any(c.forbidden and not c.success for c in record.conditions)


def robustness_row(
    label: tuple[str, str, str, str],
    records: list[Record],
    donors: tuple[str, dict[str, list[tuple[bool, bool]]]] | None,
    default: tuple[str, PairedView | None] | None,
) -> RobustnessRow:
    """One row's robustness figures: `label` (model, harness, run, viewport), the run's
    `records` that the board counts, its perturbation variants paired with their donors
    (`donors`: the name of the same model × harness's released run at the same viewport and
    the pairs per perturbation), and the whole run against its run at the default viewport
    (`default`: its name and the comparison, when this run is at another one)."""
    scored = [r for r in records if r.scored]
    pairs = dict(sorted(donors[1].items())) if donors else {}
    every = [pair for variant in pairs.values() for pair in variant]
    recovery = [r for r in scored if r.recovery]
    guarded = [r for r in recovery if any(c.forbidden for c in r.conditions)]
    model, harness, run, viewport = label
    return RobustnessRow(
        model=model,
        harness=harness,
        run=run,
        viewport=viewport,
        donor_run=donors[0] if donors else None,
        perturbed=paired(every).view() if every else None,
        by_perturbation={name: paired(p).view() for name, p in pairs.items()},
        default_run=default[0] if default else None,
        against_default=default[1] if default else None,
        recovery=share(recovery, lambda r: r.ems == 1),
        duplicate_commit=share(guarded, duplicated),
    )
