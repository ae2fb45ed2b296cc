"""Hotel tasks judge what was submitted: the search served and the room booked carry the city,
dates and guests they were made with, so a guests field left at a correct default passes and a
city changed before searching fails. Driven through the real UI, by role and accessible name."""

from __future__ import annotations

from datetime import date, timedelta

import httpx
from playwright.sync_api import Page, expect
from support.http import load, verdict, wait_events
from support.pages import open_site

from services.core.russian import MONTHS_GENITIVE


def shifted(iso: str, created: dict) -> date:
    return date.fromisoformat(iso) + timedelta(days=created.date_shift_days)


def choose_city(page: Page, typed: str, label: str) -> None:
    page.get_by_role("combobox", name="Город").fill(typed)
    page.get_by_role("option", name=label).click()


def pick_day(page: Page, day: date) -> None:
    """Click a day in the open calendar, turning its months forward until it shows."""
    wanted = page.get_by_role(
        "button", name=f"{day.day} {MONTHS_GENITIVE[day.month - 1]} {day.year}", exact=True
    )
    for _ in range(24):
        if wanted.filter(visible=True).count():
            break
        page.get_by_role("button", name="Следующий месяц").filter(visible=True).click()
    wanted.filter(visible=True).click()


def pick_stay(page: Page, start: date, end: date) -> None:
    page.get_by_role("button", name="Заезд: выберите дату").click()
    pick_day(page, start)
    pick_day(page, end)  # the check-out calendar opens by itself


def test_search_with_default_guests_passes(page: Page, hub: httpx.Client) -> None:
    created = open_site(page, hub, "hotels", load("hotels_search_zurich"))
    choose_city(page, "цюр", "Цюрих, Швейцария")
    pick_stay(page, shifted("2026-09-15", created), shifted("2026-09-20", created))
    expect(page.get_by_role("button", name="1 номер, 2 гостя")).to_be_visible()  # untouched
    page.get_by_role("button", name="Найти").click()
    expect(page.get_by_role("heading", name="Отели: Цюрих, Швейцария")).to_be_visible()
    result = verdict(hub, created.trajectory_id, "bench_hotel_select_end_date")
    assert result.ems == 1, result.conditions
    events = wait_events(hub, created.trajectory_id)
    assert not [e for e in events if e["type"] == "bench_hotel_select_guests"]


def test_search_after_switching_city_fails(page: Page, hub: httpx.Client) -> None:
    created = open_site(page, hub, "hotels", load("hotels_search_zurich"))
    choose_city(page, "цюр", "Цюрих, Швейцария")
    pick_stay(page, shifted("2026-09-15", created), shifted("2026-09-20", created))
    page.get_by_role("button", name="1 номер, 2 гостя").click()
    page.get_by_role("button", name="Готово").click()  # every widget of the prompt touched
    choose_city(page, "жен", "Женева, Швейцария")
    page.get_by_role("button", name="Найти").click()
    expect(page.get_by_role("heading", name="Отели: Женева, Швейцария")).to_be_visible()
    result = verdict(hub, created.trajectory_id, "bench_hotel_select_end_date")
    assert result.ems == 0


def test_booking_with_default_guests_passes(page: Page, hub: httpx.Client) -> None:
    created = open_site(page, hub, "hotels", load("hotels_book_room_typos"))
    choose_city(page, "праг", "Прага, Чехия")
    pick_stay(page, shifted("2026-10-12", created), shifted("2026-10-15", created))
    page.get_by_role("button", name="Найти").click()
    page.get_by_role("link", name="Выбрать номер: Апарт-отель «Тихий парус»").click()
    page.get_by_role("button", name="Выбрать номер «Улучшенный»").click()
    expect(page.get_by_role("heading", name="Номер выбран")).to_be_visible()
    result = verdict(hub, created.trajectory_id, "bench_hotel_select_room")
    assert result.ems == 1, result.conditions
    matched = result.conditions[0].matched_event
    assert matched is not None
    room = matched.params
    assert room["hotelId"] == "h-cz-prg-2" and room["rooms"] == [{"adults": 2, "kids": []}]
