"""Маркет through the real UI in Chromium: every screen writes its documented events."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect
from support.http import create, events_url, params_of, wait_events
from support.pages import open_site


def test_browse_filter_sort_cart_and_favourites(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "shop").trajectory_id
    page.get_by_role("navigation", name="Каталог").get_by_role("link", name="Зоотовары").click()
    filters = page.get_by_role("form", name="Фильтры и сортировка")
    filters.get_by_role("checkbox", name="Бодрый лось").check()
    filters.get_by_label("Цена до").fill("2000")
    filters.get_by_role("button", name="Применить").click()
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 2")
    filters.get_by_label("Сортировка", exact=True).select_option("price_desc")
    expect(page.locator("article.m-card").first).to_have_attribute("data-item-id", "m-013")
    card = page.locator("article.m-card[data-item-id='m-018']")
    card.get_by_role("button", name="Добавить в избранное").click()
    expect(card.get_by_role("button", name="Убрать из избранного")).to_have_attribute(
        "aria-pressed", "true"
    )
    card.get_by_role("button", name="В корзину").click()
    card.get_by_role("button", name="Добавить ещё одну").click()
    expect(card.locator(".m-qty")).to_have_attribute("data-amount", "2")
    card.get_by_role("link").first.click()
    expect(page.get_by_role("heading", name="Поводок-рулетка «Бодрый лось», 5 м")).to_be_visible()
    page.locator("a.m-fav-link").click()
    expect(page.locator("article.m-card")).to_have_count(1)
    page.locator("a.m-cart-link").click()
    expect(page.get_by_test_id("cart-total")).to_have_text("1780 ₽")
    page.get_by_label("Количество: Поводок-рулетка «Бодрый лось», 5 м").fill("1")
    page.get_by_role("button", name="Обновить").click()
    expect(page.get_by_test_id("cart-total")).to_have_text("890 ₽")

    events = wait_events(hub, tid)
    assert params_of(events, "state_changed") == [
        {"new_state": "bench_hub_main"},
        {"new_state": "bench_catalog_main"},
        {"new_state": "bench_catalog_category", "category": "pets"},
        {"new_state": "bench_catalog_category", "category": "pets"},
        {"new_state": "bench_catalog_category", "category": "pets"},
        {"new_state": "bench_catalog_item", "item_id": "m-018"},
        {"new_state": "bench_catalog_favorites"},
        {"new_state": "bench_catalog_basket"},
        {"new_state": "bench_catalog_basket"},
    ]
    assert params_of(events, "apply_filter") == [
        {"filter_type": "brand", "value": "Бодрый лось"},
        {"filter_type": "price_max", "value": 2000},
    ]
    assert params_of(events, "apply_sort") == [{"sort": "price_desc"}]
    title = "Поводок-рулетка «Бодрый лось», 5 м"
    assert params_of(events, "add_favorites") == [{"item_id": "m-018", "title": title}]
    basket = [(e["type"], e["params"]) for e in events if e["type"].startswith("basket")]
    line = {"item_id": "m-018", "title": title, "price": 890}
    assert basket == [
        ("basket_add", {**line, "amount": 1}),
        ("basket_add", {**line, "amount": 2}),
        ("basket_remove", {**line, "amount": 1}),
    ]
    assert all(e["source"] == "server" and e["site"] == "shop" for e in events[1:])


def test_search_carousel_login_and_checkout(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "shop").trajectory_id
    carousel = page.get_by_role("region", name="Скидки недели")
    first = carousel.locator(".m-slide:not([hidden]) h3").inner_text()
    carousel.get_by_role("button", name="Следующий слайд").click()
    expect(carousel.locator(".m-slide:not([hidden]) h3")).not_to_have_text(first)
    page.get_by_role("button", name="Войти").click()
    dialog = page.get_by_role("dialog", name="Вход в Маркет")
    dialog.get_by_label("Телефон").fill("+7 912 345-67-89")
    dialog.get_by_label("Пароль").fill("секрет")
    dialog.get_by_role("button", name="Войти").click()
    expect(page.get_by_test_id("user")).to_have_text("+7 912 345-67-89")
    box = page.get_by_role("combobox", name="Поиск по Маркету")
    box.fill("кофе 250")
    box.press("Enter")
    card = page.locator("article.m-card[data-item-id='m-035']")
    card.get_by_role("button", name="В корзину").click()
    expect(page.get_by_test_id("cart-count")).to_have_text("1")
    page.locator("a.m-cart-link").click()
    page.get_by_role("link", name="Оформить заказ").click()
    page.get_by_label("Адрес доставки").fill("Тихая улица, 7, кв. 3")
    page.get_by_label("Система быстрых платежей").check()
    page.get_by_label("Банковская карта").check()
    page.get_by_label("Номер карты").fill("4111 1111 1111 1111")
    page.get_by_label("Срок действия").fill("12/30")
    page.get_by_label("CVC").fill("123")
    page.get_by_label("Владелец карты").fill("IVAN PETROV")
    page.get_by_role("button", name="Оплатить 489 ₽").click()
    expect(page.get_by_role("heading", name="Спасибо, заказ оформлен")).to_be_visible()

    wait_events(hub, tid, "select_pay_method", 2)  # the last events the page wrote
    events = wait_events(hub, tid)
    assert params_of(events, "dialog_opened") == [{"dialog": "login"}]
    assert params_of(events, "submit_search") == [{"value": "кофе 250", "widget": "standard"}]
    assert params_of(events, "select_pay_method") == [{"method": "sbp"}, {"method": "card"}]
    assert params_of(events, "submit_payment") == [
        {"method": "card", "result": "success", "amount": 489, "item_ids": ["m-035"]}
    ]
    states = [p["new_state"] for p in params_of(events, "state_changed")]
    assert states[-3:] == ["bench_catalog_search", "bench_catalog_basket", "bench_catalog_checkout"]
    sources = {e["type"]: e["source"] for e in events}
    assert sources["dialog_opened"] == "page"
    assert sources["select_pay_method"] == sources["submit_payment"] == "server"
    assert sources["submit_search"] == "server"


def test_payment_form_refuses_bad_card(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    base = f"/t/{tid}/shop"
    empty = agent.post(f"{base}/checkout", data={"method": "card", "address": "Тихая, 7"})
    assert empty.status_code == 409 and "корзина пуста" in empty.text
    agent.post(f"{base}/cart/m-039", data={"op": "add"})
    card = {"method": "card", "address": "Тихая, 7", "card_expiry": "12/30", "card_cvc": "123"}
    bad = agent.post(f"{base}/checkout", data={**card, "card_number": "1234"})
    assert bad.status_code == 422 and 'data-field="card_number"' in bad.text
    declined = agent.post(
        f"{base}/checkout",
        data={**card, "card_number": "4000 0000 0000 0002", "card_holder": "A B"},
    )
    assert declined.status_code == 402 and "отклонил" in declined.text
    method = agent.post(f"{base}/checkout", data={"method": "bitcoin", "address": "Тихая, 7"})
    assert method.status_code == 422 and 'data-field="method"' in method.text
    payments = params_of(wait_events(hub, tid), "submit_payment")
    assert payments == [
        {"method": "card", "result": "declined", "amount": 119, "item_ids": ["m-039"]}
    ]
    refused = agent.post(f"{base}/checkout/method", data={"method": "gold"})
    assert refused.status_code == 422 and "method" in refused.text
    # Only the server writes the method; a page cannot.
    events = events_url(agent, f"{base}/checkout")
    for forged_type, params in (("select_pay_method", {"method": "card"}), ("basket_add", {})):
        forged = agent.post(events, json={"type": forged_type, "params": params})
        assert forged.status_code == 422
    assert params_of(wait_events(hub, tid), "select_pay_method") == []


def test_bad_input_never_breaks(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    base = f"/t/{tid}/shop"
    for query in ("", " ", "<script>alert(1)</script>", "' OR 1=1; --", "ы" * 5000, "%00"):
        answer = agent.get(f"{base}/search", params={"q": query})
        assert answer.status_code == 200, query
        assert "<script>alert(1)</script>" not in answer.text
    values = [p["value"] for p in params_of(wait_events(hub, tid), "submit_search")]
    assert values[:2] == ["", ""] and len(values[4]) == 200
    assert agent.get(f"{base}/p/m-999").status_code == 404
    assert agent.get(f"{base}/c/weapons").status_code == 404
    assert agent.post(f"{base}/cart/m-999", data={"op": "add"}).status_code == 404
    assert agent.post(f"{base}/favorites/m-999", data={"op": "add"}).status_code == 404
    assert agent.get("/_site/shop/img/m-999.svg").status_code == 404
    assert agent.get(f"{base}/c/pets", params={"price_max": "дёшево"}).status_code == 422
    assert agent.get(f"{base}/c/pets", params={"sort": "random"}).status_code == 422
    json_accept = {"Accept": "application/json"}
    below = agent.post(
        f"{base}/cart/m-001", data={"op": "set", "amount": "-2"}, headers=json_accept
    )
    assert below.status_code == 422 and below.json()["field"] == "amount"
    above = agent.post(f"{base}/cart/m-001", data={"op": "set", "amount": "5"}, headers=json_accept)
    assert above.status_code == 409 and "в наличии только 4" in above.json()["message"]
    page = agent.post(f"{base}/cart/m-001", data={"op": "set", "amount": "x"})
    assert page.status_code == 422 and "целое число" in page.text
    for _ in range(4):
        agent.post(f"{base}/cart/m-001", data={"op": "inc"}, headers=json_accept)
    again = agent.post(f"{base}/cart/m-001", data={"op": "inc"}, headers=json_accept)
    assert again.status_code == 409
    assert agent.post(f"{base}/login", data={"phone": "12", "password": "abcd"}).status_code == 422
    adds = params_of(wait_events(hub, tid), "basket_add")
    assert [p["amount"] for p in adds] == [1, 2, 3, 4]


def test_cart_selection_pays_the_lines_ticked(page: Page, hub: httpx.Client) -> None:
    """The cart's ticks, ♡, promo code, the checkout's options and the profile's orders:
    the line unticked is not paid and stays in the cart."""
    created = open_site(page, hub, "shop", path="cart")
    base = f"{created.url}shop"
    coffee = "Кофе в зёрнах «Сытая полка» арабика, 250 г"
    pasta = "Макароны спагетти «Ржаной угол», 450 г"
    for item in ("m-035", "m-039"):
        page.request.post(f"{base}/cart/{item}", form={"op": "add"})
    page.reload()
    expect(page.get_by_test_id("cart-total")).to_have_text("608 ₽")
    everything = page.get_by_role("checkbox", name="Отметить все")
    expect(everything).to_be_checked()
    page.get_by_role("checkbox", name=f"Отметить: {pasta}").uncheck()
    expect(everything).not_to_be_checked()
    expect(page.get_by_test_id("cart-total")).to_have_text("489 ₽")
    everything.check()
    expect(page.get_by_test_id("cart-total")).to_have_text("608 ₽")
    page.get_by_role("checkbox", name=f"Отметить: {pasta}").uncheck()
    expect(page.get_by_test_id("cart-total")).to_have_text("489 ₽")
    page.get_by_role("button", name=f"Добавить в избранное: {coffee}").click()
    expect(page.get_by_role("button", name=f"Убрать из избранного: {coffee}")).to_be_visible()
    page.get_by_role("textbox", name="Промокод").fill("ВЕСНА24")
    page.get_by_role("button", name="Активировать код").click()
    expect(page.get_by_role("alert")).to_have_text(re.compile("Такого промокода нет"))
    page.reload()  # the selection is the server's
    expect(page.get_by_role("checkbox", name=f"Отметить: {pasta}")).not_to_be_checked()
    page.get_by_role("link", name="Оформить заказ").click()
    expect(page.get_by_test_id("pay-total")).to_have_text("489 ₽")
    order = page.get_by_role("region", name="Состав заказа")
    expect(order.get_by_role("link")).to_have_count(2)  # the coffee and «Изменить состав…»
    page.get_by_label("Адрес доставки").fill("Тихая улица, 7, кв. 3")
    page.get_by_label("Система быстрых платежей").check()
    expect(page.get_by_role("radio", name="Курьером до двери")).to_be_checked()
    page.get_by_role("radio", name="В пункте выдачи").check()
    page.get_by_role("combobox", name="Пункт выдачи").select_option(index=1)
    page.get_by_role("radio", name="Курьером до двери").check()
    expect(page.get_by_role("radio", name="Завтра")).to_be_checked()
    page.get_by_role("radio", name="Через 2 дня").check()
    page.get_by_role("combobox", name="Интервал").select_option("с 18 до 22")
    page.get_by_role("checkbox", name="Оставить у двери").check()
    page.get_by_role("checkbox", name="Не звонить в домофон").check()
    page.get_by_role("checkbox", name="Положить бумажный чек").check()
    page.get_by_role("textbox", name="Комментарий").fill("Подъезд 2")
    page.get_by_role("button", name="Оплатить 489 ₽").click()
    expect(page.get_by_role("heading", name="Спасибо, заказ оформлен")).to_be_visible()
    expect(page.get_by_role("region", name="Что в заказе")).to_contain_text(coffee)
    page.get_by_role("link", name="Заказы в личном кабинете").click()
    paid = page.get_by_test_id("paid-order")
    expect(paid).to_have_count(1)
    expect(paid).to_contain_text(coffee)
    expect(paid).not_to_contain_text(pasta)
    expect(page.get_by_test_id("cart-count")).to_have_text("1")

    events = wait_events(hub, created.trajectory_id)
    assert params_of(events, "submit_payment") == [
        {"method": "sbp", "result": "success", "amount": 489, "item_ids": ["m-035"]}
    ]
    assert [e["type"] for e in events if e["type"] not in ("state_changed",)] == [
        "basket_add",
        "basket_add",
        "add_favorites",
        "select_pay_method",
        "submit_payment",
    ]
    page.locator("a.m-cart-link").click()
    expect(page.locator("tr[data-item-id]")).to_have_count(1)
    expect(page.get_by_role("checkbox", name=f"Отметить: {pasta}")).to_be_checked()


def test_catalogue_button_opens_the_departments_over_the_page(
    page: Page, hub: httpx.Client
) -> None:
    """«Все разделы» (the marketplace's layout device) opens a non-modal panel of the
    departments over the page (test_details.py clicks their links); Esc closes it; the
    «Каталог» menu the solver reads is the only navigation of that name and gains no link."""
    open_site(page, hub, "shop", path="")
    menu = page.get_by_role("navigation", name="Каталог")
    expect(menu).to_have_count(1)
    links = menu.get_by_role("link").count()
    button = page.get_by_role("button", name="Все разделы")
    panel = page.get_by_role("navigation", name="Отделы Маркета")
    heading = page.get_by_role("heading", name="Популярные категории")
    before = heading.bounding_box()
    expect(panel).to_be_hidden()
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(panel.get_by_role("region")).to_have_count(links)  # a department per menu link
    assert heading.bounding_box() == before  # over the page: nothing moved
    expect(page.get_by_role("navigation", name="Каталог")).to_have_count(1)
    expect(menu.get_by_role("link")).to_have_count(links)
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(button).to_have_attribute("aria-expanded", "false")
    button.click()
    panel.get_by_role("heading", name="Зоотовары").get_by_role("link").click()
    expect(page).to_have_url(re.compile(r"/shop/c/pets$"))
    page.get_by_role("button", name="Все разделы").click()
    page.get_by_role("navigation", name="Отделы Маркета").get_by_role(
        "link", name="Гарантия и сервис"
    ).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Гарантия и сервис")


def test_cart_selection_by_form_and_json(agent: httpx.Client, hub: httpx.Client) -> None:
    """`POST /cart/select`: a plain form is sent back (303), `fetch` gets what the selected
    lines hold; none selected is a 409 at the checkout; `all` selects every line again."""
    tid = create(hub).trajectory_id
    base = f"/t/{tid}/shop"
    for item in ("m-035", "m-039"):
        agent.post(f"{base}/cart/{item}", data={"op": "add"})
    plain = agent.post(f"{base}/cart/select", data={"item_id": "m-039", "next": f"{base}/cart"})
    assert plain.status_code == 303 and plain.headers["location"] == f"{base}/cart"
    json_accept = {"Accept": "application/json"}
    none = agent.post(f"{base}/cart/select", data={}, headers=json_accept)
    assert none.json() == {"selected": [], "count": 0, "total": 0}
    order = {"method": "sbp", "address": "Тихая, 7"}
    refused = agent.post(f"{base}/checkout", data=order)
    assert refused.status_code == 409 and "не выбрано" in refused.text
    every = agent.post(f"{base}/cart/select", data={"all": "1"}, headers=json_accept)
    assert every.json() == {"selected": ["m-035", "m-039"], "count": 2, "total": 608}
    assert agent.post(f"{base}/checkout", data=order).status_code == 200
    payments = params_of(wait_events(hub, tid, "submit_payment"), "submit_payment")
    assert payments == [
        {"method": "sbp", "result": "success", "amount": 608, "item_ids": ["m-035", "m-039"]}
    ]
