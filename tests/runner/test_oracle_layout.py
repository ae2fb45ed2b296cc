"""The oracle solves every robustness variant of the `layout`, `session` and `tabs`
perturbations (tasks/variants.toml, "perturbations"): it scrolls a lazy list, pages a
paginated one, finds repeated controls by name, logs in again when a session expires and
follows an item into its new tab. noop, which does nothing, passes none of them. The
episodes are the corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

import pytest
from support.runs import failures

from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR

KEYS = {"layout", "session", "tabs"}
IMPLEMENTATIONS = {
    ("layout", "lazy"),
    ("layout", "paginated"),
    ("layout", "dup_labels"),
    ("session", "expire"),
    ("tabs", "new_tab"),
}


def perturbed() -> list:
    refs = select_tasks(TASKS_DIR, None, None, "robustness")
    return [ref for ref in refs if KEYS & ref.task["test_data"].get("ui_variants", {}).keys()]


def test_every_implementation_on_four_donors_across_the_sites() -> None:
    refs = perturbed()
    for key, impl in IMPLEMENTATIONS:
        donors = [r for r in refs if r.task["test_data"]["ui_variants"].get(key) == impl]
        assert len(donors) >= 4, (key, impl)
        assert len({r.site for r in donors}) >= 3, (key, impl)
    assert {r.site for r in refs} == {"shop", "books", "grocery", "hotels", "rail", "files"}


@pytest.mark.corpus(oracle=perturbed, noop=perturbed)
def test_the_oracle_solves_them_and_noop_none(corpus) -> None:
    refs = perturbed()
    records = corpus.oracle.records(refs)
    assert failures(records) == {}
    assert all(r.done_and_pass == 1 and r.steps > 0 for r in records)
    assert all(r.ems == 0 for r in corpus.noop.records(refs))
