"""The robustness suite on a phone (390x844, a mobile context with touch): the oracle solves
a representative part of it, every perturbation implementation once and a recovery task of
every site, and noop none. (The whole suite there, 66 tasks, takes about five minutes:
`runner eval --harness oracle --suite robustness --viewport 390x844` scored 1.000.)"""

from __future__ import annotations

import pytest
from helpers import failures, run_eval

from runner.evaluate import TaskRef, select_tasks
from runner.settings import TASKS_DIR
from services.core import perturb
from services.core.models.run import Viewport

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = Viewport(width=390, height=844)


def representative() -> list:
    """The first variant of the suite under each perturbation implementation, and the first
    recovery task of each site."""
    refs = select_tasks(TASKS_DIR, None, None, "robustness")
    chosen: dict[tuple[str, str], TaskRef] = {}
    for ref in refs:
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


def test_the_oracle_solves_them_on_a_phone_and_noop_none(stack, tmp_path) -> None:
    refs = representative()
    oracle = run_eval(stack, tmp_path / "oracle", "oracle", refs, viewport=PHONE)
    assert not failures(oracle.records)
    assert len(oracle.records) == len(refs) and oracle.manifest.viewport == PHONE
    noop = run_eval(stack, tmp_path / "noop", "noop", refs, viewport=PHONE).records
    assert all(r.ems == 0 for r in noop)
