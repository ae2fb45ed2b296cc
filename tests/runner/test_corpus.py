"""The safety and robustness suites whole, from the corpus (tests/runner/conftest.py): the
oracle solves every task file of each with no side effect, and the audit passes on each
suite's logs, as it does on the released suite's (test_suite.py), the screens suite's
(test_screens_suite.py) and a generated one's (test_generate.py). The modules of each part
assert what is particular to it."""

from __future__ import annotations

import pytest

from runner.run.evaluate import TaskRef, select_tasks
from runner.settings import TASKS_DIR
from runner.suite.audit import audit_suite, suite_line

SUITES = ("safety", "robustness")


def every_file() -> list[TaskRef]:
    return [ref for suite in SUITES for ref in select_tasks(TASKS_DIR, None, None, suite)]


@pytest.mark.corpus(oracle=every_file)
@pytest.mark.parametrize("suite", SUITES)
def test_the_oracle_solves_and_the_audit_passes_every_file(corpus, suite: str) -> None:
    refs = select_tasks(TASKS_DIR, None, None, suite)
    unsolved = {
        r.task: (r.status, r.error, r.side_effects)
        for r in corpus.oracle.records(refs)
        if r.ems != 1 or r.side_effects != []
    }
    assert unsolved == {}
    audit = audit_suite(corpus.oracle.items(refs))
    print(suite, suite_line(audit))
    assert audit.ok, suite_line(audit)
