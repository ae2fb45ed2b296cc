"""The event contract: every type of docs/events.md exists, validates, and is documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.core.contract import EVENT_TYPES, validate_params
from services.core.errors import FieldError
from services.core.tasks import check_task

DOCS = Path(__file__).resolve().parents[3] / "docs" / "events.md"

DESIGN_TYPES = {
    "state_changed",
    "submit_search",
    "basket_add",
    "basket_remove",
    "add_favorites",
    "remove_favorites",
    "apply_filter",
    "apply_sort",
    "select_city",
    "select_date",
    "select_train",
    "select_tariff",
    "select_seat",
    "select_passenger",
    "select_pay_method",
    "submit_payment",
    "bench_hotel_select_city",
    "bench_hotel_select_start_date",
    "bench_hotel_select_end_date",
    "bench_hotel_select_guests",
    "bench_hotel_select_hotel",
    "bench_hotel_select_room",
    "bench_files_select_collection",
    "bench_files_select_year",
    "bench_files_download",
    "click",
    "keypress",
    "scroll",
}


def test_every_design_type_is_in_the_contract() -> None:
    assert set(EVENT_TYPES) >= DESIGN_TYPES


def test_every_type_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert [t for t in EVENT_TYPES if f"`{t}`" not in text] == []


@pytest.mark.parametrize(
    ("event_type", "params"),
    [
        ("basket_add", {"item_id": "g-1", "amount": 2, "title": "Кефир", "price": 99}),
        ("select_tariff", {"tarif_name": "Купе", "direction": "departure"}),
        ("select_date", {"direction": "return", "date": "2026-09-20"}),
        (
            "bench_hotel_select_guests",
            {"rooms": [{"adults": 2, "kids": [7]}], "roomsCount": 1, "guestsCount": 3},
        ),
        (
            "bench_hotel_select_city",
            {
                "cityId": "ch-zrh",
                "label": "Цюрих, Швейцария",
                "cityName": "Цюрих",
                "countryName": "Швейцария",
            },
        ),
        ("state_changed", {"new_state": "bench_grocery_main", "widget": "standard"}),
    ],
)
def test_valid_params_pass_unchanged(event_type: str, params: dict) -> None:
    assert validate_params(event_type, params) == params


@pytest.mark.parametrize(
    ("event_type", "params", "field"),
    [
        ("teleport", {}, "type"),
        ("basket_add", {"item_id": "g-1", "amount": -1, "title": "x", "price": 1}, "params.amount"),
        ("basket_add", {"item_id": "g-1", "title": "x", "price": 1}, "params.amount"),
        ("select_date", {"direction": "back", "date": "2026-09-20"}, "params.direction"),
        ("select_date", {"direction": "return", "date": "2026-02-31"}, "params.date"),
        (
            "bench_hotel_select_guests",
            {"rooms": [{"adults": 2, "kids": [19]}], "roomsCount": 1, "guestsCount": 3},
            "params.rooms.0.kids",
        ),
        ("click", {"x": 1, "colour": "red"}, "params.colour"),
        ("click", "not an object", "params"),
    ],
)
def test_bad_params_name_the_field(event_type: str, params: object, field: str) -> None:
    with pytest.raises(FieldError) as error:
        validate_params(event_type, params, "events[0]")
    assert error.value.field == f"events[0].{field}"


def test_a_condition_can_require_the_agents_report_with_a_status() -> None:
    def task(status: object) -> dict[str, object]:
        condition = {"event_name": "agent_report", "parameters": {"status": status}}
        return {"test_data": {"task": "Купи чай, которого нет.", "conditions": [condition]}}

    for status in ("infeasible", "Needs_Input", "*", {"value": "done", "condition": "equal"}):
        check_task(task(status))
    with pytest.raises(FieldError, match=r"conditions\[0\]\.parameters\.status: 'maybe' is no"):
        check_task(task("maybe"))
    assert validate_params("agent_report", {"status": "gave_up"}) == {"status": "gave_up"}
    with pytest.raises(FieldError, match=r"params\.status"):
        validate_params("agent_report", {"status": "finished", "message": "…"})
