"""Tests for services.core.dateshift."""

from __future__ import annotations

import copy
from datetime import date, timedelta

import pytest

from services.core.dateshift import (
    MONTHS,
    compute_shift,
    find_dates,
    shift_conditions,
    shift_prompt,
    shift_task,
)

TODAY = date(2026, 11, 29)


# --- shift_prompt -------------------------------------------------------------------------

PROMPT_CASES = [
    # dotted, zero-padding style kept
    ("Заезд 04.10.2026.", 7, "Заезд 11.10.2026."),
    ("04.10.2026", 28, "01.11.2026"),
    ("4.10.2026", 28, "1.11.2026"),
    ("28.09.2026", 7, "05.10.2026"),
    ("28.9.2026", 7, "5.10.2026"),
    ("14.10.2026 г.", 7, "21.10.2026 г."),
    ("28.12.2026", 7, "04.01.2027"),
    # ISO
    ("дата 2026-10-04", 7, "дата 2026-10-11"),
    ("2026-12-28", 7, "2027-01-04"),
    ("2026-10-04T10:00", 7, "2026-10-11T10:00"),
    # words, suffix kept
    ("4 октября 2026", 7, "11 октября 2026"),
    ("4 октября 2026 г.", 28, "1 ноября 2026 г."),
    ("до 4 октября 2026 года", 7, "до 11 октября 2026 года"),
    ("28 декабря 2026", 7, "4 января 2027"),
    ("4 октября\u00a02026", 7, "11 октября\u00a02026"),
    # compact ranges, same dash and spacing
    ("15–20 сентября 2026", 7, "22–27 сентября 2026"),
    ("15-20 сентября 2026", 7, "22-27 сентября 2026"),
    ("15 — 20 сентября 2026", 7, "22 — 27 сентября 2026"),
    ("15 –20 сентября 2026 г.", 7, "22 –27 сентября 2026 г."),
    # compact ranges crossing a month or a year
    ("15–20 сентября 2026", 14, "29 сентября – 4 октября 2026"),
    ("15-20 сентября 2026 г.", 14, "29 сентября - 4 октября 2026 г."),
    ("15–20 декабря 2026", 14, "29 декабря 2026 – 3 января 2027"),
    # upstream's numeric ranges: both ends move, the spelling kept
    ("на 12–16.09.2026", 98, "на 19–23.12.2026"),
    ("12-16.9.2026", 7, "19-23.9.2026"),
    ("28–30.09.2026", 7, "05–07.10.2026"),
    ("25–30.09.2026", 3, "28.09–03.10.2026"),
    ("28.09–02.10.2026", 7, "05.10–09.10.2026"),
    ("28–31.12.2026", 7, "04–07.01.2027"),
    ("28–31.12.2026", 3, "31.12.2026–03.01.2027"),
    # с ... по ...
    ("с 15 по 20 сентября 2026", 7, "с 22 по 27 сентября 2026"),
    ("С 15 по 20 сентября 2026", 7, "С 22 по 27 сентября 2026"),
    ("с 15 по 20 сентября 2026", 14, "с 29 сентября по 4 октября 2026"),
    ("с 15 по 20 декабря 2026 года", 14, "с 29 декабря 2026 по 3 января 2027 года"),
    # first half without a year, year given later
    ("с 15 сентября по 2 октября 2026", 7, "с 22 сентября по 9 октября 2026"),
    ("15 сентября – 2 октября 2026", 7, "22 сентября – 9 октября 2026"),
    ("25 сентября – 2 октября 2026", 7, "2 октября – 9 октября 2026"),
    ("с 25 ноября по 2 декабря 2026", 35, "с 30 декабря 2026 по 6 января 2027"),
    ("20 декабря – 2 января 2027", 7, "27 декабря 2026 – 9 января 2027"),
    ("20 декабря – 2 января 2027", 14, "3 января – 16 января 2027"),
    # year-less dates are ambiguous: untouched
    ("4 октября", 7, "4 октября"),
    ("встреча 4 октября, выезд 5.10.2026", 7, "встреча 4 октября, выезд 12.10.2026"),
    ("15–20 сентября", 7, "15–20 сентября"),
    # invalid dates are untouched
    ("31.02.2026", 7, "31.02.2026"),
    ("31 февраля 2026", 7, "31 февраля 2026"),
    ("2026-02-31", 7, "2026-02-31"),
    ("30–31 февраля 2026", 7, "30–31 февраля 2026"),
    ("20–15 сентября 2026", 7, "20–15 сентября 2026"),
    ("13.13.2026", 7, "13.13.2026"),
    # look-alikes that are not dates
    ("Цена 2026 руб., 15 шт., версия 1.2.3", 7, "Цена 2026 руб., 15 шт., версия 1.2.3"),
    ("04.10.26", 7, "04.10.26"),
    ("месяц 2026-09, код ch-zrh", 7, "месяц 2026-09, код ch-zrh"),
    # several spellings in one prompt, each shifted once
    (
        "с 15 по 20 сентября 2026 (15.09.2026–20.09.2026, 2026-09-15)",
        7,
        "с 22 по 27 сентября 2026 (22.09.2026–27.09.2026, 2026-09-22)",
    ),
    ("заезд 15.09.2026, выезд 20.09.2026", 0, "заезд 15.09.2026, выезд 20.09.2026"),
    ("без дат", 7, "без дат"),
]


@pytest.mark.parametrize(("text", "days", "expected"), PROMPT_CASES)
def test_shift_prompt(text: str, days: int, expected: str) -> None:
    assert shift_prompt(text, days) == expected


@pytest.mark.parametrize("month", range(1, 13))
def test_shift_prompt_every_month_name(month: int) -> None:
    name = MONTHS[month - 1]
    new = date(2026, month, 1) + timedelta(days=7)
    assert shift_prompt(f"1 {name} 2026", 7) == f"{new.day} {MONTHS[new.month - 1]} 2026"


@pytest.mark.parametrize(
    "text",
    [
        "15–20 сентября 2026",
        "с 15 по 20 сентября 2026",
        "04.10.2026",
        "2026-10-04",
        "4 октября 2026",
        "12–16.09.2026",
    ],
)
def test_shift_prompt_round_trip(text: str) -> None:
    assert shift_prompt(shift_prompt(text, 7), -7) == text


# --- find_dates ---------------------------------------------------------------------------

FIND_PROMPT_CASES = [
    ("без дат", []),
    ("04.10.2026", [date(2026, 10, 4)]),
    ("4.10.2026", [date(2026, 10, 4)]),
    ("2026-10-04", [date(2026, 10, 4)]),
    ("4 октября 2026 года", [date(2026, 10, 4)]),
    ("15–20 сентября 2026", [date(2026, 9, 15), date(2026, 9, 20)]),
    ("с 15 по 20 сентября 2026", [date(2026, 9, 15), date(2026, 9, 20)]),
    ("с 15 сентября по 2 октября 2026", [date(2026, 9, 15), date(2026, 10, 2)]),
    ("20 декабря – 2 января 2027", [date(2026, 12, 20), date(2027, 1, 2)]),
    ("12–16.09.2026", [date(2026, 9, 12), date(2026, 9, 16)]),
    ("28.09–02.10.2026", [date(2026, 9, 28), date(2026, 10, 2)]),
    ("4 октября", []),
    ("31.02.2026", []),
]


@pytest.mark.parametrize(("text", "expected"), FIND_PROMPT_CASES)
def test_find_dates_in_prompt(text: str, expected: list[date]) -> None:
    assert find_dates({"task": text, "conditions": []}) == expected


def test_find_dates_in_conditions() -> None:
    test_data = {
        "task": "заезд 01.10.2026",
        "conditions": [
            {
                "event_name": "a",
                "parameters": {"date": {"value": "2026-09-15", "condition": "equal"}},
            },
            {"event_name": "b", "parameters": {"dates": ["2026-09-16", {"x": "2026-09-17"}]}},
            {"event_name": "c", "parameters": {"month": "2026-09", "route": "ch-zrh", "n": 3}},
            {"event_name": "d", "parameters": {"bad": "2026-02-31", "text": "до 2026-09-18"}},
        ],
    }
    assert sorted(find_dates(test_data)) == [
        date(2026, 9, 15),
        date(2026, 9, 16),
        date(2026, 9, 17),
        date(2026, 10, 1),
    ]


def test_find_dates_missing_keys() -> None:
    assert find_dates({}) == []


# --- compute_shift ------------------------------------------------------------------------

SHIFT_CASES = [
    ([], 7, 0),
    ([date(2026, 12, 20)], 7, 0),  # already far in the future
    ([date(2026, 12, 6)], 7, 0),  # exactly today + lead
    ([date(2026, 12, 5)], 7, 7),
    ([date(2026, 11, 29)], 7, 7),
    ([date(2026, 11, 28)], 7, 14),
    ([date(2026, 9, 15)], 7, 84),
    ([date(2027, 1, 1), date(2026, 9, 15), date(2026, 10, 1)], 7, 84),  # earliest wins
    ([date(2026, 11, 29)], 0, 0),
    ([date(2026, 11, 28)], 0, 7),
]


@pytest.mark.parametrize(("dates", "lead", "expected"), SHIFT_CASES)
def test_compute_shift(dates: list[date], lead: int, expected: int) -> None:
    assert compute_shift(dates, TODAY, lead) == expected


@pytest.mark.parametrize("back", range(0, 400, 13))
def test_compute_shift_is_smallest_multiple_of_7(back: int) -> None:
    earliest = TODAY - timedelta(days=back)
    target = TODAY + timedelta(days=7)
    days = compute_shift([earliest], TODAY)
    assert days > 0
    assert days % 7 == 0
    assert earliest + timedelta(days=days) >= target
    assert earliest + timedelta(days=days - 7) < target
    assert (earliest + timedelta(days=days)).weekday() == earliest.weekday()


# --- shift_conditions ---------------------------------------------------------------------

CONDITION_CASES = [
    ({"date": "2026-09-15"}, {"date": "2026-09-22"}),
    (
        {"date": {"value": "2026-09-15", "condition": "equal"}},
        {"date": {"value": "2026-09-22", "condition": "equal"}},
    ),
    ({"dates": ["2026-09-15", "2026-12-28"]}, {"dates": ["2026-09-22", "2027-01-04"]}),
    ({"month": "2026-09", "route": "ch-zrh"}, {"month": "2026-09", "route": "ch-zrh"}),
    (
        {"bad": "2026-02-31", "dt": "2026-09-15T10:00"},
        {"bad": "2026-02-31", "dt": "2026-09-15T10:00"},
    ),
    (
        {"text": "до 2026-09-15", "n": 2, "ok": True, "none": None},
        {"text": "до 2026-09-15", "n": 2, "ok": True, "none": None},
    ),
]


@pytest.mark.parametrize(("parameters", "expected"), CONDITION_CASES)
def test_shift_conditions(parameters: dict, expected: dict) -> None:
    conditions = [{"event_name": "bench_event", "parameters": parameters}]
    before = copy.deepcopy(conditions)
    result = shift_conditions(conditions, 7)
    assert result == [{"event_name": "bench_event", "parameters": expected}]
    assert result is not conditions
    assert conditions == before


# --- shift_task ---------------------------------------------------------------------------


def _hotel_task() -> dict:
    return {
        "task": "Забронируй отель: заезд 15.09.2026, выезд 20.09.2026.",
        "conditions": [
            {"event_name": "bench_hotel_select_start_date", "parameters": {"date": "2026-09-15"}},
            {
                "event_name": "bench_hotel_select_end_date",
                "parameters": {"date": {"value": "2026-09-20", "condition": "equal"}},
            },
            {"event_name": "bench_hotel_search", "parameters": {"city": "Сочи", "route": "ch-zrh"}},
        ],
    }


def test_shift_task_prompt_and_conditions_move_together() -> None:
    test_data = _hotel_task()
    new, days = shift_task(test_data, TODAY)
    assert days == 84
    assert new["task"] == "Забронируй отель: заезд 08.12.2026, выезд 13.12.2026."
    assert new["conditions"][0]["parameters"] == {"date": "2026-12-08"}
    assert new["conditions"][1]["parameters"]["date"] == {
        "value": "2026-12-13",
        "condition": "equal",
    }
    assert new["conditions"][2] == test_data["conditions"][2]
    old = find_dates(test_data)
    assert [d + timedelta(days=days) for d in old] == find_dates(new)
    assert min(find_dates(new)) >= TODAY + timedelta(days=7)


def test_shift_task_leaves_input_unmodified() -> None:
    test_data = _hotel_task()
    before = copy.deepcopy(test_data)
    new, _ = shift_task(test_data, TODAY)
    assert test_data == before
    assert new is not test_data
    assert new["conditions"] is not test_data["conditions"]


@pytest.mark.parametrize(
    "test_data",
    [
        {
            "task": "Найди самый дешёвый отель в Сочи.",
            "conditions": [{"event_name": "x", "parameters": {}}],
        },
        {
            "task": "Заезд 20 декабря 2026 г.",
            "conditions": [{"event_name": "x", "parameters": {"d": "2026-12-20"}}],
        },
        {"task": "Заезд 4 октября.", "conditions": []},
    ],
)
def test_shift_task_zero_shift(test_data: dict) -> None:
    new, days = shift_task(test_data, TODAY)
    assert days == 0
    assert new == test_data
    assert new is not test_data


def test_shift_task_prompt_only_dates_drive_shift() -> None:
    test_data = {"task": "с 15 по 20 сентября 2026", "conditions": []}
    new, days = shift_task(test_data, TODAY)
    assert days == 84
    assert new["task"] == "с 8 по 13 декабря 2026"


def test_shift_task_custom_lead() -> None:
    test_data = {"task": "", "conditions": [{"event_name": "x", "parameters": {"d": "2026-11-29"}}]}
    new, days = shift_task(test_data, TODAY, min_lead_days=14)
    assert days == 14
    assert new["conditions"][0]["parameters"]["d"] == "2026-12-13"
