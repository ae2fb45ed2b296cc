"""The kit's date field under every hotels implementation (rail's are in tests/services/rail):
mouse and keyboard each write the documented event; impossible, past and reversed dates are
refused in the field with a Russian message and write nothing."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect
from support.http import wait_events
from support.pages import open_site


def hotel_date(event: dict) -> bool:
    return event["type"] in ("bench_hotel_select_start_date", "bench_hotel_select_end_date")


def dates(hub: httpx.Client, tid: str, count: int) -> list[tuple[str, str, str]]:
    """(start or end, date, widget) of each date event, once `count` are stored."""
    return [
        (e["type"].split("_")[-2], e["params"]["date"], e["params"]["widget"])
        for e in wait_events(hub, tid, hotel_date, count)
    ]


def open_form(page: Page, hub: httpx.Client, impl: str) -> tuple[str, Locator]:
    """Отели's search form under the date implementation `impl`: the trajectory and the
    field."""
    created = open_site(page, hub, "hotels", path="", ui_variants={"date": impl})
    return created.trajectory_id, page.locator("[data-wpb-date]")


@pytest.mark.parametrize("impl", ["split_popup", "inline_calendar", "single_popup"])
def test_grid_implementations_by_mouse(page: Page, hub: httpx.Client, impl: str) -> None:
    tid, root = open_form(page, hub, impl)
    if impl == "single_popup":
        root.get_by_role("button", name="Выберите даты").click()
    elif impl == "split_popup":
        root.get_by_role("button", name="Заезд: выберите дату").click()
    grid = root.locator(".wpb-cal").first
    expect(grid.locator(".wpb-cal-title")).to_have_text("Ноябрь 2026")
    expect(grid.get_by_role("button", name="28 ноября 2026")).to_be_disabled()  # the past
    expect(grid.get_by_role("button", name="Предыдущий месяц")).to_be_disabled()
    grid.get_by_role("button", name="Следующий месяц").click()
    expect(grid.locator(".wpb-cal-title")).to_have_text("Декабрь 2026")
    grid.get_by_role("button", name="10 декабря 2026").click()
    end = root.locator(".wpb-cal").last
    expect(end.get_by_role("button", name="10 декабря 2026")).to_be_visible()
    end.get_by_role("button", name="14 декабря 2026").click()
    assert dates(hub, tid, 2) == [
        ("start", "2026-12-10", impl),
        ("end", "2026-12-14", impl),
    ]
    assert root.locator("input[name=start]").input_value() == "2026-12-10"
    assert root.locator("input[name=end]").input_value() == "2026-12-14"


def test_inline_calendar_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid, root = open_form(page, hub, "inline_calendar")
    root.get_by_role("button", name="29 ноября 2026").focus()
    page.keyboard.press("ArrowDown")  # a week later
    page.keyboard.press("Enter")
    page.keyboard.press("PageDown")
    page.keyboard.press("Enter")
    assert dates(hub, tid, 2) == [
        ("start", "2026-12-06", "inline_calendar"),
        ("end", "2027-01-05", "inline_calendar"),
    ]


def test_text_input_checks_what_is_typed(page: Page, hub: httpx.Client) -> None:
    tid, root = open_form(page, hub, "text_input")
    start = root.get_by_role("textbox", name="Заезд")
    end = root.get_by_role("textbox", name="Выезд")
    for typed, message in (
        ("31.02.2027", "Такой даты нет: 31.02.2027"),
        ("01.11.2026", "Эта дата уже прошла"),
        ("завтра", "ДД.ММ.ГГГГ"),
    ):
        start.fill(typed)
        start.press("Enter")
        expect(root.get_by_role("alert").first).to_contain_text(message)
        expect(start).to_have_attribute("aria-invalid", "true")
    start.fill("15.12.2026")
    start.press("Tab")  # leaving the field takes the value too
    expect(start).to_have_attribute("aria-invalid", "false")
    end.fill("14.12.2026")
    end.press("Enter")
    expect(root.get_by_role("alert").nth(1)).to_contain_text("позже")
    end.fill("18.12.2026")
    end.press("Enter")
    assert dates(hub, tid, 2) == [
        ("start", "2026-12-15", "text_input"),
        ("end", "2026-12-18", "text_input"),
    ]


def test_popup_closes_with_escape_and_keeps_focus(page: Page, hub: httpx.Client) -> None:
    _, root = open_form(page, hub, "single_popup")
    trigger = root.get_by_role("button", name="Выберите даты")
    trigger.click()
    expect(root.get_by_role("dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(root.get_by_role("dialog")).to_be_hidden()
    expect(trigger).to_be_focused()
