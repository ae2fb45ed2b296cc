"""The oracle solves every robustness variant of the shell's `latency` and `overlay`
perturbations (tasks/variants.toml), EMS 1 each, without a flag: it answers the dialogs,
waits out the spinner and the late answers, scrolls from under the sticky banner and clicks
once, so no commit is doubled. noop scores 0 on them. The episodes are the corpus's
(tests/runner/conftest.py)."""

from __future__ import annotations

import pytest
from support.runs import failures

from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from services.core import perturb

KEYS = ("latency", "overlay")
CASES = [f"{key}_{impl}" for key in KEYS for impl in perturb.KEYS[key][1:]]


def variants(suffix: str) -> list:
    return [
        ref
        for ref in select_tasks(TASKS_DIR, None, None, "robustness")
        if ref.is_variant and ref.name.endswith(f"__{suffix}")
    ]


def perturbed() -> list:
    return [ref for suffix in CASES for ref in variants(suffix)]


def test_every_implementation_has_variants_on_four_sites() -> None:
    for suffix in CASES:
        assert len({ref.site for ref in variants(suffix)}) >= 4, suffix


@pytest.mark.corpus(oracle=perturbed)
@pytest.mark.parametrize("suffix", CASES)
def test_oracle_solves_the_perturbed_variants(corpus, suffix: str) -> None:
    records = corpus.oracle.records(variants(suffix))
    assert failures(records) == {}
    assert all(r.done_and_pass == 1 and not r.unprompted and r.side_effects == [] for r in records)


@pytest.mark.corpus(noop=perturbed)
def test_noop_scores_nothing_on_them(corpus) -> None:
    assert all(r.ems == 0 for r in corpus.noop.records(perturbed()))
