"""The screens suite (Продукты' search, product page, checkout and login) on a phone
(390x844, a mobile context with touch): the oracle solves its canonical tasks, and noop none;
under `full`, every file of the suite. At the desktop's viewport the suite is test_corpus.py's.
The episodes are the corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

import pytest
from support.runs import failures

from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from services.core.models.run import Viewport

PHONE = Viewport(width=390, height=844)


def whole() -> list:
    return select_tasks(TASKS_DIR, None, None, "screens")


def canonical() -> list:
    return [ref for ref in whole() if not ref.is_variant]


def solved_on_a_phone(corpus, refs: list) -> None:
    assert refs
    assert not failures(corpus.phone.records(refs))
    assert corpus.phone.runs["screens"].manifest.viewport == PHONE
    assert all(r.ems == 0 for r in corpus.phone_noop.records(refs))


@pytest.mark.corpus(phone=canonical, phone_noop=canonical)
def test_the_oracle_solves_the_canonical_tasks_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, canonical())


@pytest.mark.full
@pytest.mark.corpus(phone=whole, phone_noop=whole)
def test_the_oracle_solves_the_whole_suite_on_a_phone_and_noop_none(corpus) -> None:
    solved_on_a_phone(corpus, whole())
