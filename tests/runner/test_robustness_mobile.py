"""The robustness suite on a phone (390x844, a mobile context with touch): the oracle solves
a representative part of it, every perturbation implementation once and a recovery task of
every site, and noop none; under `full`, the whole suite (66 tasks, about five minutes more).
The episodes are the corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

import pytest
from support.runs import solved_on_a_phone

from runner.run.evaluate import TaskRef, select_tasks
from runner.settings import TASKS_DIR
from services.core import perturb


def whole() -> list:
    return select_tasks(TASKS_DIR, None, None, "robustness")


def representative() -> list:
    """The first variant of the suite under each perturbation implementation, and the first
    recovery task of each site."""
    chosen: dict[tuple[str, str], TaskRef] = {}
    for ref in whole():
        variants = ref.task["test_data"].get("ui_variants", {})
        for key in perturb.KEYS:
            impl = variants.get(key, perturb.NONE)
            if impl != perturb.NONE:
                chosen.setdefault((key, impl), ref)
        if ref.task["test_data"].get("start_state"):
            chosen.setdefault(("recovery", ref.site), ref)
    named = {ref.name: ref for ref in chosen.values()}
    return list(named.values())


def test_the_part_covers_every_perturbation_and_every_site() -> None:
    refs = representative()
    covered = {
        (key, ref.task["test_data"]["ui_variants"][key])
        for ref in refs
        for key in perturb.KEYS
        if ref.task["test_data"].get("ui_variants", {}).get(key, perturb.NONE) != perturb.NONE
    }
    every = {(key, impl) for key, impls in perturb.KEYS.items() for impl in impls[1:]}
    assert covered == every
    recovery = {ref.site for ref in refs if ref.task["test_data"].get("start_state")}
    assert recovery == {"shop", "books", "grocery", "hotels", "rail", "files"}


@pytest.mark.corpus(phone=representative, phone_noop=representative)
def test_the_oracle_solves_them_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, representative(), "robustness")


@pytest.mark.full
@pytest.mark.corpus(phone=whole, phone_noop=whole)
def test_the_oracle_solves_the_whole_suite_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, whole(), "robustness")
