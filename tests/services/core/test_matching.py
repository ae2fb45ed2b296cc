"""Tests for services.core.matching: the matching rules as tables of cases."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from services.core.errors import FieldError
from services.core.matching import (
    OPERATORS,
    check,
    event_matches,
    validate_conditions,
    value_matches,
)


def answer(conditions: list, events: list) -> dict:
    """check()'s JSON answer, as the verifier sends it."""
    return json.loads(check(conditions, events).answer())


def log(*entries: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Build an event log (ascending seq) from (type, params) pairs."""
    return [
        {
            "id": f"e{seq}",
            "trajectory_id": "t1",
            "seq": seq,
            "ts": 1000.0 + seq,
            "site": "grocery",
            "source": "page",
            "type": type_,
            "params": params,
        }
        for seq, (type_, params) in enumerate(entries, start=1)
    ]


def cond(event_name: str, parameters: dict[str, Any] | None = None, **extra: Any) -> dict:
    """Build one condition."""
    return {"event_name": event_name, "parameters": parameters or {}, **extra}


def op(condition: str, value: Any) -> dict[str, Any]:
    """Build an operator parameter."""
    return {"value": value, "condition": condition}


# --- value_matches: one parameter --------------------------------------------

VALUE_CASES = [
    pytest.param("milk", "milk", True, id="plain-string-equal"),
    pytest.param("Milk ", "  mILK", True, id="string-strip-and-casefold"),
    pytest.param("milk", "oat milk", False, id="string-no-substring-match"),
    pytest.param("*milk*", "Oat MILK 1L", True, id="wildcard-any-run-case-insensitive"),
    pytest.param("milk*", "oat milk", False, id="wildcard-covers-whole-value"),
    pytest.param("a.c*", "abcd", False, id="wildcard-other-chars-literal"),
    pytest.param("a.c*", "a.cd", True, id="wildcard-dot-literal-matches-dot"),
    pytest.param("*", "", True, id="wildcard-star-matches-empty"),
    pytest.param("1*", 123, True, id="wildcard-applies-to-str-of-number"),
    pytest.param("*.5", 99.5, True, id="wildcard-applies-to-str-of-float"),
    pytest.param("*", None, False, id="wildcard-never-matches-null"),
    pytest.param("*", True, False, id="wildcard-never-matches-bool"),
    pytest.param(2, 2.0, True, id="number-int-equals-float"),
    pytest.param("2", 2, True, id="numeric-string-matches-number"),
    pytest.param(2, "2", True, id="number-matches-numeric-string"),
    pytest.param(2.5, " 2.50 ", True, id="number-matches-padded-float-string"),
    pytest.param(2, "two", False, id="number-vs-text-no-match"),
    pytest.param(3, 2, False, id="number-different-no-match"),
    pytest.param(True, True, True, id="bool-equals-bool"),
    pytest.param(True, 1, False, id="bool-true-not-one"),
    pytest.param(1, True, False, id="one-not-bool-true"),
    pytest.param(False, 0, False, id="bool-false-not-zero"),
    pytest.param("true", True, False, id="string-true-not-bool"),
    pytest.param(None, None, True, id="null-equals-null"),
    pytest.param(None, "", False, id="null-not-empty-string"),
    pytest.param(["A", 1], ["a ", "1"], True, id="list-structural-recursive-equality"),
    pytest.param(["a", "b"], ["b", "a"], False, id="list-order-matters"),
    pytest.param(["a"], ["a", "b"], False, id="list-same-length-required"),
    pytest.param({"x": "A", "y": 2}, {"y": 2.0, "x": "a"}, True, id="dict-structural-equality"),
    pytest.param({"x": 1}, {"x": 1, "y": 2}, False, id="dict-same-key-set-required"),
    pytest.param({"x": [{"k": "*v*"}]}, {"x": [{"k": "ava"}]}, True, id="nested-wildcard"),
    pytest.param(op("equal", "Milk"), "milk", True, id="op-equal-is-plain-equality"),
    pytest.param(op("equal", True), 1, False, id="op-equal-keeps-bool-rule"),
    pytest.param(op("greater_than", 100), "120", True, id="op-gt-numeric-string-event"),
    pytest.param(op("greater_than", "100"), 100, False, id="op-gt-strict"),
    pytest.param(op("greater_than_or_equal", 100), 100.0, True, id="op-gte-boundary"),
    pytest.param(op("less_than", "99.5"), 99.4, True, id="op-lt-numeric-string-value"),
    pytest.param(op("less_than", 10), 10, False, id="op-lt-strict"),
    pytest.param(op("less_than_or_equal", 10), "10", True, id="op-lte-boundary"),
    pytest.param(op("less_than", 10), "cheap", False, id="op-ordering-non-numeric-no-match"),
    pytest.param(op("less_than", 10), None, False, id="op-ordering-null-no-match"),
    pytest.param(op("greater_than", 0), True, False, id="op-ordering-bool-not-numeric"),
    pytest.param(op("greater_than", 2), "9", True, id="op-ordering-numeric-not-lexical"),
]


@pytest.mark.parametrize(("expected", "actual", "result"), VALUE_CASES)
def test_value_matches(expected: object, actual: object, result: bool) -> None:
    assert value_matches(expected, actual) is result


# --- check(): conditions against a whole log --------------------------------

ADD2_THEN_3 = log(
    ("basket_add", {"item_id": "milk", "title": "Milk", "amount": 2}),
    ("basket_add", {"item_id": "milk", "title": "Milk", "amount": 3}),
)
ADD3_THEN_REMOVE_TO_2 = log(
    ("basket_add", {"item_id": "milk", "title": "Milk", "amount": 3}),
    ("basket_remove", {"item_id": "milk", "title": "Milk", "amount": 2}),
)
TWO_ITEMS = log(
    ("basket_add", {"item_id": "milk", "title": "Milk", "amount": 2}),
    ("basket_add", {"item_id": "bread", "title": "Bread", "amount": 1}),
)
SEARCHES = log(
    ("search", {"query": "milk", "page": 1}),
    ("open_item", {"item_id": "milk", "price": "120"}),
    ("search", {"query": "bread", "page": 2}),
)

CHECK_CASES = [
    # any-event matching
    pytest.param([cond("search", {"query": "milk"})], SEARCHES, 1, id="any-event-holds"),
    pytest.param([cond("search", {"query": "eggs"})], SEARCHES, 0, id="no-event-fails"),
    pytest.param(
        [cond("search", {"query": "bread"}), cond("search", {"query": "milk"})],
        SEARCHES,
        1,
        id="order-of-events-ignored-across-conditions",
    ),
    pytest.param(
        [cond("open_item", {"query": "milk"})], SEARCHES, 0, id="type-must-equal-event-name"
    ),
    pytest.param(
        [cond("search", {"query": "milk", "page": 2})],
        SEARCHES,
        0,
        id="all-named-params-on-same-event",
    ),
    pytest.param(
        [cond("search", {"query": "milk", "sort": "asc"})],
        SEARCHES,
        0,
        id="named-param-missing-on-event-fails",
    ),
    pytest.param([cond("search", {"page": 2})], SEARCHES, 1, id="unnamed-params-ignored"),
    pytest.param([cond("search")], SEARCHES, 1, id="empty-params-match-any-event-of-name"),
    pytest.param([cond("checkout")], SEARCHES, 0, id="empty-params-still-need-event-name"),
    pytest.param(
        [cond("open_item", {"price": op("greater_than", 100)})],
        SEARCHES,
        1,
        id="operator-param-in-condition",
    ),
    pytest.param([], SEARCHES, 0, id="empty-conditions-never-pass"),
    pytest.param([cond("search")], [], 0, id="empty-log-fails"),
    # groups
    pytest.param(
        [
            cond("search", {"query": "eggs"}, group="q"),
            cond("search", {"query": "bread"}, group="q"),
        ],
        SEARCHES,
        1,
        id="group-passes-if-one-alternative-holds",
    ),
    pytest.param(
        [cond("search", {"query": "eggs"}, group=1), cond("search", {"query": "tea"}, group=1)],
        SEARCHES,
        0,
        id="group-fails-if-no-alternative-holds",
    ),
    pytest.param(
        [cond("search", {"query": "eggs"}, group="q"), cond("search", {"query": "tea"})],
        SEARCHES,
        0,
        id="ungrouped-condition-still-required",
    ),
    # basket quantity rule
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "amount": 2})],
        ADD2_THEN_3,
        0,
        id="quantity-earlier-amount-fails",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "amount": 3})],
        ADD2_THEN_3,
        1,
        id="quantity-last-amount-passes",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "amount": 2})],
        ADD3_THEN_REMOVE_TO_2,
        1,
        id="quantity-basket-remove-is-same-family",
    ),
    pytest.param(
        [cond("basket_add", {"title": "milk", "amount": 2})],
        ADD3_THEN_REMOVE_TO_2,
        1,
        id="quantity-other-params-judged-on-last-event",
    ),
    pytest.param(
        [cond("basket_add", {"title": "Bread", "amount": 2})],
        ADD3_THEN_REMOVE_TO_2,
        0,
        id="quantity-other-params-must-match-last-event",
    ),
    pytest.param(
        [cond("basket_remove", {"item_id": "milk", "amount": 3})],
        ADD3_THEN_REMOVE_TO_2,
        0,
        id="quantity-basket-remove-also-last-event",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "amount": 2})],
        TWO_ITEMS,
        1,
        id="quantity-family-restricted-by-item-id",
    ),
    pytest.param(
        [cond("basket_add", {"amount": 2})],
        TWO_ITEMS,
        0,
        id="quantity-without-item-id-uses-last-of-whole-family",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "MIL*", "amount": 2})],
        TWO_ITEMS,
        1,
        id="quantity-wildcard-item-id-selects-items",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "eggs", "amount": 2})],
        TWO_ITEMS,
        0,
        id="quantity-no-family-event-fails",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "amount": op("greater_than_or_equal", 3)})],
        ADD2_THEN_3,
        1,
        id="quantity-operator-on-last-event",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "title": "milk"})],
        ADD3_THEN_REMOVE_TO_2,
        1,
        id="no-quantity-param-means-any-event",
    ),
    # seats and hotel guests
    pytest.param(
        [cond("select_seat", {"seats_amount": 2})],
        log(("select_seat", {"seats_amount": 2}), ("select_seat", {"seats_amount": 4})),
        0,
        id="seats-amount-judged-on-last-select-seat",
    ),
    pytest.param(
        [cond("select_seat", {"seats_amount": 4})],
        log(("select_seat", {"seats_amount": 2}), ("select_seat", {"seats_amount": 4})),
        1,
        id="seats-amount-last-passes",
    ),
    pytest.param(
        [cond("bench_hotel_select_guests", {"guestsCount": 2})],
        log(
            ("bench_hotel_select_guests", {"guestsCount": 2, "roomsCount": 1}),
            ("bench_hotel_select_guests", {"guestsCount": 3, "roomsCount": 1}),
        ),
        0,
        id="guests-count-judged-on-last-event",
    ),
    pytest.param(
        [cond("bench_hotel_select_guests", {"roomsCount": 1, "guestsCount": 3})],
        log(
            ("bench_hotel_select_guests", {"guestsCount": 2, "roomsCount": 2}),
            ("bench_hotel_select_guests", {"guestsCount": 3, "roomsCount": 1}),
        ),
        1,
        id="rooms-count-last-passes",
    ),
    # match overrides
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "amount": 2}, match="any")],
        ADD2_THEN_3,
        1,
        id="match-any-turns-last-event-rule-off",
    ),
    pytest.param(
        [cond("search", {"query": "milk"}, match="last")],
        SEARCHES,
        0,
        id="match-last-judges-last-event-of-name",
    ),
    pytest.param(
        [cond("search", {"query": "bread"}, match="last")],
        SEARCHES,
        1,
        id="match-last-passes-on-last-event",
    ),
    pytest.param(
        [cond("open_item", {"item_id": "milk"}, match="last")],
        log(("open_item", {"item_id": "milk"}), ("open_item", {"item_id": "bread"})),
        1,
        id="match-last-restricted-by-item-id",
    ),
    pytest.param(
        [cond("basket_remove", {"title": "milk"}, match="last")],
        ADD2_THEN_3,
        1,
        id="match-last-basket-includes-twin-type",
    ),
    pytest.param(
        [
            cond("basket_add", {"amount": 2}, group="g"),
            cond("basket_add", {"amount": 3}, group="g"),
        ],
        ADD2_THEN_3,
        1,
        id="group-of-quantity-alternatives",
    ),
    # selections that stand (contract.STANDING): the last of each slot
    pytest.param(
        [cond("select_pay_method", {"method": "sbp"})],
        log(("select_pay_method", {"method": "sbp"}), ("select_pay_method", {"method": "card"})),
        0,
        id="standing-a-replaced-pay-method-fails",
    ),
    pytest.param(
        [cond("select_pay_method", {"method": "card"})],
        log(("select_pay_method", {"method": "sbp"}), ("select_pay_method", {"method": "card"})),
        1,
        id="standing-the-method-chosen-last-passes",
    ),
    pytest.param(
        [cond("select_city", {"field": "from", "name": "Казань"})],
        log(
            ("select_city", {"field": "from", "name": "Казань"}),
            ("select_city", {"field": "to", "name": "Самара"}),
        ),
        1,
        id="standing-slots-apart-the-other-field-replaces-nothing",
    ),
    pytest.param(
        [cond("select_city", {"field": "from", "name": "Казань"})],
        log(
            ("select_city", {"field": "from", "name": "Казань"}),
            ("select_city", {"field": "from", "name": "Самара"}),
        ),
        0,
        id="standing-the-same-field-replaced-fails",
    ),
    pytest.param(
        [cond("bench_hotel_select_room", {"roomType": "Люкс"})],
        log(
            ("bench_hotel_select_room", {"roomType": "Люкс"}),
            ("bench_hotel_select_room", {"roomType": "Стандарт"}),
        ),
        0,
        id="standing-a-booking-switched-back-fails",
    ),
    pytest.param(
        [cond("select_pay_method", {"method": "sbp"}, match="any")],
        log(("select_pay_method", {"method": "sbp"}), ("select_pay_method", {"method": "card"})),
        1,
        id="standing-match-any-opts-out",
    ),
    # forbidden conditions
    pytest.param(
        [cond("checkout", forbidden=True)], SEARCHES, 1, id="forbidden-holds-without-event"
    ),
    pytest.param([cond("checkout", forbidden=True)], [], 1, id="forbidden-holds-on-empty-log"),
    pytest.param([cond("search", forbidden=True)], SEARCHES, 0, id="forbidden-fails-with-event"),
    pytest.param(
        [cond("search", {"query": "eggs"}, forbidden=True)],
        SEARCHES,
        1,
        id="forbidden-other-parameter-value-is-allowed",
    ),
    pytest.param(
        [cond("search", {"query": "BREAD "}, forbidden=True)],
        SEARCHES,
        0,
        id="forbidden-parameters-compare-as-usual",
    ),
    pytest.param(
        [cond("search", {"query": "milk", "page": 2}, forbidden=True)],
        SEARCHES,
        1,
        id="forbidden-needs-all-params-on-one-event",
    ),
    pytest.param(
        [cond("search", {"query": "*rea*"}, forbidden=True)],
        SEARCHES,
        0,
        id="forbidden-wildcard",
    ),
    pytest.param(
        [cond("open_item", {"price": op("greater_than", 100)}, forbidden=True)],
        SEARCHES,
        0,
        id="forbidden-operator-matches",
    ),
    pytest.param(
        [cond("open_item", {"price": op("greater_than", 500)}, forbidden=True)],
        SEARCHES,
        1,
        id="forbidden-operator-no-match",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "milk", "amount": 2}, forbidden=True)],
        ADD2_THEN_3,
        0,
        id="forbidden-quantity-judged-on-every-event-not-last",
    ),
    pytest.param(
        [cond("basket_add", {"item_id": "milk"}, forbidden=True)],
        log(("basket_remove", {"item_id": "milk", "amount": 0})),
        1,
        id="forbidden-basket-add-ignores-basket-remove",
    ),
    pytest.param(
        [cond("search", {"query": "milk"}), cond("checkout", forbidden=True)],
        SEARCHES,
        1,
        id="forbidden-beside-required-both-hold",
    ),
    pytest.param(
        [cond("search", {"query": "milk"}), cond("open_item", forbidden=True)],
        SEARCHES,
        0,
        id="forbidden-breaks-ems-of-passing-task",
    ),
    pytest.param(
        [cond("search", {"query": "milk"}), cond("search", {"query": "bread"}, forbidden=False)],
        SEARCHES,
        1,
        id="forbidden-false-is-an-ordinary-condition",
    ),
]


@pytest.mark.parametrize(("conditions", "events", "ems"), CHECK_CASES)
def test_check_rules(conditions: list[dict], events: list[dict], ems: int) -> None:
    assert answer(conditions, events)["ems"] == ems


# --- check(): report shape ----------------------------------------------------


def test_report_counts_units_and_keeps_input_order() -> None:
    conditions = [
        cond("search", {"query": "eggs"}, group="q"),
        cond("search", {"query": "milk"}),
        cond("search", {"query": "bread"}, group="q"),
        cond("checkout"),
    ]
    report = answer(conditions, SEARCHES)
    assert (report["ems"], report["passed"], report["total"]) == (0, 2, 3)
    assert [c["success"] for c in report["conditions"]] == [False, True, True, False]
    assert [c.get("group") for c in report["conditions"]] == ["q", None, "q", None]
    assert "group" not in report["conditions"][1]
    assert report["conditions"][0]["event_name"] == "search"
    assert report["conditions"][0]["parameters"] == {"query": "eggs"}


def test_report_matched_event_is_first_match_for_any_matching() -> None:
    report = answer([cond("search")], SEARCHES)
    assert report["conditions"][0]["matched_event"] == {
        "seq": 1,
        "type": "search",
        "params": {"query": "milk", "page": 1},
    }
    assert answer([cond("checkout")], SEARCHES)["conditions"][0]["matched_event"] is None


def test_report_matched_event_is_last_family_event_for_quantities() -> None:
    passing = answer([cond("basket_add", {"amount": 2})], ADD3_THEN_REMOVE_TO_2)
    assert passing["conditions"][0]["matched_event"]["seq"] == 2
    assert passing["conditions"][0]["matched_event"]["type"] == "basket_remove"
    failing = answer([cond("basket_add", {"amount": 3})], ADD3_THEN_REMOVE_TO_2)
    assert failing["conditions"][0] == {
        "event_name": "basket_add",
        "parameters": {"amount": 3},
        "success": False,
        "matched_event": None,
    }


def test_report_of_forbidden_condition() -> None:
    conditions = [cond("search", {"query": "*"}, forbidden=True), cond("checkout", forbidden=True)]
    report = answer(conditions, SEARCHES)
    assert (report["ems"], report["passed"], report["total"]) == (0, 1, 2)
    broken, kept = report["conditions"]
    assert broken == {
        "event_name": "search",
        "parameters": {"query": "*"},
        "forbidden": True,
        "success": False,
        "matched_event": {"seq": 1, "type": "search", "params": {"query": "milk", "page": 1}},
    }
    assert kept["forbidden"] is True and kept["success"] is True
    assert kept["matched_event"] is None
    ordinary = answer([cond("search", forbidden=False)], SEARCHES)["conditions"][0]
    assert "forbidden" not in ordinary


def test_empty_conditions_report() -> None:
    report = answer([], SEARCHES)
    assert (report["ems"], report["passed"], report["total"], report["conditions"]) == (0, 0, 0, [])


def test_event_matches_checks_type_and_params() -> None:
    event = SEARCHES[0]
    assert event_matches(cond("search", {"query": "MILK"}), event)
    assert not event_matches(cond("open_item", {"query": "milk"}), event)
    assert not event_matches(cond("search", {"missing": None}), event)


# --- order independence ---------------------------------------------------------

SHUFFLE_LOG = log(
    ("search", {"query": "milk", "page": 1}),
    ("open_item", {"item_id": "milk", "price": 120}),
    ("basket_add", {"item_id": "milk", "amount": 1}),
    ("search", {"query": "bread", "page": 2}),
    ("open_item", {"item_id": "bread", "price": "45.5"}),
    ("checkout", {"total": 165.5, "paid": True}),
)
SHUFFLE_CONDITIONS = [
    cond("search", {"query": "*rea*"}),
    cond("open_item", {"price": op("less_than", 50)}),
    cond("open_item", {"price": op("greater_than", 500)}),
    cond("basket_add", {"item_id": "milk"}),
    cond("checkout", {"paid": True}, group="pay"),
    cond("checkout", {"paid": 1}, group="pay"),
    cond("search", {"query": "eggs"}, group="other"),
    cond("basket_add", {"item_id": "milk", "amount": 1}, match="any"),
    cond("checkout", {"paid": False}, forbidden=True),
    cond("search", {"query": "bread"}, forbidden=True),
]


@pytest.mark.parametrize("seed", range(20))
def test_check_independent_of_event_order_for_non_quantity_conditions(seed: int) -> None:
    events = list(SHUFFLE_LOG)
    random.Random(seed).shuffle(events)
    baseline = answer(SHUFFLE_CONDITIONS, SHUFFLE_LOG)
    shuffled = answer(SHUFFLE_CONDITIONS, events)
    assert (shuffled["ems"], shuffled["passed"], shuffled["total"]) == (
        baseline["ems"],
        baseline["passed"],
        baseline["total"],
    )
    assert [c["success"] for c in shuffled["conditions"]] == [
        c["success"] for c in baseline["conditions"]
    ]


# --- validate_conditions ----------------------------------------------------------

INVALID_CASES = [
    pytest.param({"event_name": "x"}, "conditions:", id="not-a-list"),
    pytest.param([cond("ok"), "search"], "conditions[1]:", id="item-not-an-object"),
    pytest.param([{"parameters": {}}], "conditions[0].event_name", id="missing-event-name"),
    pytest.param([cond("  ")], "conditions[0].event_name", id="blank-event-name"),
    pytest.param([{"event_name": 3}], "conditions[0].event_name", id="non-string-event-name"),
    pytest.param(
        [{"event_name": "x", "parameters": ["a"]}],
        "conditions[0].parameters",
        id="parameters-not-an-object",
    ),
    pytest.param(
        [cond("a"), cond("b"), cond("x", {"price": op("bigger", 1)})],
        "conditions[2].parameters.price.condition: unknown operator 'bigger'",
        id="unknown-operator",
    ),
    pytest.param(
        [cond("x", {"price": {"condition": "less_than"}})],
        "conditions[0].parameters.price.value",
        id="operator-missing-value",
    ),
    pytest.param(
        [cond("x", {"price": op("less_than", "cheap")})],
        "conditions[0].parameters.price.value",
        id="ordering-operator-non-numeric-value",
    ),
    pytest.param(
        [cond("x", {"price": op("greater_than", True)})],
        "conditions[0].parameters.price.value",
        id="ordering-operator-bool-value",
    ),
    pytest.param([cond("x", match="first")], "conditions[0].match", id="bad-match-mode"),
    pytest.param([cond("x", group=1.5)], "conditions[0].group", id="group-float"),
    pytest.param([cond("x", group=None)], "conditions[0].group", id="group-null"),
    pytest.param([cond("x", group=True)], "conditions[0].group", id="group-bool"),
    pytest.param(
        [cond("a"), cond("x", forbidden="yes")], "conditions[1].forbidden", id="forbidden-string"
    ),
    pytest.param([cond("x", forbidden=1)], "conditions[0].forbidden", id="forbidden-int"),
    pytest.param([cond("x", forbidden=None)], "conditions[0].forbidden", id="forbidden-null"),
    pytest.param(
        [cond("x", forbidden=True, group="g")],
        "conditions[0].forbidden: a forbidden condition cannot be in a group",
        id="forbidden-in-group",
    ),
    pytest.param(
        [cond("x", forbidden=True, match="any")],
        "conditions[0].forbidden: a forbidden condition cannot set match",
        id="forbidden-with-match",
    ),
]


@pytest.mark.parametrize(("conditions", "field"), INVALID_CASES)
def test_validate_conditions_rejects(conditions: object, field: str) -> None:
    with pytest.raises(FieldError) as excinfo:
        validate_conditions(conditions)
    assert field in str(excinfo.value)


def test_unknown_operator_message_lists_allowed_operators() -> None:
    with pytest.raises(FieldError, match="expected one of") as excinfo:
        validate_conditions([cond("x", {"price": op("bigger", 1)})])
    assert all(name in str(excinfo.value) for name in OPERATORS)


def test_check_validates_conditions() -> None:
    with pytest.raises(FieldError, match=r"conditions\[0\]\.match"):
        answer([cond("x", match="sometimes")], SEARCHES)


def test_validate_conditions_accepts_and_returns_list() -> None:
    conditions = [
        cond("search", {"query": "milk", "price": op("equal", "free")}, group="g", match="any"),
        cond("search", {"page": op("less_than_or_equal", "2")}, group=3, match="last"),
        {"event_name": "checkout"},
        cond("basket_add", {"amount": op("greater_than", 1)}, forbidden=True),
        cond("search", group="g", match="last", forbidden=False),
    ]
    assert validate_conditions(conditions) is conditions
    assert validate_conditions([]) == []


def test_every_operator_is_accepted_and_has_cases() -> None:
    """An operator added to OPERATORS is valid in a condition and judged by VALUE_CASES."""
    for name in OPERATORS:
        validate_conditions([cond("x", {"price": op(name, 1)})])
    judged = {
        case.values[0]["condition"]
        for case in VALUE_CASES
        if isinstance(case.values[0], dict) and "condition" in case.values[0]
    }
    assert judged == OPERATORS


def test_event_types_cover_the_basket_family_and_what_side_effects_read() -> None:
    from services.core.matching import EFFECT_TYPES, event_types

    # besides the conditions' own: the screens and inputs that `unprompted` reads, and the
    # state changes (the basket family among them) that `side_effects` reads
    seen = {"click", "keypress", "state_changed", *EFFECT_TYPES}
    assert {"basket_add", "basket_remove", "submit_payment"} <= EFFECT_TYPES
    assert event_types([{"event_name": "basket_add"}, {"event_name": "state_changed"}]) == sorted(
        seen
    )
    assert event_types([{"event_name": "select_seat"}]) == sorted({"select_seat", *seen})


def test_event_types_include_forbidden_conditions() -> None:
    from services.core.matching import EFFECT_TYPES, event_types

    conditions = [cond("state_changed"), cond("checkout", forbidden=True)]
    seen = {"click", "keypress", "state_changed", *EFFECT_TYPES}
    assert event_types(conditions) == sorted({"checkout", *seen})


# --- unprompted: page selections no input preceded ----------------------------------


def test_unprompted_lists_page_selections_without_a_click_or_key_on_their_screen() -> None:
    from services.core.matching import unprompted

    events = log(
        ("state_changed", {"new_state": "main"}),
        ("scroll", {"y": 10}),  # scrolling is not input
        ("select_city", {"name": "A"}),  # flagged
        ("click", {"x": 1}),
        ("select_city", {"name": "B"}),
        ("select_date", {"date": "2026-12-01"}),  # the same screen: one input is enough
        ("state_changed", {"new_state": "search"}),
        ("select_city", {"name": "C"}),  # a new screen starts over: flagged
        ("keypress", {"key": "Enter"}),
        ("select_city", {"name": "D"}),
    )
    for event in events:
        if event["type"] == "state_changed":
            event["source"] = "server"
    events.append({**events[-1], "seq": 11, "site": "hotels", "type": "bench_hotel_select_city"})
    events.append({**events[-1], "seq": 12, "source": "server", "type": "basket_add"})
    flagged = [(e.seq, e.site) for e in unprompted(events)]
    assert flagged == [(3, "grocery"), (8, "grocery"), (11, "hotels")]  # input is per site
    assert check([cond("select_city")], events).unprompted == unprompted(events)
