"""The bank's page (`payment=bank`, services/kit/bank.py) through the real UI at both screens,
on Маркет's checkout and Поезда's payment: a good card pays once, a bad number and a past
expiry are refused on the page and by the server (naming the field), the declined test card
writes a declined `submit_payment` as the checkout's own form does and another card then
pays; the hub page shows the test card only where the variant is selected."""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import Page, expect
from support.http import create, make_task, params_of, wait_events

from services.kit.account import DECLINED_CARD, TEST_CARD
from services.kit.chrome import RESERVED

BANK = {"payment": "bank"}
NUMBER, EXPIRY, CVC = TEST_CARD
BAD_LUHN = "4111 1111 1111 1112"
# A ticket in the cart and the checkout open (tasks/canonical/rail/rail_recover_change_method).
TICKET = {
    "train_name": "Ясный сокол",
    "from_city": "Москва",
    "to_city": "Санкт-Петербург",
    "date": "2026-12-04",
    "tarif_name": "Эконом",
    "seats": [{"number": 1, "near_window": True}],
    "passengers": [{"name": "Смирнова Анна Петровна", "kind": "adult"}],
}
RAIL_TASK = make_task(
    [{"event_name": "submit_payment"}],
    domain="rail",
    bench_first_state="bench_rail_checkout",
    start_state=[{"event_name": "basket_add", "parameters": TICKET}],
)


def shop_checkout(page: Page, hub: httpx.Client, agent: httpx.Client) -> str:
    """A Маркет trajectory under the bank's page with one product in the cart, its checkout
    filled for a card and sent; the trajectory's id."""
    created = create(
        hub, make_task([{"event_name": "submit_payment"}], domain="shop"), **{"ui_variants": BANK}
    )
    agent.post(f"/t/{created.trajectory_id}/shop/cart/m-039", data={"op": "add"})
    page.goto(f"{created.url}shop/checkout")
    page.get_by_label("Адрес доставки").fill("Тихая улица, 7, кв. 3")
    page.get_by_label("Банковская карта").check()
    # No card fields on the shop's page: a note says where the card goes.
    expect(page.get_by_text("на защищённой странице банка")).to_be_visible()
    expect(page.get_by_role("textbox", name="Номер карты")).to_have_count(0)
    page.get_by_role("button", name="Оплатить 119 ₽").click()
    return created.trajectory_id


def check_bank_page(page: Page, merchant: str, amount: str) -> None:
    """The bank's page: its shop and amount, every control named, one «Оплатить» control,
    no other control holding a name a path looks for."""
    expect(page.get_by_role("heading", name="Оплата покупки картой")).to_be_visible()
    expect(page.get_by_test_id("bank-merchant")).to_have_text(merchant)
    expect(page.get_by_test_id("bank-amount")).to_have_text(amount)
    snapshot = page.locator("main").aria_snapshot()
    assert not re.search(r"- (button|link|textbox|checkbox)\s*(\[|:|$)", snapshot, re.M)
    names = re.findall(r'- (?:button|link|textbox|checkbox) "([^"]+)"', snapshot)
    assert [n for n in names if "оплатить" in n.lower()] == [f"Оплатить {amount}"]
    taken = [
        n for n in names if n != f"Оплатить {amount}" and any(r in n.lower() for r in RESERVED)
    ]
    assert not taken


def fill_card(page: Page, number: str, expiry: str = EXPIRY, cvc: str = CVC) -> None:
    for label, text in (("Номер карты", number), ("Срок действия", expiry), ("CVC", cvc)):
        page.get_by_label(label).fill(text)


def refused_on_the_page(page: Page, field: str, message: str) -> None:
    """«Оплатить» pressed: the field's message, and the page stays (nothing is sent)."""
    url = page.url
    page.get_by_role("button", name=re.compile("^Оплатить")).click()
    expect(page.get_by_role("textbox", name=field)).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("alert").filter(has_text=message)).to_be_visible()
    assert page.url == url


def pay(page: Page) -> None:
    """«Оплатить» pressed with a card the page takes: «Обрабатываем платёж…», then the answer."""
    with page.expect_navigation():
        page.get_by_role("button", name=re.compile("^Оплатить")).click()
        expect(page.get_by_role("status").filter(has_text="Обрабатываем платёж")).to_be_visible()


def payments(hub: httpx.Client, tid: str, count: int) -> list[dict[str, Any]]:
    return params_of(wait_events(hub, tid, "submit_payment", count), "submit_payment")


def test_shop_pays_a_good_card_once(
    screen_page: Page, hub: httpx.Client, agent: httpx.Client
) -> None:
    page = screen_page
    tid = shop_checkout(page, hub, agent)
    check_bank_page(page, "Маркет", "119 ₽")
    fill_card(page, BAD_LUHN)
    refused_on_the_page(page, "Номер карты", "номер карты — 16 цифр")
    fill_card(page, NUMBER, expiry="01/20")
    refused_on_the_page(page, "Срок действия", "срок действия карты истёк")
    fill_card(page, NUMBER)
    # The number in groups of four as it is typed, the expiry with its slash.
    page.get_by_label("Номер карты").fill("")
    page.get_by_label("Номер карты").press_sequentially(NUMBER.replace(" ", ""))
    expect(page.get_by_label("Номер карты")).to_have_value(NUMBER)
    page.get_by_label("Срок действия").fill("")
    page.get_by_label("Срок действия").press_sequentially(EXPIRY.replace("/", ""))
    expect(page.get_by_label("Срок действия")).to_have_value(EXPIRY)
    expect(page.get_by_label("CVC")).to_have_attribute("type", "password")
    pay(page)
    expect(page.get_by_role("heading", name="Спасибо, заказ оформлен")).to_be_visible()
    assert payments(hub, tid, 1) == [
        {"method": "card", "result": "success", "amount": 119, "item_ids": ["m-039"]}
    ]
    events = wait_events(hub, tid)
    assert [e["type"] for e in events].count("submit_payment") == 1


def test_rail_declined_card_then_another(screen_page: Page, hub: httpx.Client) -> None:
    page = screen_page
    created = create(hub, RAIL_TASK, ui_variants=BANK)  # opens on the checkout
    page.goto(created.url)
    tid = created.trajectory_id
    page.get_by_role("button", name="Банковская карта").click()
    page.get_by_role("link", name="Перейти к оплате").click()
    page.get_by_role("button", name=re.compile("^Оплатить")).click()
    amount = page.get_by_test_id("bank-amount").inner_text()
    check_bank_page(page, "Поезда", amount)
    fill_card(page, DECLINED_CARD)
    pay(page)
    expect(page.get_by_role("alert").filter(has_text="Платёж отклонён")).to_be_visible()
    declined = payments(hub, tid, 1)
    assert [(p["method"], p["result"]) for p in declined] == [("card", "declined")]
    assert declined[0]["tickets"][0]["train_name"] == "Ясный сокол"
    page.get_by_role("button", name="Ввести другую карту").click()
    expect(page.get_by_label("Номер карты")).to_have_value("")
    expect(page.get_by_label("Номер карты")).to_be_focused()
    fill_card(page, NUMBER)
    pay(page)
    page.wait_for_url("**/rail/paid")
    paid = payments(hub, tid, 2)
    assert [p["result"] for p in paid] == ["declined", "success"]
    assert paid[1]["tickets"] == declined[0]["tickets"]
    assert paid[1]["amount"] == declined[0]["amount"] == int(amount.split()[0])


def test_the_server_refuses_what_the_page_would(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub, ui_variants=BANK).trajectory_id
    shop, rail = f"/t/{tid}/shop", f"/t/{tid}/rail"
    card = {"card_number": NUMBER, "card_expiry": EXPIRY, "card_cvc": CVC}
    for bank in (f"{shop}/checkout/bank", f"{rail}/payment/bank"):
        # Nothing sent to the bank yet: nothing to pay.
        assert agent.post(bank, data=card).status_code == 409
    agent.post(f"{shop}/cart/m-039", data={"op": "add"})
    order = {"method": "card", "address": "Тихая, 7"}
    sent = agent.post(f"{shop}/checkout", data=order, follow_redirects=False)
    assert sent.status_code == 303 and sent.headers["location"].endswith("/shop/checkout/bank")
    assert agent.get(f"{shop}/checkout/bank").status_code == 200
    json = {"accept": "application/json"}
    for field, wrong in (
        ("card_number", BAD_LUHN),
        ("card_expiry", "01/20"),
        ("card_expiry", "13/40"),
        ("card_cvc", "12"),
    ):
        answer = agent.post(f"{shop}/checkout/bank", data={**card, field: wrong}, headers=json)
        assert answer.status_code == 422 and answer.json()["field"] == field, answer.text
    page = agent.post(f"{shop}/checkout/bank", data={**card, "card_number": BAD_LUHN})
    assert page.status_code == 422 and 'data-msg="card_number" role="alert"' in page.text
    declined = agent.post(f"{shop}/checkout/bank", data={**card, "card_number": DECLINED_CARD})
    assert declined.status_code == 402 and "Платёж отклонён" in declined.text
    assert agent.post(f"{shop}/checkout/bank", data=card).status_code == 200
    assert [p["result"] for p in payments(hub, tid, 2)] == ["declined", "success"]
    # Paid: the bank's page has nothing left to take.
    assert agent.post(f"{shop}/checkout/bank", data=card).status_code == 409


def test_other_methods_and_the_default_are_as_before(
    agent: httpx.Client, hub: httpx.Client
) -> None:
    banked = create(hub, ui_variants=BANK).trajectory_id
    agent.post(f"/t/{banked}/shop/cart/m-039", data={"op": "add"})
    sbp = {"method": "sbp", "address": "Тихая, 7"}
    assert agent.post(f"/t/{banked}/shop/checkout", data=sbp).status_code == 200
    assert [p["method"] for p in payments(hub, banked, 1)] == ["sbp"]
    plain = create(hub).trajectory_id
    agent.post(f"/t/{plain}/shop/cart/m-039", data={"op": "add"})
    assert agent.get(f"/t/{plain}/shop/checkout/bank", follow_redirects=False).status_code == 303
    checkout = agent.get(f"/t/{plain}/shop/checkout").text
    assert 'name="card_number"' in checkout and "страницы банка" not in checkout


def test_the_hub_shows_the_test_card_under_the_variant(
    agent: httpx.Client, hub: httpx.Client
) -> None:
    shown = agent.get(create(hub, ui_variants=BANK).url).text
    assert 'data-testid="test-card"' in shown
    assert f'data-testid="card-number">{NUMBER}<' in shown
    assert 'data-testid="test-card"' not in agent.get(create(hub).url).text


def test_books_card_goes_to_the_bank(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub, ui_variants=BANK).trajectory_id
    books = f"/t/{tid}/books"
    agent.post(f"{books}/cart/b-0005", data={"op": "add"})
    checkout = agent.get(f"{books}/checkout").text
    assert 'name="card_number"' not in checkout and "защищённой странице банка" in checkout
    order = {"method": "card", "email": "reader@example.ru"}
    sent = agent.post(f"{books}/checkout", data=order, follow_redirects=False)
    assert sent.status_code == 303 and sent.headers["location"].endswith("/books/checkout/bank")
    card = {"card_number": NUMBER, "card_expiry": EXPIRY, "card_cvc": CVC}
    paid = agent.post(f"{books}/checkout/bank", data=card)
    assert paid.status_code == 200 and "reader@example.ru" in paid.text
    assert [(p["method"], p["result"]) for p in payments(hub, tid, 1)] == [("card", "success")]
