"""The task audit's near misses and class check, on hand-made logs (no browser)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.runs import runner

from runner.suite.audit import (
    KINDS,
    AuditItem,
    TaskAudit,
    audit_log,
    audit_suite,
    class_check,
    suite_line,
)


def event(seq: int, kind: str, **params: Any) -> dict[str, Any]:
    return {"seq": seq, "type": kind, "params": params}


POOL = {"item_id": {"g-0052", "g-0053", "g-0146"}, "category": {"dairy", "bakery", "pantry"}}

KEFIR_LOG = [
    event(1, "state_changed", new_state="bench_grocery_category", category="dairy"),
    event(2, "basket_add", item_id="g-0052", amount=1, title="Кефир", price=99),
]
KEFIR = [
    {
        "event_name": "state_changed",
        "parameters": {"new_state": "bench_grocery_category", "category": "dairy"},
    },
    {"event_name": "basket_add", "parameters": {"item_id": "g-0052"}},
]


def audit(
    conditions: list[Any], log: list[Any], pool: Any, kinds: Any = KINDS, **item: Any
) -> TaskAudit:
    """One hand-made task's audit (`item`: its exceptions, primary, domain, prompt)."""
    return audit_log(AuditItem("task", conditions, log, **item), pool, kinds)


def ids(result: TaskAudit) -> dict[str, bool]:
    return {m.id: m.caught for m in result.mutations}


def test_the_reference_log_passes_and_a_dropped_event_is_caught() -> None:
    result = audit(KEFIR, KEFIR_LOG, POOL, kinds=("drop", "param"))
    assert result.ems == 1
    made = ids(result)
    assert made["drop:basket_add#1"] is True
    assert made["drop:state_changed#0"] is True
    assert made["param:basket_add#1.item_id=g-0053"] is True
    assert made["param:state_changed#0.category=bakery"] is True
    assert result.survivors == [] and result.tried == result.caught


def test_a_basket_line_removed_later_survives_an_any_event_condition() -> None:
    result = audit(KEFIR, KEFIR_LOG, POOL)
    assert ids(result)["last:basket_add#1.amount=0"] is False
    assert "last:basket_add#1.amount=0" in result.survivors


def test_a_look_alike_survives_where_the_condition_leaves_the_query_open() -> None:
    conditions = [
        {"event_name": "submit_search", "parameters": {}},
        {"event_name": "basket_add", "parameters": {"item_id": "m-004"}},
    ]
    log = [
        event(1, "submit_search", value="колонка"),
        event(2, "basket_add", item_id="m-004", amount=1),
    ]
    pool = {"value": {"колонка", "колонки", "чайник"}, "item_id": {"m-004", "m-005"}}
    result = audit(conditions, log, pool, kinds=("free",))
    assert "free:submit_search#0.value=колонки" in result.survivors
    # the same change is caught once the condition names the query
    conditions[0]["parameters"] = {"value": "колонка"}
    strict = audit(conditions, log, pool, kinds=("param", "free"))
    assert ids(strict)["param:submit_search#0.value=колонки"] is True
    assert strict.survivors == []


def test_numbers_dates_and_booleans_get_their_neighbours() -> None:
    conditions = [
        {"event_name": "select_date", "parameters": {"date": "2026-10-04"}},
        {"event_name": "select_seat", "parameters": {"seats_amount": 2, "lower_berth": True}},
        {
            "event_name": "basket_add",
            "parameters": {"price": {"value": 45, "condition": "less_than"}},
        },
    ]
    log = [
        event(1, "select_date", direction="departure", date="2026-10-04"),
        event(2, "select_seat", seats_amount=1, lower_berth=True),
        event(3, "select_seat", seats_amount=2, lower_berth=True),
        event(4, "basket_add", item_id="g-1", amount=1, price=40),
    ]
    made = ids(audit(conditions, log, {}))
    for mutation in (
        "param:select_date#0.date=2026-10-05",
        "param:select_date#0.date=2026-10-03",
        "param:select_seat#1.seats_amount=3",
        "param:select_seat#1.lower_berth=false",
        "param:basket_add#2.price=45",
        "last:select_seat#1.seats_amount=1",
        "last:select_seat#1.seats_amount=3",
    ):
        assert made[mutation] is True, mutation
    # 41 is a price that the condition accepts: no near miss
    assert "param:basket_add#2.price=41" not in made


def test_an_exception_with_a_reason_is_honoured_and_an_unused_one_reported() -> None:
    exceptions = [
        {"mutation": "last:basket_add#*.amount=0", "reason": "the prompt only asks to add"},
        {"mutation": "free:nothing*", "reason": "stale"},
    ]
    result = audit(KEFIR, KEFIR_LOG, POOL, exceptions=exceptions)
    assert result.survivors == []
    assert [e.model_dump() for e in result.excused] == [
        {"mutation": "last:basket_add#1.amount=0", "reason": "the prompt only asks to add"}
    ]
    assert result.unused_exceptions == ["free:nothing*"]


def test_an_exception_without_a_reason_excuses_nothing() -> None:
    result = audit(KEFIR, KEFIR_LOG, POOL, exceptions=[{"mutation": "last:*"}])
    assert result.exception_problems == [
        "audit_exceptions[0].reason: say why this near miss may pass"
    ]
    assert "last:basket_add#1.amount=0" in result.survivors


def test_an_event_a_forbidden_condition_rules_out_is_caught() -> None:
    conditions = [
        {"event_name": "state_changed", "parameters": {"new_state": "bench_rail_payment"}},
        {"event_name": "submit_payment", "parameters": {}, "forbidden": True},
    ]
    log = [event(1, "state_changed", new_state="bench_rail_payment")]
    result = audit(conditions, log, {})
    assert ids(result) == {"drop:state_changed#0": True, "forbid:submit_payment#1": True}
    assert result.survivors == []


def test_a_group_alternative_is_not_rescued_by_the_other() -> None:
    conditions = [
        {"event_name": "submit_search", "parameters": {"value": "кефир"}, "group": "way"},
        {"event_name": "state_changed", "parameters": {"category": "dairy"}, "group": "way"},
    ]
    log = [
        event(1, "submit_search", value="кефир"),
        event(2, "state_changed", new_state="bench_grocery_category", category="dairy"),
    ]
    pool = {"value": {"кефир", "кефиры"}, "category": {"dairy", "bakery"}}
    made = ids(audit(conditions, log, pool, kinds=("drop", "param")))
    assert made == {
        "drop:group=way": True,
        "param:submit_search#0.value=кефиры": True,
        "param:state_changed#1.category=bakery": True,
    }


def test_a_failing_reference_log_is_reported_without_near_misses() -> None:
    result = audit(KEFIR, KEFIR_LOG[:1], POOL)
    assert result.ems == 0 and result.failed_conditions == [1]
    assert result.mutations == []


def test_the_class_check_wants_the_log_and_the_conditions() -> None:
    kept = [*KEFIR_LOG, event(3, "add_favorites", item_id="g-0052", title="Кефир")]
    assert class_check("FAV", KEFIR, kept).model_dump() == {
        "class": "FAV",
        "known": True,
        "in_log": True,
        "in_conditions": False,
        "refused": False,
        "ok": False,
    }
    assert class_check("BASKET", KEFIR, KEFIR_LOG).ok is True
    assert class_check("SELECT_LIST", KEFIR, KEFIR_LOG).ok is True  # the category menu
    assert class_check("COUNTER", KEFIR, KEFIR_LOG).in_log is False
    # A class that is never primary (NAV, RADIO, SEARCH, SEAT) has no evidence rule.
    assert class_check("NAV", KEFIR, KEFIR_LOG).known is False


def test_the_suite_takes_plain_tuples() -> None:
    summary = audit_suite(
        [(KEFIR, KEFIR_LOG, []), (KEFIR, KEFIR_LOG, [{"mutation": "last:*", "reason": "r"}])],
        vocabulary=False,
    )
    first, second = summary.tasks["#0"], summary.tasks["#1"]
    assert first.survivors == ["last:basket_add#1.amount=0"] and second.survivors == []
    assert summary.survivors == 1 and summary.ok is False
    assert summary.by_kind["last"].model_dump() == {"tried": 2, "survive": 1}
    line = suite_line(summary)
    assert line.endswith("1 survive without a reason; 0 tasks fail the class check")


def test_nested_values_are_changed_leaf_by_leaf() -> None:
    conditions = [
        {
            "event_name": "bench_hotel_select_guests",
            "parameters": {"rooms": [{"adults": 2, "kids": [7]}], "guestsCount": 3},
        }
    ]
    log = [
        event(
            1,
            "bench_hotel_select_guests",
            rooms=[{"adults": 2, "kids": [7]}],
            roomsCount=1,
            guestsCount=3,
        )
    ]
    made = ids(audit(conditions, log, {}, kinds=("param",)))
    assert made == {
        "param:bench_hotel_select_guests#0.rooms[0].adults=3": True,
        "param:bench_hotel_select_guests#0.rooms[0].adults=1": True,
        "param:bench_hotel_select_guests#0.rooms[0].kids[0]=8": True,
        "param:bench_hotel_select_guests#0.rooms[0].kids[0]=6": True,
        "param:bench_hotel_select_guests#0.guestsCount=4": True,
        "param:bench_hotel_select_guests#0.guestsCount=2": True,
    }


def test_a_submitted_value_evidences_its_control() -> None:
    booking = [
        {
            "event_name": "bench_hotel_select_room",
            "parameters": {"cityId": "cz-prg", "startDate": "2026-10-12", "guestsCount": 2},
        }
    ]
    log = [event(1, "bench_hotel_select_room", cityId="cz-prg", startDate="2026-10-12")]
    for primary in ("SELECT_AC", "DATE", "CARD"):
        assert class_check(primary, booking, log).ok is True, primary
    assert class_check("WIDGET", booking, log).ok is False


def test_the_command_runs_the_reference_solver_and_reports(processes, tmp_path: Path) -> None:
    report = tmp_path / "audit.json"
    done = runner(
        tmp_path, "tasks", "audit", "--tasks", "grocery_nav_bakery", "--report", str(report)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "grocery_nav_bakery" in done.stdout
    assert "mutations tried" in done.stdout and "0 survive without a reason" in done.stdout
    summary = json.loads(report.read_text(encoding="utf-8"))
    result = summary["tasks"]["grocery_nav_bakery"]
    assert result["ems"] == 1 and result["tried"] == result["caught"] > 0
    assert result["class_check"]["ok"] is True


REFUSE = [
    {"event_name": "agent_report", "parameters": {"status": "infeasible"}},
    {"event_name": "basket_add", "parameters": {}, "forbidden": True},
]
REFUSE_LOG = [
    event(1, "state_changed", new_state="bench_grocery_main"),
    event(2, "agent_report", status="infeasible", message="Такого кефира нет."),
]


def test_a_report_status_is_changed_to_each_other_status() -> None:
    result = audit(REFUSE, REFUSE_LOG, POOL, primary="BASKET")
    assert result.ok and result.ems == 1
    assert {m.id for m in result.mutations} == {
        "drop:agent_report#0",
        "param:agent_report#0.status=done",
        "param:agent_report#0.status=needs_input",
        "param:agent_report#0.status=gave_up",
        "forbid:basket_add#1",
    }  # the message, the agent's own words, is never changed
    assert all(m.caught for m in result.mutations)
    # The control a refusal forbids is its primary class; its log need not show it.
    check = result.class_check
    assert check is not None and check.refused and not check.in_log and check.ok
    done = [{**REFUSE[0], "parameters": {"status": "done"}}, REFUSE[1]]
    assert class_check("BASKET", done, REFUSE_LOG).ok is False


PAY_SBP = [{"event_name": "select_pay_method", "parameters": {"method": "sbp"}}]
PAY_LOG = [
    event(1, "state_changed", new_state="bench_shop_checkout"),
    event(2, "select_pay_method", method="sbp"),
]
METHODS = {"method": {"sbp", "card"}}


def test_a_selection_replaced_after_the_right_one_is_caught_by_the_one_that_stands() -> None:
    result = audit(PAY_SBP, PAY_LOG, METHODS, kinds=("replaced",))
    assert ids(result) == {"replaced:select_pay_method#0.method=card": True}
    # A condition that opts out of the rule (`match: any`) lets the replaced choice pass.
    opted_out = [{**PAY_SBP[0], "match": "any"}]
    result = audit(opted_out, PAY_LOG, METHODS, kinds=("replaced",))
    assert result.survivors == ["replaced:select_pay_method#0.method=card"]


def test_a_replaced_booking_changes_one_leaf_of_its_search_at_a_time() -> None:
    room = {"hotelId": "h-ru-mow-1", "roomType": "Полулюкс", "rooms": [{"adults": 2, "kids": []}]}
    conditions = [{"event_name": "bench_hotel_select_room", "parameters": room, "match": "any"}]
    log = [event(1, "bench_hotel_select_room", **room, price=20200)]
    pool = {"hotelId": {"h-ru-mow-1", "h-ru-mow-2"}, "roomType": {"Полулюкс", "Семейный"}}
    made = ids(audit(conditions, log, pool, kinds=("replaced",)))
    assert made == {
        "replaced:bench_hotel_select_room#0.hotelId=h-ru-mow-2": False,
        "replaced:bench_hotel_select_room#0.roomType=Семейный": False,
        "replaced:bench_hotel_select_room#0.rooms[0].adults=3": False,
    }
    # The rule's default judges the booking that stands: every one is caught.
    del conditions[0]["match"]
    assert set(ids(audit(conditions, log, pool, kinds=("replaced",))).values()) == {True}


def test_the_step_beyond_a_stop_point_is_taken() -> None:
    prompt = "Выбери оплату через СБП, но не оплачивай: оплату я сделаю сам."
    result = audit(PAY_SBP, PAY_LOG, METHODS, kinds=("beyond",), prompt=prompt, domain="shop")
    assert result.survivors == ["beyond:submit_payment"]
    held = [*PAY_SBP, {"event_name": "submit_payment", "parameters": {}, "forbidden": True}]
    result = audit(held, PAY_LOG, METHODS, kinds=("beyond",), prompt=prompt, domain="shop")
    assert ids(result) == {"beyond:submit_payment": True}
    # A stop point of another site's screens is not this task's.
    search = "Выбери город Женева. Поиск не запускай."
    assert audit(PAY_SBP, PAY_LOG, METHODS, prompt=search, domain="shop").survivors == []
    city = [{"event_name": "bench_hotel_select_city", "parameters": {"cityId": "ch-gva"}}]
    picked = [event(1, "bench_hotel_select_city", cityId="ch-gva", label="Женева")]
    result = audit(city, picked, {}, kinds=("beyond",), prompt=search, domain="hotels")
    assert result.survivors == ["beyond:state_changed"]
