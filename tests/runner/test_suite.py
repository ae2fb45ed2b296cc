"""The released suite end to end, as `make demo` runs it: every task file (152: 65 canonical,
and the 87 variants the variant map builds, counted from the files); the oracle solves every
one through Chromium with no side effect (no state change its conditions do not ask for),
noop claims done and passes none. This is CI's proof that every task
is solvable without a model. The oracle's logs then go through the audit (`runner tasks
audit`): every near miss of every task fails, or the task says why it may pass; every
primary UI class is both used and required. The oracle's second path (keyboard only, search
where the reference browses, defaults confirmed where it leaves them) must solve them too
(every second file here, to keep CI's time): a natural solution is never rejected, and no
selection of either path goes without the click or key that made it. The only full oracle
pass of the test suite (marked `ci`): test_oracle_variants.py adds what it leaves out."""

from __future__ import annotations

import json

import pytest
from helpers import run_async, run_eval

from runner.audit import audit_suite, collect, suite_line
from runner.evaluate import TaskRef, select_tasks
from runner.harness import AgentConfig
from runner.settings import TASKS_DIR
from runner.suite import build
from services.core.matching import side_effects
from services.core.models.task import RELEASED
from services.core.results.board import Run
from services.core.tasks import suite_of

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.ci]


def suite() -> list[TaskRef]:
    """The released suite's task files: the canonical ones and every variant of it the map
    builds (no more, no fewer)."""
    refs = select_tasks(TASKS_DIR, None, None)
    built = build(TASKS_DIR, write=False)
    released = {path for path, text in built.items() if suite_of(json.loads(text)) == RELEASED}
    assert {ref.path for ref in refs if ref.is_variant} == released
    return refs


def run_suite(
    stack, tmp_path, harness: str, agent: AgentConfig | None = None, refs: list | None = None
) -> dict:
    refs = suite() if refs is None else refs
    return run_eval(stack, tmp_path / harness, harness, refs, 2, 120, agent)


def unsolved(result: Run) -> dict:
    """The tasks not solved, solved with a page selection that no click or key preceded
    (a person's never is: the verdict flags it as `unprompted`), or solved with a side effect
    (a state change no condition asks for: the reference does what it is asked, no more)."""
    return {
        r.task: (r.status, r.error, [c for c in r.conditions if not c.success], r.side_effects)
        for r in result.records
        if r.ems != 1 or r.unprompted or r.side_effects != []
    }


@pytest.mark.timeout(2400)
def test_oracle_solves_every_task(stack, tmp_path) -> None:
    refs = suite()
    variants = sum(ref.is_variant for ref in refs)
    result = run_suite(stack, tmp_path, "oracle")
    assert unsolved(result) == {}
    summary = result.summary
    assert summary.overall.ems == 1.0 and summary.overall.scored == len(refs)
    assert summary.overall.over_action == 0.0
    assert summary.canonical_vs_variant["canonical"].tasks == len(refs) - variants
    assert summary.canonical_vs_variant["variant"].tasks == variants
    assert summary.paired_variants.pairs == variants
    assert summary.paired_variants.donor_pass_variant_fail == []
    items = run_async(collect(stack.hub_url, stack.token, refs, result.records))
    audit = audit_suite(items)
    print(suite_line(audit))  # the figures, in the test log
    assert audit.ok, suite_line(audit)
    assert audit.tried > 2000 and audit.caught / audit.tried > 0.8
    assert over_acting(items) == {}


def one_more(events: list, kind: str, **changes: object) -> tuple[list, int]:
    """The log with a copy of its last `kind` event at its end (with `changes`), and the
    copy's seq."""
    last = next(e for e in reversed(events) if e["type"] == kind)
    seq = events[-1]["seq"] + 1
    return [*events, {**last, "seq": seq, "params": {**last["params"], **changes}}], seq


def over_acting(items: list) -> dict:
    """The near misses that do one thing more than the reference: another product in the
    cart where it added one, a second payment where it paid. Each must show exactly that
    side effect; returns those that do not."""
    wrong = {}
    for item in items:
        kinds = {e["type"] for e in item.events}
        misses = []
        if "basket_add" in kinds:
            misses.append(one_more(item.events, "basket_add", item_id="extra-1", title="Лишний"))
        if "submit_payment" in kinds:
            misses.append(one_more(item.events, "submit_payment"))
        for events, seq in misses:
            effects = side_effects(item.conditions, events)
            if [[m.seq for m in e.events] for e in effects] != [[seq]]:
                wrong[f"{item.name}+{events[-1]['type']}"] = effects
    return wrong


def test_noop_passes_no_task(stack, tmp_path) -> None:
    overall = run_suite(stack, tmp_path, "noop").summary.overall
    assert overall.ems == 0.0 and overall.completion == 1.0
    assert overall.scored == len(suite())


@pytest.mark.timeout(2400)
def test_oracle_alternate_path_solves_half_the_suite(stack, tmp_path) -> None:
    """Every second task file of the suite (CI's representative part: every site, canonical
    and variant files; `runner eval --option path=alternate` runs the whole)."""
    every = suite()
    refs = every[::2]
    assert {r.site for r in refs} == {r.site for r in every}
    assert any(r.is_variant for r in refs) and not all(r.is_variant for r in refs)
    agent = AgentConfig(options={"path": "alternate"})
    result = run_suite(stack, tmp_path, "oracle", agent, refs)
    assert unsolved(result) == {}
    items = run_async(collect(stack.hub_url, stack.token, refs, result.records))
    # Keyboard only: every click the pages saw came from a key (a pointer's has a position).
    pointer = [
        (item.name, e["params"])
        for item in items
        for e in item.events
        if e["type"] == "click" and (e["params"].get("x"), e["params"].get("y")) != (0, 0)
    ]
    assert pointer == []
    assert sum(e["type"] == "keypress" for item in items for e in item.events) > 500
