"""The screens suite (Продукты' search, product page, checkout and login; docs/tasks.md,
"Suites"): the oracle solves its canonical tasks with no side effect at the desktop's
viewport and on a phone (390x844, a mobile context with touch), noop passes none, and the
audit passes on the oracle's logs; under `full`, every file of the suite (its variants: the
search field's implementations, the dark theme, the unified look). The episodes are the
corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

import pytest
from support.runs import solved_and_audited, solved_on_a_phone

from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR

SUITE = "screens"


def whole() -> list:
    return select_tasks(TASKS_DIR, None, None, SUITE)


def canonical() -> list:
    return [ref for ref in whole() if not ref.is_variant]


@pytest.mark.corpus(oracle=canonical, noop=canonical)
def test_the_oracle_solves_the_canonical_tasks_noop_none_and_the_audit_passes(corpus) -> None:
    solved_and_audited(corpus, canonical())


@pytest.mark.corpus(phone=canonical, phone_noop=canonical)
def test_the_oracle_solves_the_canonical_tasks_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, canonical(), SUITE)


@pytest.mark.full
@pytest.mark.corpus(oracle=whole, noop=whole)
def test_the_oracle_solves_every_file_noop_none_and_the_audit_passes(corpus) -> None:
    solved_and_audited(corpus, whole())


@pytest.mark.full
@pytest.mark.corpus(phone=whole, phone_noop=whole)
def test_the_oracle_solves_the_whole_suite_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, whole(), SUITE)
