"""Every implementation of the kit's form controls driven by keyboard alone in Chromium: the
control is focused (Tab or `focus()`), then only keys are pressed or typed, and the documented
event is written with its exact parameters, `widget` included. Mouse runs and the defaults'
keyboard runs live in test_date.py and the sites' test_pages.py."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page, expect
from support.http import params_of, wait_events
from support.pages import open_site


def press(page: Page, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


# -- hotels: date --------------------------------------------------------------------------

HOTEL_DATES = ("bench_hotel_select_start_date", "bench_hotel_select_end_date")


def hotel_dates(hub: httpx.Client, tid: str) -> list[list[dict[str, Any]]]:
    return [params_of(wait_events(hub, tid, event)) for event in HOTEL_DATES]


def test_hotels_split_popup_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "hotels", path="", ui_variants={"date": "split_popup"}).trajectory_id
    root = page.locator("[data-wpb-date]")
    root.get_by_role("button", name="Заезд: выберите дату").focus()
    press(page, "Enter")
    expect(root.get_by_role("dialog", name="Заезд: выбор даты")).to_be_visible()
    expect(root.get_by_role("button", name="29 ноября 2026", exact=True)).to_be_focused()  # today
    press(page, "ArrowDown", "Enter")  # a week later
    # the check-out grid opens by itself on the day after check-in
    expect(root.get_by_role("dialog", name="Выезд: выбор даты")).to_be_visible()
    expect(root.get_by_role("button", name="7 декабря 2026", exact=True).last).to_be_focused()
    press(page, "ArrowRight", "ArrowRight", "Enter")
    expect(root.get_by_role("button", name="Выезд: 9 декабря 2026")).to_be_focused()
    assert hotel_dates(hub, tid) == [
        [{"date": "2026-12-06", "widget": "split_popup"}],
        [{"date": "2026-12-09", "widget": "split_popup"}],
    ]


def test_hotels_single_popup_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "hotels", path="", ui_variants={"date": "single_popup"}
    ).trajectory_id
    root = page.locator("[data-wpb-date]")
    trigger = root.get_by_role("button", name="Выберите даты")
    trigger.focus()
    press(page, "Enter")
    expect(root.get_by_role("dialog", name="Выбор дат")).to_be_visible()
    expect(root.get_by_role("button", name="29 ноября 2026", exact=True)).to_be_focused()
    press(page, "PageDown")  # 30 days on: into December
    expect(root.locator(".wpb-cal-title")).to_have_text("Декабрь 2026")
    expect(root.get_by_role("button", name="29 декабря 2026", exact=True)).to_be_focused()
    press(page, "ArrowUp", "ArrowUp", "Enter")  # 15 December: check-in
    expect(root.get_by_role("button", name="15 декабря 2026", exact=True)).to_be_focused()
    press(page, "ArrowRight", "ArrowRight", "ArrowRight", "Enter")  # 18 December: check-out
    expect(root.get_by_role("dialog", name="Выбор дат")).to_be_hidden()
    expect(
        root.get_by_role("button", name="Даты: 15 декабря 2026 — 18 декабря 2026")
    ).to_be_focused()
    assert hotel_dates(hub, tid) == [
        [{"date": "2026-12-15", "widget": "single_popup"}],
        [{"date": "2026-12-18", "widget": "single_popup"}],
    ]


def test_hotels_text_input_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "hotels", path="", ui_variants={"date": "text_input"}).trajectory_id
    root = page.locator("[data-wpb-date]")
    start = root.get_by_role("textbox", name="Заезд")
    end = root.get_by_role("textbox", name="Выезд")
    start.focus()
    page.keyboard.type("31.02.2027")
    press(page, "Enter")
    expect(root.get_by_role("alert").first).to_contain_text("Такой даты нет: 31.02.2027")
    press(page, "Control+A")
    page.keyboard.type("15.12.2026")
    press(page, "Enter")
    expect(start).to_have_attribute("aria-invalid", "false")
    press(page, "Tab")
    expect(end).to_be_focused()
    page.keyboard.type("18.12.2026")
    press(page, "Tab")  # leaving the field takes the value too
    expect(end).to_have_attribute("aria-invalid", "false")
    assert hotel_dates(hub, tid) == [
        [{"date": "2026-12-15", "widget": "text_input"}],
        [{"date": "2026-12-18", "widget": "text_input"}],
    ]


# -- rail: date ----------------------------------------------------------------------------


def rail_dates(impl: str, departure: str, back: str) -> list[dict[str, Any]]:
    return [
        {"direction": "departure", "date": departure, "widget": impl},
        {"direction": "return", "date": back, "widget": impl},
    ]


def test_rail_popup_grid_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "rail", path="", ui_variants={"date": "popup_grid"}).trajectory_id
    root = page.locator("[data-wpb-date]")
    root.get_by_role("button", name="Туда: выберите дату").focus()
    press(page, "Enter")
    expect(root.get_by_role("button", name="29 ноября 2026", exact=True)).to_be_focused()
    press(page, "ArrowDown", "Enter")  # 6 December
    # «Обратно» opens by itself, on the departure day (a return the same day is allowed)
    expect(root.get_by_role("dialog", name="Обратно: выбор даты")).to_be_visible()
    expect(root.get_by_role("button", name="6 декабря 2026", exact=True).last).to_be_focused()
    press(page, "ArrowRight", "ArrowRight", "Enter")
    expect(root.get_by_role("button", name="Обратно: 8 декабря 2026")).to_be_focused()
    assert params_of(wait_events(hub, tid, "select_date", 2)) == rail_dates(
        "popup_grid", "2026-12-06", "2026-12-08"
    )


def test_rail_native_input_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "rail", path="", ui_variants={"date": "native_input"}).trajectory_id
    there = page.locator(".wpb-date-input").nth(0)
    back = page.locator(".wpb-date-input").nth(1)
    there.focus()
    # Chromium orders the segments by its own UI locale (ММ/ДД/ГГГГ headless), not by the
    # page's ru-RU: dates whose day equals the month type the same in either order.
    page.keyboard.type("12122026")
    expect(there).to_have_value("2026-12-12")
    back.focus()  # Tab from a date field first walks its own segments
    page.keyboard.type("01012027")
    expect(back).to_have_value("2027-01-01")
    assert params_of(wait_events(hub, tid, "select_date", 2)) == rail_dates(
        "native_input", "2026-12-12", "2027-01-01"
    )


def test_rail_text_input_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "rail", path="", ui_variants={"date": "text_input"}).trajectory_id
    there = page.locator(".wpb-date-input").nth(0)
    back = page.locator(".wpb-date-input").nth(1)
    there.focus()
    page.keyboard.type("20.12.2026")
    press(page, "Enter", "Tab")
    expect(back).to_be_focused()
    page.keyboard.type("19.12.2026")
    press(page, "Enter")
    expect(page.get_by_role("alert").filter(has_text="не может быть раньше")).to_be_visible()
    press(page, "Control+A")
    page.keyboard.type("22.12.2026")
    press(page, "Enter")
    expect(back).to_have_attribute("aria-invalid", "false")
    assert params_of(wait_events(hub, tid, "select_date", 2)) == rail_dates(
        "text_input", "2026-12-20", "2026-12-22"
    )


# -- hotels: select_city -------------------------------------------------------------------


def test_hotels_autocomplete_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "hotels", path="", ui_variants={"select_city": "autocomplete"}
    ).trajectory_id
    city = page.get_by_role("combobox", name="Город")
    city.focus()
    page.keyboard.type("цюр")
    expect(page.get_by_role("option", name="Цюрих, Швейцария")).to_be_visible()
    press(page, "ArrowDown", "Enter")
    expect(city).to_have_value("Цюрих, Швейцария")
    expect(page.get_by_role("listbox", name="Город")).to_be_hidden()
    assert params_of(wait_events(hub, tid, "bench_hotel_select_city")) == [
        {
            "cityId": "ch-zrh",
            "label": "Цюрих, Швейцария",
            "cityName": "Цюрих",
            "countryName": "Швейцария",
            "widget": "autocomplete",
        }
    ]


def test_hotels_native_select_city_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "hotels", path="", ui_variants={"select_city": "native_select"}
    ).trajectory_id
    select = page.get_by_role("combobox", name="Город")
    select.focus()
    press(page, "ArrowDown")  # from «Выберите из списка» to the first city
    expect(select).to_have_value("ae-auh")
    press(page, "ArrowDown")
    expect(select).to_have_value("kz-ala")
    assert params_of(wait_events(hub, tid, "bench_hotel_select_city", 2)) == [
        {
            "cityId": "ae-auh",
            "label": "Абу-Даби, ОАЭ",
            "cityName": "Абу-Даби",
            "countryName": "ОАЭ",
            "widget": "native_select",
        },
        {
            "cityId": "kz-ala",
            "label": "Алматы, Казахстан",
            "cityName": "Алматы",
            "countryName": "Казахстан",
            "widget": "native_select",
        },
    ]


# -- rail: select_station ------------------------------------------------------------------


def test_rail_typeahead_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "rail", path="", ui_variants={"select_station": "typeahead"}
    ).trajectory_id
    origin = page.get_by_role("combobox", name="Откуда")
    target = page.get_by_role("combobox", name="Куда", exact=True)
    origin.focus()
    page.keyboard.type("каз")
    press(page, "ArrowDown", "Enter")
    expect(origin).to_have_value("Казань")
    press(page, "Tab")
    expect(target).to_be_focused()
    page.keyboard.type("санкт")
    press(page, "Enter")  # a single match is taken
    expect(target).to_have_value("Санкт-Петербург")
    assert params_of(wait_events(hub, tid, "select_city", 2)) == [
        {"field": "from", "name": "Казань", "widget": "typeahead"},
        {"field": "to", "name": "Санкт-Петербург", "widget": "typeahead"},
    ]


def test_rail_native_select_station_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "rail", path="", ui_variants={"select_station": "native_select"}
    ).trajectory_id
    origin = page.get_by_role("combobox", name="Откуда")
    target = page.get_by_role("combobox", name="Куда", exact=True)
    origin.focus()
    press(page, "ArrowDown")  # the first station
    expect(origin).to_have_value("Архангельск")
    press(page, "Tab")
    expect(target).to_be_focused()
    press(page, "End")  # the last one
    expect(target).to_have_value("Ярославль")
    assert params_of(wait_events(hub, tid, "select_city", 2)) == [
        {"field": "from", "name": "Архангельск", "widget": "native_select"},
        {"field": "to", "name": "Ярославль", "widget": "native_select"},
    ]


# -- hotels: counter_guests ----------------------------------------------------------------

TWO_ROOMS = {
    "rooms": [{"adults": 2, "kids": []}, {"adults": 1, "kids": [4]}],
    "roomsCount": 2,
    "guestsCount": 4,
}


def choose_age(page: Page, box: Any, kid: int, room: int, age: int) -> None:
    """An age list by keyboard: from «Возраст» down to `age` (0 is «до 1 года»)."""
    select = box.get_by_label(f"Возраст ребёнка {kid} в номере {room}")
    select.focus()
    press(page, *["ArrowDown"] * (age + 1))
    expect(select).to_have_value(str(age))


def test_rooms_popup_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "hotels", path="", ui_variants={"counter_guests": "rooms_popup"}
    ).trajectory_id
    box = page.locator("[data-wpb-guests]")
    trigger = box.get_by_role("button", name="1 номер, 2 гостя")
    trigger.focus()
    press(page, "Enter")
    expect(box.get_by_role("dialog", name="Гости и номера")).to_be_visible()
    expect(box.get_by_role("button", name="Меньше: взрослые в номере 1")).to_be_focused()
    press(page, "Tab")  # «Больше: взрослые»; «Меньше: дети» is disabled at 0
    press(page, "Tab")
    expect(box.get_by_role("button", name="Больше: дети в номере 1")).to_be_focused()
    press(page, "Enter")
    expect(box.get_by_role("button", name="Больше: дети в номере 1")).to_be_focused()
    choose_age(page, box, 1, 1, 7)
    box.get_by_role("button", name="Добавить номер").focus()
    press(page, "Enter")
    expect(box.get_by_role("group", name="Взрослые в номере 2")).to_be_visible()
    expect(box.get_by_role("button", name="Добавить номер")).to_be_focused()  # kept
    press(page, "Tab")
    expect(box.get_by_role("button", name="Готово")).to_be_focused()
    press(page, "Enter")
    expect(box.get_by_role("dialog", name="Гости и номера")).to_be_hidden()
    expect(box.get_by_role("button", name="2 номера, 4 гостя")).to_be_focused()
    assert params_of(wait_events(hub, tid, "bench_hotel_select_guests")) == [
        {
            "rooms": [{"adults": 2, "kids": [7]}, {"adults": 1, "kids": []}],
            "roomsCount": 2,
            "guestsCount": 4,
            "widget": "rooms_popup",
        }
    ]


def test_inline_stepper_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "hotels", path="", ui_variants={"counter_guests": "inline_stepper"}
    ).trajectory_id
    box = page.locator("[data-wpb-guests]")
    more_rooms = box.get_by_role("button", name="Больше: номера")
    more_rooms.focus()
    press(page, "Enter")
    expect(more_rooms).to_be_focused()  # focus survives the redraw
    expect(box.get_by_role("group", name="Номера")).to_contain_text("2")
    box.get_by_role("button", name="Больше: дети в номере 2").focus()
    press(page, "Space")
    choose_age(page, box, 1, 2, 4)
    box.get_by_role("button", name="Применить").focus()
    press(page, "Enter")
    expect(box.locator(".wpb-guests-summary")).to_have_text("2 номера, 4 гостя")
    assert params_of(wait_events(hub, tid, "bench_hotel_select_guests")) == [
        {**TWO_ROOMS, "widget": "inline_stepper"}
    ]


def test_compact_select_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "hotels", path="", ui_variants={"counter_guests": "compact_select"}
    ).trajectory_id
    box = page.locator("[data-wpb-guests]")
    rooms = box.get_by_label("Номера", exact=True)
    rooms.focus()
    press(page, "ArrowDown")
    expect(rooms).to_have_value("2")
    expect(rooms).to_be_focused()  # focus survives the redraw
    kids = box.get_by_label("Дети в номере 2", exact=True)
    kids.focus()
    press(page, "ArrowDown")
    expect(kids).to_have_value("1")
    choose_age(page, box, 1, 2, 4)
    box.get_by_role("button", name="Применить").focus()
    press(page, "Enter")
    expect(box.locator(".wpb-guests-summary")).to_have_text("2 номера, 4 гостя")
    assert params_of(wait_events(hub, tid, "bench_hotel_select_guests")) == [
        {**TWO_ROOMS, "widget": "compact_select"}
    ]


def test_pill_buttons_by_keyboard(page: Page, hub: httpx.Client) -> None:
    """Each row of pills is a radio group: one tab stop, the arrows move and choose."""
    tid = open_site(
        page, hub, "hotels", path="", ui_variants={"counter_guests": "pill_buttons"}
    ).trajectory_id
    box = page.locator("[data-wpb-guests]")
    rooms = box.get_by_role("radiogroup", name="Номера")
    one = rooms.get_by_role("radio", name="Номера: 1")
    expect(rooms.locator('[tabindex="0"]')).to_have_count(1)  # the chosen pill alone
    one.focus()
    press(page, "ArrowRight")
    two = box.get_by_role("radio", name="Номера: 2")
    expect(two).to_be_focused()  # focus survives the redraw
    expect(two).to_have_attribute("aria-checked", "true")
    expect(box.get_by_role("group", name="Номер 2")).to_be_visible()
    press(page, "Tab")  # out of the group, to the next group's chosen pill
    expect(box.get_by_role("radio", name="Взрослые в номере 1: 2")).to_be_focused()
    kids = box.get_by_role("radio", name="Дети в номере 2: 0")
    kids.focus()
    press(page, "ArrowLeft")  # round the end: 4 children
    expect(box.get_by_role("radio", name="Дети в номере 2: 4")).to_have_attribute(
        "aria-checked", "true"
    )
    press(page, "ArrowDown", "ArrowDown")  # round again, then one
    one_kid = box.get_by_role("radio", name="Дети в номере 2: 1")
    expect(one_kid).to_be_focused()
    expect(one_kid).to_have_attribute("aria-checked", "true")
    choose_age(page, box, 1, 2, 4)
    box.get_by_role("button", name="Применить").focus()
    press(page, "Enter")
    expect(box.locator(".wpb-guests-summary")).to_have_text("2 номера, 4 гостя")
    assert params_of(wait_events(hub, tid, "bench_hotel_select_guests")) == [
        {**TWO_ROOMS, "widget": "pill_buttons"}
    ]
