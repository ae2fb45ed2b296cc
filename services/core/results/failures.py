"""The board's failure breakdown (docs/results.md, "Failure classes"): per model × harness,
how its failed attempts divide among the classes (a share of the failed attempts, with its
interval), each class's share as a tag too, and the counts of each class by site and by UI
class. Every figure comes from the records' `failure`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from services.core.failure import PRECEDENCE
from services.core.models.board import FailureRow, Unmet
from services.core.models.run import Record
from services.core.results.stats import share


def failed(records: list[Record]) -> list[Record]:
    """The scored attempts that have a failure class."""
    return [r for r in records if r.scored and r.failure is not None]


def _counts(records: list[Record], key: Callable[[Record], str]) -> dict[str, dict[str, int]]:
    """class -> facet value -> failed attempts of that class there (the classes that occur,
    in precedence order)."""
    counts = Counter((r.failure.class_, key(r)) for r in records if r.failure is not None)
    return {
        name: {value: n for (cls, value), n in sorted(counts.items()) if cls == name}
        for name in PRECEDENCE
        if any(cls == name for cls, _ in counts)
    }


def _of_class(name: str) -> Callable[[Record], bool]:
    return lambda r: r.failure is not None and r.failure.class_ == name


def _tagged(name: str) -> Callable[[Record], bool]:
    return lambda r: r.failure is not None and name in r.failure.tags


# How many of a row's most often unmet conditions the board lists.
UNMET_SHOWN = 5


def most_unmet(failures: list[Record]) -> list[Unmet]:
    """The conditions the failed attempts left unmet most often (by the site, the event and
    the parameters as judged), the most first, at most UNMET_SHOWN."""
    counts: Counter[str] = Counter()
    first: dict[str, Unmet] = {}
    for r in failures:
        for c in r.conditions:
            if c.success:
                continue
            unmet = Unmet(
                site=r.site,
                event_name=c.event_name,
                parameters=c.parameters,
                forbidden=c.forbidden,
                group=c.group,
                attempts=0,
            )
            key = unmet.dumps(None)
            counts[key] += 1
            first.setdefault(key, unmet)
    return [
        first[key].model_copy(update={"attempts": n}) for key, n in counts.most_common(UNMET_SHOWN)
    ]


def failure_row(label: tuple[str, str, str], records: list[Record]) -> FailureRow:
    """One row's breakdown: `label` (model, harness, run) and the run's `records` that the
    board counts."""
    scored = [r for r in records if r.scored]
    failures = failed(scored)
    classes = Counter(r.failure.class_ for r in failures if r.failure is not None)
    tags = Counter(t for r in failures if r.failure is not None for t in r.failure.tags)
    model, harness, run = label
    return FailureRow(
        model=model,
        harness=harness,
        run=run,
        scored=len(scored),
        failed=len(failures),
        by_class={c: share(failures, _of_class(c)) for c in PRECEDENCE if classes[c]},
        by_tag={c: share(failures, _tagged(c)) for c in PRECEDENCE if tags[c]},
        by_site=_counts(failures, lambda r: r.site),
        by_ui=_counts(failures, lambda r: r.ui_primary),
        unmet=most_unmet(failures),
    )


def occurring(rows: list[FailureRow]) -> list[str]:
    """The classes any of `rows` has, as a class or a tag, in precedence order."""
    return [c for c in PRECEDENCE if any(c in r.by_class or c in r.by_tag for r in rows)]
