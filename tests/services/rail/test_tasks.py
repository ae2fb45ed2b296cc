"""Rail tasks judge what was booked: the basket line carries the train, route, day, tariff,
seats with their berth kinds and passengers with their kinds, so a tariff chosen and then
changed, an upper berth beside a lower one or two adults for «взрослый с ребёнком» fail, and
paying fails the task that says not to. Driven through the real UI, by role and name."""

from __future__ import annotations

import re
from datetime import date, timedelta

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.http import load, verdict
from support.pages import open_site

from services.core.russian import MONTHS_GENITIVE as MONTHS
from services.rail.catalog import Seat, load_catalog

ANNA, IGOR, POLINA = "Смирнова Анна Петровна", "Смирнов Игорь Олегович", "Смирнова Полина Игоревна"


def search(
    page: Page, created: dict, origin: str, dest: str, iso: str, adults: int, children: int = 0
) -> None:
    """The search on the page open, Поезда's first."""
    page.get_by_role("combobox", name="Откуда").fill(origin[:4].lower())
    page.get_by_role("option", name=origin).click()
    page.get_by_role("combobox", name="Куда", exact=True).fill(dest[:4].lower())
    page.get_by_role("option", name=dest).click()
    day = date.fromisoformat(iso) + timedelta(days=created.date_shift_days)
    page.get_by_role("button", name="Туда: выберите дату").click()
    wanted = page.get_by_role(
        "button", name=f"{day.day} {MONTHS[day.month - 1]} {day.year}", exact=True
    )
    for _ in range(24):
        if wanted.count():
            break
        page.get_by_role("button", name="Следующий месяц").click()
    wanted.click()
    page.get_by_role("combobox", name="Взрослые").select_option(str(adults))
    page.get_by_role("combobox", name="Дети").select_option(str(children))
    page.get_by_role("button", name="Найти").click()


def free_seats(train: str, origin: str, tariff: str, lower: bool | None = None) -> list[Seat]:
    found = next(
        t for t in load_catalog().trains if t.name == train and t.from_city == origin
    ).car_for(tariff)
    assert found is not None
    return [s for s in found.seats() if not s.taken and (lower is None or s.lower is lower)]


def take_seats(page: Page, seats: list[Seat]) -> None:
    for seat in seats:
        button = page.get_by_role("button", name=seat.caption, exact=True)
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")


def book(page: Page, people: list[str]) -> None:
    page.get_by_role("link", name="Далее: пассажиры").click()
    for name in people:
        page.get_by_role("button", name=f"Выбрать пассажира: {name}").click()
    page.get_by_role("button", name="Оформить").click()
    expect(page.get_by_role("heading", name="Корзина")).to_be_visible()


def family(page: Page, hub: httpx.Client, adults: int, seats: list[Seat], people: list[str]) -> int:
    created = open_site(page, hub, "rail", load("rail_cart_family"))
    search(page, created, "Москва", "Казань", "2026-10-10", adults, 2 - adults)
    page.get_by_role("link", name="Выбрать поезд «Волжская заря»").click()
    page.get_by_role("button", name=re.compile(r"^Плацкартный · ")).click()
    take_seats(page, seats)
    book(page, people)
    return int(verdict(hub, created.trajectory_id, "basket_add").ems)


def test_family_adult_and_child_on_lower_berths_passes(page: Page, hub: httpx.Client) -> None:
    lower = free_seats("Волжская заря", "Москва", "Плацкартный", lower=True)
    assert family(page, hub, 1, lower[:2], [ANNA, POLINA]) == 1


@pytest.mark.parametrize(
    ("adults", "lower_seats", "people"),
    [
        (2, 1, [ANNA, IGOR]),  # two adults, an upper berth, then a lower one
        (1, 1, [ANNA, POLINA]),  # adult and child, but one berth upper
        (2, 2, [ANNA, IGOR]),  # two lower berths, but no child
    ],
    ids=["two-adults-upper-lower", "upper-lower", "two-adults"],
)
def test_family_near_misses_fail(
    page: Page, hub: httpx.Client, adults: int, lower_seats: int, people: list[str]
) -> None:
    lower = free_seats("Волжская заря", "Москва", "Плацкартный", lower=True)
    upper = free_seats("Волжская заря", "Москва", "Плацкартный", lower=False)
    seats = lower[:2] if lower_seats == 2 else [upper[0], lower[0]]
    assert family(page, hub, adults, seats, people) == 0


def business(page: Page, hub: httpx.Client, tariffs: list[str]) -> int:
    created = open_site(page, hub, "rail", load("rail_cart_business"))
    search(page, created, "Москва", "Санкт-Петербург", "2026-09-21", 1)
    page.get_by_role("combobox", name="Тариф", exact=True).select_option("Бизнес")
    page.get_by_role("button", name="Показать").click()
    page.get_by_role("link", name="Выбрать поезд «Серебряный путь»").click()
    for tariff in tariffs:
        page.get_by_role("button", name=re.compile(rf"^{tariff} · ")).click()
    window = [s for s in free_seats("Серебряный путь", "Москва", tariffs[-1]) if s.window]
    take_seats(page, window[:1])
    book(page, [ANNA])
    return int(verdict(hub, created.trajectory_id, "basket_add").ems)


def test_business_window_seat_passes(page: Page, hub: httpx.Client) -> None:
    assert business(page, hub, ["Бизнес"]) == 1


def test_business_chosen_then_another_tariff_booked_fails(page: Page, hub: httpx.Client) -> None:
    assert business(page, hub, ["Бизнес", "Эконом"]) == 0


def checkout(page: Page, hub: httpx.Client, pay: bool) -> int:
    created = open_site(page, hub, "rail", load("rail_checkout_stop"))
    search(page, created, "Москва", "Нижний Новгород", "2026-09-18", 1)
    page.get_by_role("link", name="Выбрать поезд «Кремлёвский холм»").click()
    page.get_by_role("button", name=re.compile(r"^Эконом\+ · ")).click()
    take_seats(page, free_seats("Кремлёвский холм", "Москва", "Эконом+")[:1])
    book(page, [ANNA])
    page.get_by_role("link", name="Оформить заказ").click()
    page.get_by_role("button", name="Банковская карта").click()
    page.get_by_role("link", name="Перейти к оплате").click()
    expect(page.get_by_role("button", name=re.compile(r"^Оплатить"))).to_be_visible()
    if pay:
        page.get_by_role("button", name=re.compile(r"^Оплатить")).click()
        expect(page.get_by_role("heading", name="Заказ оплачен")).to_be_visible()
    wait_for = "submit_payment" if pay else "select_pay_method"
    return int(verdict(hub, created.trajectory_id, wait_for).ems)


def test_checkout_stopping_at_payment_passes(page: Page, hub: httpx.Client) -> None:
    assert checkout(page, hub, pay=False) == 1


def test_checkout_paying_anyway_fails(page: Page, hub: httpx.Client) -> None:
    assert checkout(page, hub, pay=True) == 0


def econom(page: Page, hub: httpx.Client, origin: str, dest: str) -> int:
    """Search Москва — Санкт-Петербург sorted by price, then book «Ясный сокол» from origin."""
    created = open_site(page, hub, "rail", load("rail_cart_econom"))
    search(page, created, "Москва", "Санкт-Петербург", "2026-09-15", 1)
    page.get_by_role("combobox", name="Сортировать", exact=True).select_option("price")
    page.get_by_role("button", name="Упорядочить").click()
    if origin != "Москва":
        page.goto(f"{created.url}rail/")
        search(page, created, origin, dest, "2026-09-15", 1)
    page.get_by_role("link", name="Выбрать поезд «Ясный сокол»").click()
    page.get_by_role("button", name=re.compile(r"^Эконом · ")).click()
    take_seats(page, free_seats("Ясный сокол", origin, "Эконом")[:1])
    book(page, [ANNA])
    return int(verdict(hub, created.trajectory_id, "basket_add").ems)


def test_econom_passes(page: Page, hub: httpx.Client) -> None:
    assert econom(page, hub, "Москва", "Санкт-Петербург") == 1


def test_econom_booked_the_other_way_fails(page: Page, hub: httpx.Client) -> None:
    assert econom(page, hub, "Санкт-Петербург", "Москва") == 0


def pay_sv(page: Page, hub: httpx.Client, tariffs: list[str]) -> int:
    """Book «Тихий перрон» in each tariff in turn (a cart line each, the n-th booking on the
    n-th free seat), then pay by card."""
    created = open_site(page, hub, "rail", load("rail_pay_sv"))
    for n, tariff in enumerate(tariffs):
        if n:
            page.goto(f"{created.url}rail/")
        search(page, created, "Москва", "Санкт-Петербург", "2026-09-25", 1)
        page.get_by_role("link", name="Выбрать поезд «Тихий перрон»").click()
        page.get_by_role("button", name=re.compile(rf"^{tariff} · ")).click()
        take_seats(page, free_seats("Тихий перрон", "Москва", tariff)[n : n + 1])
        book(page, [ANNA])
    # The cart's lines: each has its «Удалить билеты» (the trip details below list trains too).
    lines = page.get_by_role("listitem").filter(
        has=page.get_by_role("button", name=re.compile(r"^Удалить билеты: .*«Тихий перрон»"))
    )
    expect(lines).to_have_count(len(tariffs))
    page.get_by_role("link", name="Оформить заказ").click()
    page.get_by_role("button", name="Банковская карта").click()
    page.get_by_role("link", name="Перейти к оплате").click()
    page.get_by_role("button", name=re.compile(r"^Оплатить")).click()
    expect(page.get_by_role("heading", name="Заказ оплачен")).to_be_visible()
    return int(verdict(hub, created.trajectory_id, "submit_payment").ems)


def test_paying_for_the_ticket_passes(page: Page, hub: httpx.Client) -> None:
    assert pay_sv(page, hub, ["СВ"]) == 1


def test_paying_for_a_wrong_ticket_beside_the_right_one_fails(
    page: Page, hub: httpx.Client
) -> None:
    assert pay_sv(page, hub, ["Купе", "СВ"]) == 0


def test_a_second_booking_in_one_car_is_a_line_of_its_own(page: Page, hub: httpx.Client) -> None:
    # Two tickets paid for one passenger's trip: the cart kept both, and the task fails.
    assert pay_sv(page, hub, ["СВ", "СВ"]) == 0


def test_a_passenger_beyond_the_searched_kinds_is_refused(
    page: Page, hub: httpx.Client, agent: httpx.Client
) -> None:
    # The search asked for two adults: a child's ticket cannot be chosen in its place.
    created = open_site(page, hub, "rail", load("rail_cart_family"))
    search(page, created, "Москва", "Казань", "2026-10-10", 2, 0)
    page.get_by_role("link", name="Выбрать поезд «Волжская заря»").click()
    page.get_by_role("button", name=re.compile(r"^Плацкартный · ")).click()
    take_seats(page, free_seats("Волжская заря", "Москва", "Плацкартный", lower=True)[:2])
    page.get_by_role("link", name="Далее: пассажиры").click()
    names = [p.name for p in load_catalog().passengers]
    base = f"/t/{created.trajectory_id}/rail/passengers"
    refused = agent.post(f"{base}/{names.index(POLINA)}")
    assert refused.status_code == 409 and "2 adults and 0 children" in refused.text
    assert agent.post(f"{base}/{names.index(ANNA)}").status_code == 303
    assert agent.post(f"{base}/{names.index(IGOR)}").status_code == 303
