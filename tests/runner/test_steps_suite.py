"""The steps suite (docs/tasks.md, "Steps"): tasks of the other suites with a step of the
real services on their path, each step a control implementation off by default. The oracle
solves its files with no side effect and noop none, the audit passes on the oracle's logs,
and the board's variant sensitivity pairs each step's variants with their donors in the
runs of the donors' suites and lists every step. In `make test` each step's first file (at
the desktop's viewport and on a phone); every file under `full`. The episodes are the
corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

from collections import defaultdict

import pytest
from support.runs import solved_and_audited, solved_on_a_phone

from runner.run.evaluate import TaskRef, select_tasks
from runner.settings import TASKS_DIR
from services.core.results.board import build
from services.core.variants import defaults

SUITE = "steps"
# The steps of issue 39: a seat map drawn as a car, a card payment on a bank's page, a rate
# before a room, passengers as a dropdown of categories, buttons that are not buttons.
STEPS = ("clickables", "hotel_rates", "passengers", "payment", "seat_map")
DONOR_SUITES = ("released", "safety", "robustness", "screens")


def whole() -> list[TaskRef]:
    return select_tasks(TASKS_DIR, None, None, SUITE)


def steps(refs: list[TaskRef]) -> set[str]:
    """Every `key=implementation` the files render."""
    return {
        f"{key}={impl}"
        for ref in refs
        for key, impl in ref.task["test_data"]["ui_variants"].items()
    }


def first_of_each() -> list[TaskRef]:
    """Of each profile, its first file."""
    return list({ref.profile: ref for ref in reversed(whole())}.values())


def donors_of(refs: list[TaskRef]) -> list[TaskRef]:
    """The files' donors, of the suites that hold them (a card payment's are also tasks
    that must be stopped, recoveries and Продукты' card checkout of the screens suite)."""
    names = {ref.donor for ref in refs}
    return [
        ref
        for suite in DONOR_SUITES
        for ref in select_tasks(TASKS_DIR, None, None, suite)
        if ref.name in names
    ]


def test_every_step_is_off_by_default_with_four_donors_or_more() -> None:
    refs = whole()
    canonical = {ref.name for ref in donors_of(refs) if not ref.is_variant}
    donors: dict[str, set[str]] = defaultdict(set)
    for ref in refs:
        ((key, impl),) = ref.task["test_data"]["ui_variants"].items()
        assert impl != defaults(ref.site)[key], ref.name
        assert ref.donor in canonical, ref.name
        donors[key].add(ref.donor)
    assert sorted(donors) == sorted(STEPS)
    assert {key: len(names) for key, names in donors.items() if len(names) < 4} == {}


@pytest.mark.corpus(oracle=lambda: first_of_each() + donors_of(first_of_each()), noop=first_of_each)
def test_the_oracle_solves_each_step_noop_none_and_the_board_lists_them(corpus) -> None:
    refs = first_of_each()
    assert all(ref.is_variant for ref in refs)
    solved_and_audited(corpus, refs)
    board = build(list(corpus.oracle.runs.values()), suite=SUITE)
    assert set(board.variants.controls) == steps(whole())


@pytest.mark.corpus(phone=first_of_each, phone_noop=first_of_each)
def test_the_oracle_solves_each_step_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, first_of_each(), SUITE)


@pytest.mark.full
@pytest.mark.corpus(oracle=whole, noop=whole)
def test_the_oracle_solves_every_file_noop_none_and_the_audit_passes(corpus) -> None:
    solved_and_audited(corpus, whole())


@pytest.mark.full
@pytest.mark.corpus(phone=whole, phone_noop=whole)
def test_the_oracle_solves_the_whole_suite_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, whole(), SUITE)
