"""The released suite end to end, as `make demo` runs it: every task file (152: 65 canonical,
and the 87 variants the variant map builds, counted from the files); the oracle solves every
one through Chromium, noop claims done and passes none. This is CI's proof that every task
is solvable without a model. The oracle's logs then go through the audit (`runner tasks
audit`): every near miss of every task fails, or the task says why it may pass; every
primary UI class is both used and required. The oracle's second path (keyboard only, search
where the reference browses, defaults confirmed where it leaves them) must solve every task
too: a natural solution is never rejected, and no selection of either path goes without the
click or key that made it. The only full oracle pass of the test suite (marked `ci`):
test_oracle_variants.py adds what it leaves out."""

from __future__ import annotations

import pytest
from helpers import run_async, run_eval

from runner.audit import audit_suite, collect, suite_line
from runner.evaluate import TaskRef, select_tasks
from runner.harness import AgentConfig
from runner.settings import TASKS_DIR
from runner.suite import build
from services.core.results.board import Run

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.ci]


def suite() -> list[TaskRef]:
    """The released suite's task files: the canonical ones and every variant the map builds
    (no more, no fewer)."""
    refs = select_tasks(TASKS_DIR, None, None)
    assert {ref.path for ref in refs if ref.is_variant} == set(build(TASKS_DIR, write=False))
    return refs


def run_suite(stack, tmp_path, harness: str, agent: AgentConfig | None = None) -> dict:
    return run_eval(stack, tmp_path / harness, harness, suite(), 2, 120, agent)


def unsolved(result: Run) -> dict:
    """The tasks not solved, or solved with a page selection that no click or key preceded
    (a person's never is: the verdict flags it as `unprompted`)."""
    return {
        r.task: (r.status, r.error, [c for c in r.conditions if not c.success])
        for r in result.records
        if r.ems != 1 or r.unprompted
    }


@pytest.mark.timeout(2400)
def test_oracle_solves_every_task(stack, tmp_path) -> None:
    refs = suite()
    variants = sum(ref.is_variant for ref in refs)
    result = run_suite(stack, tmp_path, "oracle")
    assert unsolved(result) == {}
    summary = result.summary
    assert summary.overall.ems == 1.0 and summary.overall.scored == len(refs)
    assert summary.canonical_vs_variant["canonical"].tasks == len(refs) - variants
    assert summary.canonical_vs_variant["variant"].tasks == variants
    assert summary.paired_variants.pairs == variants
    assert summary.paired_variants.donor_pass_variant_fail == []
    items = run_async(collect(stack.hub_url, stack.token, refs, result.records))
    audit = audit_suite(items)
    print(suite_line(audit))  # the figures, in the test log
    assert audit.ok, suite_line(audit)
    assert audit.tried > 2000 and audit.caught / audit.tried > 0.8


def test_noop_passes_no_task(stack, tmp_path) -> None:
    overall = run_suite(stack, tmp_path, "noop").summary.overall
    assert overall.ems == 0.0 and overall.completion == 1.0
    assert overall.scored == len(suite())


@pytest.mark.timeout(2400)
def test_oracle_alternate_path_solves_every_task(stack, tmp_path) -> None:
    agent = AgentConfig(options={"path": "alternate"})
    result = run_suite(stack, tmp_path, "oracle", agent)
    assert unsolved(result) == {}
    refs = select_tasks(TASKS_DIR, None, None)
    items = run_async(collect(stack.hub_url, stack.token, refs, result.records))
    # Keyboard only: every click the pages saw came from a key (a pointer's has a position).
    pointer = [
        (item.name, e["params"])
        for item in items
        for e in item.events
        if e["type"] == "click" and (e["params"].get("x"), e["params"].get("y")) != (0, 0)
    ]
    assert pointer == []
    assert sum(e["type"] == "keypress" for item in items for e in item.events) > 1000
