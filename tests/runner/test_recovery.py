"""Recovery tasks (docs/tasks.md, "Start state"): a start state replayed by its sites at
creation, written as `source: "setup"` and left out of what the conditions judge; refused
as a whole, leaving nothing behind; and the oracle solving every recovery task by reading
the state first, where doing nothing fails (the corpus's episodes, tests/runner/conftest.py)."""

from __future__ import annotations

import copy
from fnmatch import fnmatch
from typing import Any

import httpx
import nats
import pytest
from support.http import create, hub_api, make_task, run_async, verdict, wait_events
from support.runs import failures
from support.stand import stand_nats

from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from runner.stack.stack import Stack
from runner.suite.audit import audit_suite
from services.kit.bus import EVENTS_STREAM, STATE_BUCKET, TRAJECTORIES_BUCKET

KEFIR = "g-0032"  # Кефир «Три ракиты» 2,5%, 109 ₽
MILK = "g-0012"


def kefir_task(amount: int, since: str | None = None, **extra: Any) -> dict[str, Any]:
    """A grocery task whose start state holds one kefir, asking for `amount` of it."""
    condition: dict[str, Any] = {
        "event_name": "basket_add",
        "parameters": {"item_id": KEFIR, "amount": amount},
    }
    if since is not None:
        condition["since"] = since
    return make_task(
        [condition],
        start_state=[{"event_name": "basket_add", "parameters": {"item_id": KEFIR, "amount": 1}}],
        bench_first_state="bench_grocery_basket",
        **extra,
    )


def recovery_tasks() -> list[Any]:
    return [
        ref for ref in select_tasks(TASKS_DIR, None, None, "robustness") if "_recover_" in ref.name
    ]


def test_the_start_state_is_in_the_log_as_setup_and_the_agent_opens_on_its_screen(
    hub: httpx.Client, agent: httpx.Client
) -> None:
    created = create(hub, kefir_task(2))
    assert created.url.endswith(f"/t/{created.trajectory_id}/grocery/cart")
    assert "/grocery/" not in created.prompt  # %HOST% is the hub page still
    (added,) = wait_events(hub, created.trajectory_id, "basket_add")
    assert added["source"] == "setup"
    assert added["params"]["amount"] == 1 and added["params"]["title"].startswith("Кефир")
    cart = agent.get(created.url)
    assert cart.status_code == 200 and "Кефир «Три ракиты» 2,5%" in cart.text


@pytest.mark.parametrize(("since", "ems"), [(None, 0), ("agent", 0), ("start", 1)])
def test_conditions_judge_the_agents_events_unless_since_start(
    hub: httpx.Client, since: str | None, ems: int
) -> None:
    """The start state alone holds one kefir: a condition asking for one passes on it only
    when it judges the whole log."""
    created = create(hub, kefir_task(1, since))
    assert verdict(hub, created.trajectory_id, "basket_add").ems == ems


def test_two_trajectories_keep_their_own_start_state(
    hub: httpx.Client, agent: httpx.Client
) -> None:
    """A start state in one trajectory never shows in another created beside it."""
    with_state = create(hub, kefir_task(2))
    plain = create(hub, make_task([{"event_name": "basket_add"}]))
    wait_events(hub, with_state.trajectory_id, "basket_add")
    cart = agent.get(f"/t/{plain.trajectory_id}/grocery/cart")
    assert cart.status_code == 200 and "Кефир «Три ракиты» 2,5%" not in cart.text
    assert plain.url.endswith(f"/t/{plain.trajectory_id}/")
    screen = wait_events(hub, plain.trajectory_id, "state_changed")
    log = run_async(_events(hub, plain.trajectory_id))
    assert all(e["source"] != "setup" for e in log) and screen


async def _events(hub: httpx.Client, tid: str) -> list[dict[str, Any]]:
    return (await hub_api(hub).events(tid)).events


def task_with(start_state: list[dict[str, Any]], domain: str = "grocery") -> dict[str, Any]:
    return make_task([{"event_name": "basket_add"}], domain=domain, start_state=start_state)


BAD = [
    pytest.param(
        [{"event_name": "basket_add", "parameters": {"item_id": "g-9999"}}],
        "task.test_data.start_state[0].parameters.item_id",
        id="unknown-item",
    ),
    pytest.param(
        [{"event_name": "bench_files_download", "domain": "grocery", "parameters": {}}],
        "task.test_data.start_state[0].event_name",
        id="type-the-site-does-not-write",
    ),
    pytest.param(
        [{"event_name": "state_changed", "parameters": {"new_state": "bench_grocery_main"}}],
        "task.test_data.start_state[0].event_name",
        id="type-the-site-cannot-replay",
    ),
    pytest.param(
        [{"event_name": "basket_add", "parameters": {"item_id": KEFIR, "price": 5}}],
        "task.test_data.start_state[0].parameters",
        id="wrong-parameters",
    ),
    pytest.param(
        [{"event_name": "basket_add", "parameters": {"item_id": KEFIR, "colour": "red"}}],
        "task.test_data.start_state[0].parameters.colour",
        id="unknown-parameter",
    ),
    pytest.param(
        [{"event_name": "basket_add", "parameters": {"item_id": KEFIR, "amount": 999}}],
        "task.test_data.start_state[0].parameters.amount",
        id="over-the-stock",
    ),
    pytest.param(
        [{"event_name": "basket_add", "domain": "nowhere"}],
        "task.test_data.start_state[0].domain",
        id="unknown-domain",
    ),
]


@pytest.mark.parametrize(("start_state", "field"), BAD)
def test_a_start_state_its_site_cannot_replay_is_refused_naming_the_field(
    hub: httpx.Client, start_state: list[dict[str, Any]], field: str
) -> None:
    answer = hub.post("/api/trajectories", json={"task": task_with(start_state)})
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == field


BUCKETS = (TRAJECTORIES_BUCKET, STATE_BUCKET)


def stream_ends(stack: Stack) -> dict[str, int]:
    """The last sequence of the events stream and of each bucket's stream."""

    async def read() -> dict[str, int]:
        client = await stand_nats(stack)
        js = client.jetstream()
        streams = [EVENTS_STREAM, *(f"KV_{bucket}" for bucket in BUCKETS)]
        ends = {name: (await js.stream_info(name)).state.last_seq for name in streams}
        await client.close()
        return ends

    return run_async(read())  # type: ignore[no-any-return]


def writes_since(stack: Stack, ends: dict[str, int]) -> tuple[int, list[str]]:
    """How many messages the streams took after `ends`, and of them the keys that still hold
    a value (a key the hub wrote and then purged is gone) and every event published."""

    async def read() -> tuple[int, list[str]]:
        client = await stand_nats(stack)
        js = client.jetstream()
        left, written = [], 0
        for stream, last in ends.items():
            now = (await js.stream_info(stream)).state.last_seq
            written += now - last
            name = stream.removeprefix("KV_")
            bucket = None if stream == EVENTS_STREAM else await js.key_value(name)
            for seq in range(last + 1, now + 1):
                try:
                    message = await js.get_msg(stream, seq)
                except nats.js.errors.NotFoundError:  # rolled up by a purge
                    continue
                if bucket is None:
                    left.append(f"event {message.subject}")
                    continue
                key = message.subject.split(".", 2)[2]
                try:
                    await bucket.get(key)
                except nats.js.errors.KeyNotFoundError:  # deleted or purged since
                    continue
                left.append(f"{name} {key}")
        await client.close()
        return written, left

    return run_async(read())  # type: ignore[no-any-return]


def test_a_replay_refused_halfway_leaves_no_trajectory_behind(
    stack: Stack, hub: httpx.Client
) -> None:
    """Books replays its line (state written), then Маркет refuses a payment of an empty
    cart: nothing of the trajectory is left, in the buckets or the log."""
    start_state = [
        {"event_name": "basket_add", "domain": "books", "parameters": {"item_id": book_id()}},
        {"event_name": "submit_payment", "domain": "shop", "parameters": {"method": "sbp"}},
    ]
    ends = stream_ends(stack)
    answer = hub.post("/api/trajectories", json={"task": task_with(start_state, "books")})
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == "task.test_data.start_state[1]"
    assert "корзина пуста" in answer.json()["message"]
    written, left = writes_since(stack, ends)
    assert written > 0 and left == []


def book_id() -> str:
    from services.books.catalog import load_catalog

    return load_catalog().all()[0].id


def test_a_task_file_with_a_bad_start_state_fails_validation(tmp_path) -> None:
    from runner.suite.suite import validate

    task = copy.deepcopy(kefir_task(2))
    task["test_data"]["start_state"][0]["parameters"]["item_id"] = "g-9999"
    (problem,) = validate(task, "bad")
    assert problem.startswith("bad.test_data.start_state[0].parameters.item_id: ")


@pytest.mark.corpus(oracle=recovery_tasks, noop=recovery_tasks)
def test_the_oracle_recovers_every_recovery_task_and_noop_fails_them(corpus) -> None:
    tasks = recovery_tasks()
    sites = {ref.task["test_data"]["bench_first_domain"] for ref in tasks}
    assert len(tasks) >= 17 and len(sites) == 6
    assert failures(corpus.oracle.records(tasks)) == {}
    noop = corpus.noop.records(tasks)
    assert {r.task for r in noop if r.ems == 0} == {ref.name for ref in tasks}


@pytest.mark.corpus(oracle=recovery_tasks)
def test_the_audit_fails_the_old_files_of_the_stop_and_the_replaced_booking(corpus) -> None:
    """R-1, R-2 (a payment not forbidden past «просто выбери … оплату») and R-3 (a booking
    judged by any event, as before the rule that a selection stands) as their files were:
    the audit's step beyond the stop point and its replaced booking survive in them."""
    old = {
        "shop_recover_checkout_method": "beyond:submit_payment",
        "books_recover_checkout_method": "beyond:submit_payment",
        "hotels_recover_wrong_room": "replaced:bench_hotel_select_room#*",
        "hotels_recover_wrong_dates": "replaced:bench_hotel_select_room#*",
        "hotels_recover_wrong_guests": "replaced:bench_hotel_select_room#*",
    }
    items = [i for i in corpus.oracle.items(recovery_tasks()) if i.name in old]
    for item in items:
        assert audit_suite([item]).ok, item.name  # the files as they are hold
        for condition in item.conditions:
            if condition["event_name"] == "bench_hotel_select_room":
                condition["match"] = "any"
        item.conditions = [c for c in item.conditions if c["event_name"] != "submit_payment"]
    summary = audit_suite(items)
    survivors = {name: task.survivors for name, task in summary.tasks.items()}
    assert set(survivors) == set(old)
    for name, pattern in old.items():
        assert any(fnmatch(s, pattern) for s in survivors[name]), (name, survivors[name])
