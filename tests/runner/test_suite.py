"""The released suite end to end, as `make demo` runs it: every task file (152: 65 canonical, and
the 87 variants the variant map builds, counted from the files); the oracle solves every one
through Chromium with no side effect (no state change its conditions do not ask for), noop
claims done and passes none (in `make test` on the covering part below; every file under
`full`). This is CI's proof that every task is solvable without a model. The oracle's logs then
go through the audit (`runner tasks audit`): every near miss of every task fails, or the task
says why it may pass; every primary UI class is both used and required. The oracle's second path
(keyboard only, search where the reference browses, defaults confirmed where it leaves them)
must solve them too (in `make test` a covering part: every site's every primary UI class and
every variant profile once; every file under `full`): a natural solution is never rejected, and
no selection of either path goes without the click or key that made it. The episodes are the
corpus's (tests/runner/conftest.py); test_oracle_variants.py adds what the suite leaves out."""

from __future__ import annotations

import json

import pytest

from runner.run.evaluate import TaskRef, select_tasks, summarize
from runner.settings import TASKS_DIR
from runner.suite.audit import AuditItem, audit_suite, suite_line
from runner.suite.suite import build
from services.core.matching import side_effects
from services.core.models.run import Record
from services.core.models.task import RELEASED
from services.core.tasks import suite_of


def suite() -> list[TaskRef]:
    """The released suite's task files: the canonical ones and every variant of it the map
    builds (no more, no fewer)."""
    refs = select_tasks(TASKS_DIR, None, None)
    built = build(TASKS_DIR, write=False)
    released = {path for path, text in built.items() if suite_of(json.loads(text)) == RELEASED}
    assert {ref.path for ref in refs if ref.is_variant} == released
    return refs


def covering() -> list[TaskRef]:
    """The first file of each site's primary UI class and of each variant profile: every site,
    class and profile once, canonical and variant files (`make test`'s part of the second
    path; `runner eval --option path=alternate` runs the whole)."""
    seen: set[object] = set()
    chosen = []
    for ref in suite():
        new = {(ref.site, ref.ui_primary), ref.profile} - seen - {None}
        if new:
            chosen.append(ref)
            seen |= new
    return chosen


def unsolved(records: list[Record]) -> dict:
    """The tasks not solved, solved with a page selection that no click or key preceded
    (a person's never is: the verdict flags it as `unprompted`), or solved with a side effect
    (a state change no condition asks for: the reference does what it is asked, no more)."""
    return {
        r.task: (r.status, r.error, [c for c in r.conditions if not c.success], r.side_effects)
        for r in records
        if r.ems != 1 or r.unprompted or r.side_effects != []
    }


@pytest.mark.corpus(oracle=suite)
def test_oracle_solves_every_task(corpus) -> None:
    refs = suite()
    variants = sum(ref.is_variant for ref in refs)
    records = corpus.oracle.records(refs)
    assert unsolved(records) == {}
    summary = summarize(records)
    assert summary.overall.ems == 1.0 and summary.overall.scored == len(refs)
    assert summary.overall.over_action == 0.0
    assert summary.canonical_vs_variant["canonical"].tasks == len(refs) - variants
    assert summary.canonical_vs_variant["variant"].tasks == variants
    assert summary.paired_variants.pairs == variants
    assert summary.paired_variants.donor_pass_variant_fail == []
    items = corpus.oracle.items(refs)
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


def noop_passes_none(corpus, refs: list[TaskRef]) -> None:
    overall = summarize(corpus.noop.records(refs)).overall
    assert overall.ems == 0.0 and overall.completion == 1.0
    assert overall.scored == len(refs)


@pytest.mark.corpus(noop=covering)
def test_noop_passes_no_task_of_a_covering_part(corpus) -> None:
    noop_passes_none(corpus, covering())


@pytest.mark.full
@pytest.mark.corpus(noop=suite)
def test_noop_passes_no_task(corpus) -> None:
    noop_passes_none(corpus, suite())


def keyboard_only(items: list[AuditItem]) -> list:
    """The clicks the pages saw that came from a pointer, not a key (a pointer's has a
    position)."""
    return [
        (item.name, e["params"])
        for item in items
        for e in item.events
        if e["type"] == "click" and (e["params"].get("x"), e["params"].get("y")) != (0, 0)
    ]


@pytest.mark.corpus(keyboard=covering)
def test_oracle_alternate_path_solves_a_covering_part(corpus) -> None:
    every, refs = suite(), covering()
    assert {r.site for r in refs} == {r.site for r in every}
    assert any(r.is_variant for r in refs) and not all(r.is_variant for r in refs)
    assert unsolved(corpus.keyboard.records(refs)) == {}
    items = corpus.keyboard.items(refs)
    assert keyboard_only(items) == []
    assert sum(e["type"] == "keypress" for item in items for e in item.events) > 500


@pytest.mark.full
@pytest.mark.corpus(keyboard=suite)
def test_oracle_alternate_path_solves_every_task(corpus) -> None:
    refs = suite()
    assert unsolved(corpus.keyboard.records(refs)) == {}
    items = corpus.keyboard.items(refs)
    assert keyboard_only(items) == []
    assert sum(e["type"] == "keypress" for item in items for e in item.events) > 500
