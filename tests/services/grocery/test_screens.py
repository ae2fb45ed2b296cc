"""Продукты' screens of site version 3 through the real UI in Chromium: the header's search
with suggestions, the results, a product's page, the checkout (SBP and a card) and the
login, each control reached by its role and name, each screen writing its documented events."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect
from support.http import create, make_task, params_of, wait_events
from support.pages import open_site

COTTAGE = "Творог зернёный «Гусиный брод» 5%"  # g-0129, 149 ₽
BANANAS = "g-0068"  # Бананы «Тёплый берег» мини, 179 ₽


def test_search_suggestions_results_and_a_product_page(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "grocery", make_task([{"event_name": "basket_add"}])).trajectory_id
    field = page.get_by_role("search").get_by_role("combobox", name="Поиск по Продуктам")
    field.fill("творог гусин")
    page.get_by_role("listbox", name="Подсказки").get_by_role("option", name=COTTAGE).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Нашлось по запросу «{COTTAGE}»")
    results = page.get_by_test_id("results")
    results.get_by_role("link", name=COTTAGE).click()

    expect(page.get_by_role("heading", level=1)).to_have_text(COTTAGE)
    photos = page.get_by_role("group", name="Фотографии")
    photos.get_by_role("button", name="Фото 3 из 4").click()
    expect(photos.get_by_role("button", name="Фото 3 из 4")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.get_by_role("img", name=COTTAGE).first).to_have_attribute(
        "src", "/_site/grocery/img/g-0129.svg?view=3"
    )
    expect(page.get_by_role("heading", name="Пищевая ценность на 100 г")).to_be_visible()
    expect(page.get_by_role("definition").first).to_have_text("105 ккал")
    page.get_by_text("Условия хранения").click()
    expect(page.get_by_text("Хранить при +2…+6 °C.")).to_be_visible()
    more = page.get_by_role("region", name="Что ещё пригодится")
    expect(more.locator("article.g-card")).to_have_count(4)
    page.get_by_role("article").first.get_by_role("button", name="В корзину").click()
    expect(page.get_by_test_id("cart-count")).to_have_text("1")
    page.get_by_role("navigation", name="Путь").get_by_role(
        "link", name="Молоко, сыр, яйца"
    ).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Молоко, сыр, яйца")

    wait_events(hub, tid, lambda event: event["params"].get("category") == "dairy")
    events = wait_events(hub, tid)
    assert params_of(events, "submit_search") == [{"value": COTTAGE, "widget": "standard"}]
    screens = params_of(events, "state_changed")[2:]
    assert screens == [
        {"new_state": "bench_grocery_search"},
        {"new_state": "bench_grocery_item", "item_id": "g-0129"},
        {"new_state": "bench_grocery_category", "category": "dairy"},
    ]
    assert params_of(events, "basket_add") == [
        {"item_id": "g-0129", "amount": 1, "title": COTTAGE, "price": 149}
    ]


def test_a_search_with_no_match_says_so(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    answer = agent.get(f"/t/{tid}/grocery/search", params={"q": "квазар"})
    assert answer.status_code == 200 and "Ничего не нашлось" in answer.text
    suggested = agent.get(f"/t/{tid}/grocery/suggest", params={"q": "бана"}).json()
    assert {"text": "Бананы «Тёплый берег» мини", "hint": "179 ₽"} in suggested["suggestions"]


def test_checkout_by_sbp_left_at_the_door(page: Page, hub: httpx.Client) -> None:
    created = open_site(page, hub, "grocery", path=f"p/{BANANAS}")
    page.get_by_role("article").first.get_by_role("button", name="В корзину").click()
    expect(page.get_by_test_id("cart-count")).to_have_text("1")
    page.get_by_role("link", name="Корзина").click()
    expect(page.get_by_role("checkbox", name="Отметить все")).to_be_checked()
    line = page.get_by_role("article", name="Бананы «Тёплый берег» мини")
    expect(
        line.get_by_role("checkbox", name="Отметить: Бананы «Тёплый берег» мини")
    ).to_be_checked()
    page.get_by_role("textbox", name="Промокод").fill("ЛЕТО")
    page.get_by_role("button", name="Активировать код").click()
    expect(page.get_by_text("Такого промокода нет")).to_be_visible()
    forgot = page.get_by_role("region", name="Не забыли?")
    expect(forgot.get_by_role("button", name="В корзину").first).to_be_visible()
    page.get_by_role("link", name="Оформить заказ").click()
    expect(page.get_by_test_id("pay-total")).to_have_text("179 ₽")
    expect(page.get_by_role("radio", name="Как можно скорее, 45–60 минут")).to_be_checked()

    form = page.locator("form.g-checkout")
    form.get_by_role("radio", name="СБП").check()
    form.get_by_role("button", name="Оплатить 179 ₽").click()
    expect(page.get_by_role("alert")).to_have_attribute("data-field", "address")

    form = page.locator("form.g-checkout")
    form.get_by_role("textbox", name="Адрес доставки").fill("ул. Липовая, 7")
    form.get_by_role("textbox", name="Квартира или офис").fill("12")
    form.get_by_role("textbox", name="Подъезд").fill("2")
    form.get_by_role("textbox", name="Этаж").fill("5")
    form.get_by_role("textbox", name="Домофон").fill("12К")
    form.get_by_role("checkbox", name="Оставить у двери").check()
    form.get_by_role("checkbox", name="Не звонить в домофон").check()
    form.get_by_role("textbox", name="Комментарий курьеру").fill("Пакеты не нужны")
    form.get_by_role("radio", name="Сегодня, 21:00–22:00").check()
    form.get_by_role("radio", name="СБП").check()
    form.get_by_role("textbox", name="Промокод").fill("ЛЕТО")
    form.get_by_role("button", name="Оплатить 179 ₽").click()
    expect(page.get_by_role("alert")).to_have_attribute("data-field", "promo")

    form = page.locator("form.g-checkout")
    form.get_by_role("textbox", name="Промокод").fill("")
    form.get_by_role("radio", name="СБП").check()
    form.get_by_role("button", name="Оплатить 179 ₽").click()
    status = page.get_by_role("status")
    expect(status).to_contain_text("на 179 ₽ (СБП)")
    expect(status).to_contain_text("сегодня, 21:00–22:00, оставим у двери")
    expect(page.get_by_test_id("cart-count")).to_have_text("0")

    wait_events(hub, created.trajectory_id, "submit_payment")
    events = wait_events(hub, created.trajectory_id)
    assert params_of(events, "submit_payment") == [
        {"method": "sbp", "result": "success", "amount": 179, "item_ids": [BANANAS]}
    ]
    assert {"method": "sbp"} in params_of(events, "select_pay_method")
    assert {"new_state": "bench_grocery_checkout"} in params_of(events, "state_changed")


def test_a_card_is_checked_and_a_declined_one_pays_nothing(
    agent: httpx.Client, hub: httpx.Client
) -> None:
    tid = create(hub).trajectory_id
    base = f"/t/{tid}/grocery"
    agent.post(f"{base}/cart/{BANANAS}", data={"op": "add"})
    card = {
        "address": "ул. Липовая, 7",
        "method": "card",
        "card_number": "4000 0000 0000 0002",
        "card_expiry": "12/39",
        "card_cvc": "123",
        "card_holder": "IVAN PETROV",
    }
    refused = agent.post(f"{base}/checkout", data={**card, "card_expiry": "13/39"})
    assert refused.status_code == 422 and 'data-field="card_expiry"' in refused.text
    assert agent.post(f"{base}/checkout", data={**card, "slot": "noon"}).status_code == 422
    declined = agent.post(f"{base}/checkout", data=card)
    assert declined.status_code == 402 and "банк отклонил" in declined.text
    paid = agent.post(f"{base}/checkout", data={**card, "card_number": "4111 1111 1111 1111"})
    assert paid.status_code == 200 and "Спасибо, заказ оформлен" in paid.text
    events = wait_events(hub, tid, "submit_payment")
    results = [e["params"]["result"] for e in events if e["type"] == "submit_payment"]
    assert results == ["declined", "success"]


def test_login_from_the_header_returns_to_the_page(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "grocery", path="c/bakery").trajectory_id
    page.get_by_role("link", name="Войти").click()
    expect(page.get_by_role("heading", name="Вход в Продукты")).to_be_visible()
    form = page.locator("form.g-login-form")
    form.get_by_role("textbox", name="Телефон").fill("912 345")
    form.get_by_label("Пароль").fill("клевер42")
    form.get_by_role("button", name="Войти").click()
    expect(page.get_by_role("alert")).to_have_attribute("data-field", "phone")

    form = page.locator("form.g-login-form")
    form.get_by_role("textbox", name="Телефон").fill("8 (912) 345-67-89")
    form.get_by_label("Пароль").fill("клевер42")
    expect(form.get_by_role("checkbox", name="Запомнить меня на этом устройстве")).to_be_checked()
    form.get_by_role("button", name="Войти").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Хлеб и выпечка")
    expect(page.get_by_test_id("user")).to_have_text("+7 912 345-67-89")

    wait_events(hub, tid, "bench_grocery_login")
    events = wait_events(hub, tid)
    assert params_of(events, "bench_grocery_login") == [{"phone": "+7 912 345-67-89"}]
    assert {"new_state": "bench_grocery_login"} in params_of(events, "state_changed")
