"""Отели through the real UI in Chromium: the search form's widgets under each implementation,
by mouse and by keyboard, write their documented events; results, hotel and room pages write
theirs; bad input is refused with a Russian message and never a 500."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.http import create, events_url, make_task, params_of, wait_events
from support.pages import open_site

from services.hotels.catalog import load_catalog
from services.kit.chrome import RESERVED

TASK = make_task([{"event_name": "bench_hotel_select_city"}], domain="hotels")
STARS = {1: "1 звезда", 2: "2 звезды", 3: "3 звезды", 4: "4 звезды", 5: "5 звёзд"}


def test_search_to_room_by_mouse(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "hotels", TASK).trajectory_id
    page.get_by_role("combobox", name="Город").fill("цюр")
    page.get_by_role("option", name="Цюрих, Швейцария").click()
    page.get_by_role("button", name="Заезд: выберите дату").click()
    expect(page.locator(".wpb-cal-title").first).to_have_text("Ноябрь 2026")
    page.get_by_role("button", name="Следующий месяц").click()
    expect(page.locator(".wpb-cal-title").first).to_have_text("Декабрь 2026")
    page.get_by_role("button", name="15 декабря 2026").click()
    # the check-out popup opens by itself, and days up to check-in are disabled there
    expect(page.get_by_role("button", name="15 декабря 2026").last).to_be_disabled()
    page.get_by_role("button", name="20 декабря 2026").last.click()
    page.get_by_role("button", name="1 номер, 2 гостя").click()
    page.get_by_role("button", name="Больше: дети в номере 1").click()
    page.get_by_role("button", name="Готово").click()
    expect(page.get_by_role("alert").filter(has_text="Укажите возраст")).to_be_visible()
    page.get_by_label("Возраст ребёнка 1 в номере 1").select_option("7")
    page.get_by_role("button", name="Готово").click()
    expect(page.get_by_role("button", name="1 номер, 3 гостя")).to_be_visible()
    page.get_by_role("button", name="Найти").click()
    expect(page.get_by_role("heading", name="Отели: Цюрих, Швейцария")).to_be_visible()
    # Each card's stars say their number in words that agree with it («5 звёзд»).
    stars = page.locator("li.h-card span[aria-label]").evaluate_all(
        "spans => spans.map(s => [s.textContent.length, s.getAttribute('aria-label')])"
    )
    assert stars and all(label == STARS[count] for count, label in stars), stars
    card = page.locator("li.h-card").first
    hotel_id, name = card.get_attribute("data-hotel-id"), card.get_attribute("data-name")
    card.get_by_role("link", name=f"Выбрать номер: {name}").click()
    page.get_by_role("button", name="Выбрать номер «Стандартный»").click()
    expect(page.get_by_role("heading", name="Номер выбран")).to_be_visible()
    # The stay, the guest's details and wishes, the terms: optional, and no event of theirs.
    expect(page.get_by_role("region", name="Ваше проживание")).to_contain_text("Ночей")
    guest = page.get_by_role("region", name="Данные гостя")
    for label, text in (("Имя", "Анна"), ("Фамилия", "Смирнова"), ("Почта", "a@example.ru")):
        guest.get_by_role("textbox", name=label, exact=True).fill(text)
    guest.get_by_role("textbox", name="Телефон").fill("+7 912 000-00-00")
    guest.get_by_role("checkbox", name="Бронирую для другого человека").check()
    for wish in ("Завтрак в ресторане отеля", "Ранний заезд", "Поздний выезд"):
        guest.get_by_role("checkbox", name=wish).check()
    guest.get_by_role("checkbox", name="Трансфер от вокзала или аэропорта").check()
    guest.get_by_role("checkbox", name="Детская кроватка").check()
    guest.get_by_role("checkbox", name="Тихий номер на высоком этаже").check()
    guest.get_by_role("combobox", name="Время прибытия").select_option("18:00–20:00")
    guest.get_by_role("textbox", name="Особые пожелания").fill("Номер подальше от лифта")
    page.get_by_text("Условия отмены", exact=True).click()
    page.get_by_text("Когда нужно платить?").click()
    expect(page.get_by_role("link", name="Как устроено бронирование")).to_be_visible()
    expect(page.get_by_role("navigation", name="Перед поездкой").get_by_role("link")).to_have_count(
        3
    )
    for link, slug in (
        ("Правила отмены полностью", "cancellation-rules"),
        ("Где найти", "my-bookings"),
    ):
        expect(page.get_by_role("link", name=link)).to_have_attribute(
            "href", re.compile(f"/info/{slug}$")
        )

    wait_events(hub, tid, "bench_hotel_select_guests")  # the last event the page wrote
    events = wait_events(hub, tid)
    params = {e["type"]: e["params"] for e in events}
    assert params["bench_hotel_select_city"] == {
        "cityId": "ch-zrh",
        "label": "Цюрих, Швейцария",
        "cityName": "Цюрих",
        "countryName": "Швейцария",
        "widget": "autocomplete",
    }
    assert params["bench_hotel_select_start_date"] == {
        "date": "2026-12-15",
        "widget": "split_popup",
    }
    assert params["bench_hotel_select_end_date"] == {"date": "2026-12-20", "widget": "split_popup"}
    assert params["bench_hotel_select_guests"] == {
        "rooms": [{"adults": 2, "kids": [7]}],
        "roomsCount": 1,
        "guestsCount": 3,
        "widget": "rooms_popup",
    }
    assert params["bench_hotel_select_hotel"] == {
        "hotelId": hotel_id,
        "name": name,
        "cityId": params["bench_hotel_select_city"]["cityId"],
    }
    assert params["bench_hotel_select_room"]["roomType"] == "Стандартный"
    assert all(e["source"] == "server" for e in events if e["type"].endswith(("hotel", "room")))
    states = [p["new_state"] for p in params_of(events, "state_changed")]
    assert states == [
        "bench_hub_main",
        "state_hotels_main",
        "bench_hotel_search",
        "bench_hotel_item",
        "bench_hotel_booking",
    ]


def test_default_widgets_by_keyboard(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "hotels", TASK).trajectory_id
    city = page.get_by_role("combobox", name="Город")
    city.fill("Южная")
    city.press("ArrowDown")
    city.press("Enter")
    expect(city).to_have_value("Пусан, Южная Корея")
    city.fill("Атлантида")
    expect(page.get_by_role("status").filter(has_text="Такого города нет")).to_be_visible()
    city.fill("сеул")
    city.press("Enter")  # a single match is taken
    trigger = page.get_by_role("button", name="Заезд: выберите дату")
    trigger.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowRight")  # today is focused first: move to tomorrow
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    guests = page.get_by_role("button", name="1 номер, 2 гостя")
    guests.focus()
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Больше: взрослые в номере 1").focus()
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Готово").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="1 номер, 3 гостя")).to_be_visible()
    assert [
        p["cityId"] for p in params_of(wait_events(hub, tid, "bench_hotel_select_city", 2))
    ] == [
        "kr-pus",
        "kr-sel",
    ]
    assert params_of(wait_events(hub, tid, "bench_hotel_select_start_date")) == [
        {"date": "2026-11-30", "widget": "split_popup"}
    ]
    assert params_of(wait_events(hub, tid, "bench_hotel_select_end_date")) == [
        {"date": "2026-12-03", "widget": "split_popup"}
    ]
    assert params_of(wait_events(hub, tid, "bench_hotel_select_guests"))[0]["guestsCount"] == 3


def test_native_select_city(page: Page, hub: httpx.Client) -> None:
    tid = open_site(
        page, hub, "hotels", TASK, ui_variants={"select_city": "native_select"}
    ).trajectory_id
    select = page.get_by_role("combobox", name="Город")
    select.select_option(label="Дубай, ОАЭ")
    select.focus()
    page.keyboard.press("ArrowDown")  # the next city in the list, by keyboard
    expect(select).not_to_have_value("ae-dxb")
    events = params_of(wait_events(hub, tid, "bench_hotel_select_city", 2))
    assert events[0] == {
        "cityId": "ae-dxb",
        "label": "Дубай, ОАЭ",
        "cityName": "Дубай",
        "countryName": "ОАЭ",
        "widget": "native_select",
    }
    assert len(events) == 2 and all(e["widget"] == "native_select" for e in events)


@pytest.mark.parametrize("impl", ["inline_stepper", "compact_select", "pill_buttons"])
def test_guest_counters_write_the_same_event(page: Page, hub: httpx.Client, impl: str) -> None:
    tid = open_site(page, hub, "hotels", TASK, ui_variants={"counter_guests": impl}).trajectory_id
    box = page.locator("[data-wpb-guests]")
    if impl == "compact_select":
        box.get_by_label("Номера", exact=True).select_option("2")
        box.get_by_label("Дети в номере 2").select_option("1")
    elif impl == "pill_buttons":
        box.get_by_role("radio", name="Номера: 2").click()
        box.get_by_role("radio", name="Дети в номере 2: 1").click()
        expect(box.get_by_role("radio", name="Номера: 7")).to_have_count(0)  # 6 at most
    else:
        box.get_by_role("button", name="Больше: номера").click()
        box.get_by_role("button", name="Больше: дети в номере 2").focus()
        page.keyboard.press("Enter")
        expect(box.get_by_role("button", name="Меньше: взрослые в номере 2")).to_be_disabled()
    box.get_by_label("Возраст ребёнка 1 в номере 2").select_option("4")
    box.get_by_role("button", name="Применить").click()
    assert params_of(wait_events(hub, tid, "bench_hotel_select_guests")) == [
        {
            "rooms": [{"adults": 2, "kids": []}, {"adults": 1, "kids": [4]}],
            "roomsCount": 2,
            "guestsCount": 4,
            "widget": impl,
        }
    ]


def test_popups_close_on_a_click_outside(page: Page, hub: httpx.Client) -> None:
    open_site(
        page,
        hub,
        "hotels",
        TASK,
        ui_variants={"date": "split_popup", "counter_guests": "rooms_popup"},
    )
    heading = page.get_by_role("heading", name="Найдите отель для поездки")
    page.get_by_role("button", name="Заезд: выберите дату").click()
    dates = page.get_by_role("dialog", name="Заезд: выбор даты")
    dates.get_by_role("button", name="Следующий месяц").click()  # inside: stays open
    expect(dates).to_be_visible()
    heading.click()
    expect(dates).to_be_hidden()
    page.get_by_role("button", name="1 номер, 2 гостя").click()
    guests = page.get_by_role("dialog", name="Гости и номера")
    guests.get_by_role("button", name="Больше: взрослые в номере 1").click()
    expect(guests).to_be_visible()
    heading.click()
    expect(guests).to_be_hidden()


def test_bad_input_is_refused(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub, TASK).trajectory_id
    base = f"/t/{tid}/hotels"
    ok = {"city": "ch-zrh", "start": "2026-12-10", "end": "2026-12-12", "rooms": "2"}
    assert agent.get(f"{base}/search", params=ok).status_code == 200
    for change, message in (
        ({"city": "xx-atl"}, "Такого города нет"),
        ({"start": "2026-02-31"}, "Такой даты нет"),
        ({"start": "2026-11-01"}, "уже прошла"),
        ({"end": "2026-12-09"}, "позже даты заезда"),
        ({"rooms": "7"}, "от 1 до 6 взрослых"),
        ({"rooms": "2:1,1,1,1,1"}, "не больше 4 детей"),
    ):
        answer = agent.get(f"{base}/search", params={**ok, **change})
        assert answer.status_code == 422 and message in answer.text, change
    assert agent.get(f"{base}/hotel/h-xx-1").status_code == 404
    answer = agent.post(f"{base}/hotel/h-ch-zrh-1/room", data={"room_type": "Дворец", **ok})
    assert answer.status_code == 422
    events = events_url(agent, f"{base}/")
    for params in (
        {"cityId": "xx-atl", "label": "А", "cityName": "А", "countryName": "Б"},
        {"cityId": "ch-zrh", "label": "Цюрих, Австрия", "cityName": "Цюрих", "countryName": "А"},
    ):
        refused = agent.post(events, json={"type": "bench_hotel_select_city", "params": params})
        assert refused.status_code == 422
    guests = {"rooms": [{"adults": 2, "kids": []}], "roomsCount": 1, "guestsCount": 3}
    refused = agent.post(events, json={"type": "bench_hotel_select_guests", "params": guests})
    assert refused.status_code == 422 and "guestsCount" in refused.text
    past = {"type": "bench_hotel_select_start_date", "params": {"date": "2020-01-01"}}
    assert agent.post(events, json=past).status_code == 422
    room = {"type": "bench_hotel_select_room", "params": {"roomType": "Люкс", "price": 1}}
    assert agent.post(events, json=room).status_code == 422  # server-written only
    # A valid page event after the refused ones: once it is stored, it is the only one.
    marker = "bench_hotel_select_start_date"
    valid = {"type": marker, "params": {"date": "2026-12-10"}}
    assert agent.post(events, json=valid).status_code == 200
    wait_events(hub, tid, marker)
    assert [e["type"] for e in wait_events(hub, tid) if e["source"] == "page"] == [marker]


def test_past_is_judged_by_the_trajectorys_today(hub, agent) -> None:
    """A page date is refused before the trajectory's today, not the stand's clock."""
    task = make_task([{"event_name": "bench_hotel_select_start_date"}], domain="hotels")
    early = create(hub, task, today="2026-01-10").trajectory_id
    base = f"/t/{early}/hotels"
    events = events_url(agent, f"{base}/")
    date = {"type": "bench_hotel_select_start_date", "params": {"date": "2026-03-01"}}
    assert agent.post(events, json=date).status_code == 200
    before = {"type": "bench_hotel_select_start_date", "params": {"date": "2026-01-09"}}
    answer = agent.post(events, json=before)
    assert answer.status_code == 422 and answer.json()["field"] == "events[0].params.date"


def test_front_page_blocks_open_searches_and_information(page: Page, hub: httpx.Client) -> None:
    """The blocks below the form (docs/sites.md, "Front pages"): a weekend idea and a city of
    the index search that city's hotels; the blog opens the information page."""
    open_site(page, hub, "hotels", path="")
    title = page.get_by_role("heading", level=1)
    ideas = page.get_by_role("region", name="Идеи на выходные")
    ideas.get_by_role("link", name="Море и горы зимой").click()
    expect(title).to_contain_text("Сочи")
    expect(page.locator("li.h-card")).to_have_count(6)
    page.go_back()
    cities = page.get_by_role("region", name="Гостиницы по городам")
    cities.get_by_role("region", name="За рубежом").get_by_role("link", name="Тбилиси").click()
    expect(title).to_contain_text("Тбилиси")
    page.go_back()
    blog = page.get_by_role("region", name="Блог о путешествиях")
    blog.get_by_role("link", name="Ранний заезд и поздний выезд").click()
    expect(title).to_have_text("Блог о путешествиях")


# -- issue 39: the results' filters, sort, tabs, map and ♡; the hotel page; the booking's
# confirmation; the rates step ------------------------------------------------------------

RESULTS = "search?city=ru-mow&start=2026-12-20&end=2026-12-23&rooms=2"
HOTEL = "hotel/h-ru-mow-1?city=ru-mow&start=2026-12-20&end=2026-12-23&rooms=2"
# Each section of the rail: the control to tick, its role and the start of its name (the
# option's live count follows it), and the `apply_filter` it writes.
FILTERS = [
    ("radio", "за весь период", {"filter_type": "price_for", "value": "stay"}),
    ("checkbox", "Отель", {"filter_type": "type", "value": "Отель"}),
    ("radio", "до 5 км", {"filter_type": "distance", "value": 5}),
    ("checkbox", "Спа", {"filter_type": "amenity", "value": "Спа"}),
    ("checkbox", "Без питания", {"filter_type": "meals", "value": "Без питания"}),
    ("checkbox", "3 звезды", {"filter_type": "stars", "value": 3}),
    ("radio", "Хорошо: от 7", {"filter_type": "rating", "value": 7}),
    ("checkbox", "Бесплатная отмена", {"filter_type": "cancellation", "value": "free"}),
    ("checkbox", "Предоплата онлайн", {"filter_type": "payment", "value": "Предоплата онлайн"}),
    ("checkbox", "Двуспальная кровать", {"filter_type": "beds", "value": "Двуспальная кровать"}),
    ("checkbox", "Набережная", {"filter_type": "district", "value": "Набережная"}),
]
# A control with no accessible name in an ARIA snapshot: its role alone on the line.
UNNAMED = re.compile(
    r"^\s*- (button|link|checkbox|radio|textbox|spinbutton|combobox|slider|tab|switch)"
    r"( \[[^\]]*\])*:?$",
    re.MULTILINE,
)


# The controls issue 39 added, by where they are: the results' rail, tabs, sort, map and ♡;
# the hotel page's sections and rates; the booking's form.
NEW_CONTROLS = (
    ".h-rail, .h-tabs, .h-sort, .h-map-panel, .h-fav, .h-about, .h-rates, .kit-faq, .h-guest"
)
CONTROL = "a[href], button, input:not([type=hidden]), select, textarea, summary"


def assert_named(page: Page) -> None:
    """Every control of the page has an accessible name, and no new control's name holds
    one a task's path looks for (services/kit/chrome.py RESERVED, «Выбрать»): Playwright
    matches names by substring. The kit's ♡ says «Добавить в избранное: …», which holds no
    path's name (the guests' «Добавить номер» is not in it)."""
    snapshot = page.locator("body").aria_snapshot()
    assert not UNNAMED.findall(snapshot), snapshot
    names = (
        page.locator(NEW_CONTROLS)
        .locator(CONTROL)
        .evaluate_all(
            "els => els.map(el => el.getAttribute('aria-label')"
            " || (el.labels && el.labels[0] ? el.labels[0].textContent : el.textContent).trim())"
        )
    )
    assert names
    taken = [*RESERVED, "выбрать"]
    clashes = [
        (name, word)
        for name in names
        if not name.startswith(("Добавить в избранное: ", "Убрать из избранного: "))
        for word in taken
        if word in name.casefold()
    ]
    assert not clashes, clashes


def test_results_filters_sort_tabs_map_and_favourites(screen_page: Page, hub: httpx.Client) -> None:
    """Every section of the rail, by role and name, filters the list on the server (each
    option says how many it would leave) and writes `apply_filter`; the sort and the tabs
    write theirs, «Сбросить» clears; ♡ writes the favourites' events; a pin opens its hotel."""
    page = screen_page
    tid = open_site(page, hub, "hotels", path=RESULTS).trajectory_id
    found = page.get_by_test_id("found")
    expect(found).to_have_text("Найдено 6 вариантов")
    assert_named(page)
    rail = page.get_by_role("complementary", name="Фильтры")
    spa = rail.get_by_role("checkbox", name=re.compile("^Спа"))
    expect(spa).to_have_accessible_name(re.compile(r"^Спа 3\s*$"))  # three of Москва's six
    price = rail.get_by_role("spinbutton", name="Цена до, ₽")
    price.fill("60000")
    price.press("Enter")
    expect(rail.get_by_role("spinbutton", name="Цена до, ₽")).to_have_value("60000")
    for role, name, _ in FILTERS:
        control = rail.get_by_role(role, name=re.compile(f"^{name}"))  # type: ignore[arg-type]
        control.check()
        expect(rail.get_by_role(role, name=re.compile(f"^{name}"))).to_be_checked()  # type: ignore[arg-type]
    expect(found).to_have_text(re.compile(r"^Найдено \d+ вариант"))
    page.get_by_role("navigation", name="Сортировка").get_by_role(
        "link", name="Сначала дешевле"
    ).click()
    expect(page.get_by_role("link", name="Сначала дешевле")).to_have_attribute(
        "aria-current", "true"
    )
    tabs = page.get_by_role("navigation", name="Тип размещения")
    tabs.get_by_role("link", name=re.compile("^Апартаменты")).click()
    expect(tabs.get_by_role("link", name=re.compile("^Апартаменты"))).to_have_attribute(
        "aria-current", "page"
    )
    rail.get_by_role("link", name="Сбросить").click()
    expect(found).to_have_text("Найдено 6 вариантов")
    expect(rail.get_by_role("checkbox", name=re.compile("^Спа"))).not_to_be_checked()
    card = page.locator("li.h-card").first
    hotel_id, name = card.get_attribute("data-hotel-id"), card.get_attribute("data-name")
    card.get_by_role("button", name=f"Добавить в избранное: {name}").click()
    expect(card.get_by_role("button", name=f"Убрать из избранного: {name}")).to_be_visible()
    card.get_by_role("button", name=f"Убрать из избранного: {name}").click()
    expect(card.get_by_role("button", name=f"Добавить в избранное: {name}")).to_be_visible()
    page.get_by_role("link", name=re.compile(f"^На карте: {re.escape(name or '')}")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(name or "")

    wait_events(hub, tid, "bench_hotel_select_hotel")
    events = wait_events(hub, tid)
    filters = params_of(events, "apply_filter")
    assert {"filter_type": "price_max", "value": 60000} in filters
    for _, _, written in FILTERS:
        assert written in filters, (written, filters)
    assert {"filter_type": "type", "value": "Апартаменты"} in filters
    assert params_of(events, "apply_sort") == [{"sort": "price"}]
    assert params_of(events, "add_favorites") == [{"item_id": hotel_id, "title": name}]
    assert params_of(events, "remove_favorites") == [{"item_id": hotel_id, "title": name}]
    hotel = load_catalog().hotel(str(hotel_id))
    assert hotel is not None
    assert params_of(events, "bench_hotel_select_hotel") == [
        {"hotelId": hotel_id, "name": name, "cityId": hotel.city}
    ]


def test_hotel_page_sections_rates_and_booking_confirmation(
    screen_page: Page, hub: httpx.Client
) -> None:
    """Under `hotel_rates=rates` a room's button opens its rates and a rate books the room
    with today's event; the hotel page's sections below the rooms; the booking's form,
    filled in, confirms with a number and `bench_hotel_confirm_booking`."""
    page = screen_page
    tid = open_site(
        page, hub, "hotels", path=HOTEL, ui_variants={"hotel_rates": "rates"}
    ).trajectory_id
    for region in (
        "Почему здесь останавливаются",
        "Заезд и выезд",
        "Расположение",
        "Удобства",
        "Правила проживания",
        "Оплата",
        "Отзывы гостей",
        "Другие отели: Москва",
    ):
        expect(page.get_by_role("region", name=region)).to_be_visible()
    expect(page.get_by_role("meter", name=re.compile("^Чистота: "))).to_be_visible()
    page.get_by_role("button", name="Выбрать номер «Полулюкс»").click()
    assert_named(page)
    rates = page.get_by_role("list", name="Тарифы номера «Полулюкс»")
    expect(rates.get_by_role("button")).to_have_count(2)
    wait_events(hub, tid, "bench_hotel_select_hotel")
    assert not params_of(wait_events(hub, tid), "bench_hotel_select_room")  # not yet
    rates.get_by_role(
        "button", name="Тариф «Завтрак включён, бесплатная отмена» для номера «Полулюкс»"
    ).click()
    expect(page.get_by_role("heading", name="Номер выбран")).to_be_visible()
    expect(page.get_by_test_id("rate")).to_contain_text("Завтрак включён, бесплатная отмена")
    guest = page.get_by_role("region", name="Данные гостя")
    expect(guest.get_by_role("textbox", name="Имя", exact=True)).to_have_value("Анна")
    guest.get_by_role("textbox", name="Почта").fill("")
    guest.get_by_role("button", name="Забронировать").click()
    expect(guest.get_by_role("alert")).to_have_text("Укажите почту: адрес с @")
    guest.get_by_role("textbox", name=re.compile("^Почта")).fill("anna@example.ru")
    assert_named(page)
    guest.get_by_role("button", name="Забронировать").click()
    expect(page.get_by_test_id("confirmation")).to_contain_text("Номер брони: ОТ-")
    number = (page.get_by_test_id("confirmation").locator("b").text_content() or "").strip()

    wait_events(hub, tid, "bench_hotel_confirm_booking")
    events = wait_events(hub, tid)
    assert params_of(events, "bench_hotel_select_room") == [
        {
            "roomType": "Полулюкс",
            "price": 20200,
            "hotelId": "h-ru-mow-1",
            "cityId": "ru-mow",
            "startDate": "2026-12-20",
            "endDate": "2026-12-23",
            "rooms": [{"adults": 2, "kids": []}],
            "roomsCount": 1,
            "guestsCount": 2,
        }
    ]
    assert params_of(events, "bench_hotel_confirm_booking") == [
        {
            "hotelId": "h-ru-mow-1",
            "roomType": "Полулюкс",
            "startDate": "2026-12-20",
            "endDate": "2026-12-23",
            "guestsCount": 2,
            "confirmation": number,
        }
    ]


def test_results_refuse_bad_filters(agent: httpx.Client, hub: httpx.Client) -> None:
    """An unknown option, sort or a bad price is a 422 naming its key, never a 500."""
    tid = create(hub, TASK).trajectory_id
    for query, field in (
        ("&stars=7", "stars"),
        ("&sort=cheap", "sort"),
        ("&price_min=abc", "price_min"),
        ("&price_min=9000&price_max=100", "price_max"),
        ("&distance=1&distance=3", "distance"),
    ):
        answer = agent.get(f"/t/{tid}/hotels/{RESULTS}{query}")
        assert answer.status_code == 422, (query, answer.status_code)
        assert field in answer.text, query
