"""Книги through the real UI in Chromium: every screen writes its documented events."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect
from support.http import create, make_task, params_of, wait_events
from support.pages import open_site


def test_search_filter_book_cart_and_checkout(page: Page, hub: httpx.Client) -> None:
    task = make_task([{"event_name": "basket_add"}], domain="books")
    tid = open_site(page, hub, "books", task).trajectory_id
    expect(page.get_by_role("heading", name="Новинки")).to_be_visible()
    field = page.get_by_role("combobox", name="Поиск книг и авторов")
    field.press_sequentially("Тетерин", delay=20)
    page.get_by_role("option", name="Зоя Тетерина автор").click()
    filters = page.get_by_role("form", name="Фильтры и сортировка")
    filters.get_by_label("Аудиокнига").check()
    filters.get_by_role("button", name="Применить").click()
    expect(page.get_by_test_id("found")).to_have_text("Найдено изданий: 3")
    filters.get_by_label("Сортировка", exact=True).select_option("price_desc")
    card = page.locator("article.b-card").first
    expect(card).to_have_attribute("data-item-id", "b-0173")
    card.get_by_role("button", name="Добавить в избранное").click()
    expect(card.get_by_role("button", name="Убрать из избранного")).to_be_visible()
    card.locator("a.b-card-link").click()
    expect(page.get_by_role("heading", name="Тайна пустого вокзала")).to_be_visible()
    page.get_by_role("button", name="В корзину").click()
    page.get_by_role("button", name="Добавить ещё один").click()
    expect(page.get_by_test_id("cart-count")).to_have_text("2")
    page.locator("a.b-fav-link").click()
    page.locator("a.b-cart-link").click()
    expect(page.get_by_test_id("cart-total")).to_have_text("1458 ₽")
    page.get_by_role("link", name="Оформить заказ").click()
    page.get_by_label("Электронная почта").fill("reader@example.org")
    page.get_by_label("Система быстрых платежей").check()
    page.get_by_role("button", name="Оплатить 1458 ₽").click()
    expect(page.get_by_role("heading", name="Спасибо за покупку")).to_be_visible()

    wait_events(hub, tid, "select_pay_method")  # the last event the page wrote
    events = wait_events(hub, tid)
    assert [p["new_state"] for p in params_of(events, "state_changed")] == [
        "bench_hub_main",
        "bench_books_main",
        "bench_books_search",
        "bench_books_search",
        "bench_books_search",
        "bench_books_item",
        "bench_books_favorites",
        "bench_books_basket",
        "bench_books_checkout",
    ]
    assert params_of(events, "state_changed")[5]["item_id"] == "b-0173"
    assert params_of(events, "submit_search") == [{"value": "Зоя Тетерина", "widget": "standard"}]
    assert params_of(events, "apply_filter") == [{"filter_type": "format", "value": "audio"}]
    assert params_of(events, "apply_sort") == [{"sort": "price_desc"}]
    title = "Тайна пустого вокзала"
    assert params_of(events, "add_favorites") == [{"item_id": "b-0173", "title": title}]
    assert params_of(events, "basket_add") == [
        {"item_id": "b-0173", "title": title, "price": 729, "amount": n} for n in (1, 2)
    ]
    assert params_of(events, "select_pay_method") == [{"method": "sbp"}]
    assert params_of(events, "submit_payment") == [
        {"method": "sbp", "result": "success", "amount": 1458, "item_ids": ["b-0173"]}
    ]


def test_author_filter_link_and_bad_input(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub, make_task([{"event_name": "basket_add"}], domain="books")).trajectory_id
    base = f"/t/{tid}/books"
    listing = agent.get(f"{base}/search", params={"author": "a-01"})
    assert listing.status_code == 200 and "Книги автора: Вера Руднева" in listing.text
    assert params_of(wait_events(hub, tid), "apply_filter") == [
        {"filter_type": "author", "value": "Вера Руднева"}
    ]
    for query in ("", "<b>x</b>", "1; DELETE FROM items", "я" * 3000):
        assert agent.get(f"{base}/search", params={"q": query}).status_code == 200
    assert agent.get(f"{base}/search", params={"format": "vinyl"}).status_code == 422
    assert agent.get(f"{base}/search", params={"author": "a-99"}).status_code == 422
    assert agent.get(f"{base}/b/b-9999").status_code == 404
    assert agent.post(f"{base}/cart/b-9999", data={"op": "add"}).status_code == 404
    assert agent.get("/_site/books/cover/b-9999.svg").status_code == 404
    cover = agent.get("/_site/books/cover/b-0001.svg")
    assert cover.status_code == 200 and cover.headers["content-type"].startswith("image/svg")
    accept = {"Accept": "application/json"}
    below = agent.post(f"{base}/cart/b-0001", data={"op": "set", "amount": "-1"}, headers=accept)
    assert below.status_code == 422 and below.json()["field"] == "amount"
    above = agent.post(f"{base}/cart/b-0001", data={"op": "set", "amount": "11"}, headers=accept)
    assert above.status_code == 409
    bad_mail = agent.post(f"{base}/checkout", data={"method": "sbp", "email": "x"})
    assert bad_mail.status_code == 409  # the cart is empty
    assert params_of(wait_events(hub, tid), "basket_add") == []


def test_cart_selection_pays_the_books_ticked(page: Page, hub: httpx.Client) -> None:
    """The cart's ticks, ♡, promo code and the checkout's options: the edition unticked is
    not paid and stays in the cart."""
    created = open_site(page, hub, "books", path="cart")
    base = f"{created.url}books"
    for item in ("b-0001", "b-0002"):
        page.request.post(f"{base}/cart/{item}", form={"op": "add"})
    page.reload()
    expect(page.get_by_test_id("cart-total")).to_have_text("758 ₽")
    everything = page.get_by_role("checkbox", name="Отметить все")
    page.get_by_role("checkbox", name="Отметить: Ночное зеркало, аудиокнига").uncheck()
    expect(everything).not_to_be_checked()
    expect(page.get_by_test_id("cart-total")).to_have_text("399 ₽")
    everything.check()
    expect(page.get_by_test_id("cart-total")).to_have_text("758 ₽")
    everything.uncheck()
    expect(page.get_by_test_id("cart-total")).to_have_text("0 ₽")
    page.get_by_role("checkbox", name="Отметить: Зимний перевал, электронная книга").check()
    expect(everything).not_to_be_checked()
    expect(page.get_by_test_id("cart-total")).to_have_text("399 ₽")
    page.get_by_role("button", name="Добавить в избранное: Зимний перевал, электронная").click()
    expect(page.get_by_role("button", name="Убрать из избранного: Зимний перевал")).to_be_visible()
    page.get_by_role("textbox", name="Промокод").fill("КНИГИ")
    page.get_by_role("button", name="Активировать код").click()
    expect(page.get_by_role("alert")).to_contain_text("Такого промокода нет")
    page.get_by_role("link", name="Оформить заказ").click()
    expect(page.get_by_test_id("pay-total")).to_have_text("399 ₽")
    for link, slug in (
        ("Как устроена покупка", "how-to-buy"),
        ("Если книга не открылась", "returns"),
        ("Оплата подарочной картой", "gift-cards"),
    ):
        expect(page.get_by_role("link", name=link)).to_have_attribute(
            "href", re.compile(f"/info/{slug}$")
        )
    page.get_by_label("Электронная почта").fill("reader@example.org")
    page.get_by_label("Банковская карта").check()
    page.get_by_label("Номер карты").fill("4111 1111 1111 1111")
    expect(page.get_by_role("radio", name="Для себя")).to_be_checked()
    page.get_by_role("radio", name="В подарок").check()
    page.get_by_role("textbox", name="Почта того, кому дарите").fill("friend@example.org")
    page.get_by_role("textbox", name="Пожелание к подарку").fill("С днём рождения!")
    expect(page.get_by_role("radio", name="Сразу")).to_be_checked()
    page.get_by_role("radio", name="Завтра утром").check()
    page.get_by_role("radio", name="Завтра вечером").check()
    page.get_by_role("checkbox", name="Копию чека на ту же почту").check()
    page.get_by_role("checkbox", name="Сообщать о новых книгах этих авторов").check()
    page.get_by_role("button", name="Оплатить 399 ₽").click()
    expect(page.get_by_role("heading", name="Спасибо за покупку")).to_be_visible()
    bought = page.get_by_role("region", name="Что куплено")
    expect(bought).to_contain_text("Зимний перевал")
    expect(bought).to_contain_text("friend@example.org")
    expect(page.get_by_test_id("cart-count")).to_have_text("1")

    events = wait_events(hub, created.trajectory_id, "submit_payment")
    assert params_of(events, "submit_payment") == [
        {"method": "card", "result": "success", "amount": 399, "item_ids": ["b-0002"]}
    ]
    page.locator("a.b-cart-link").click()
    expect(page.locator("tr[data-item-id]")).to_have_attribute("data-item-id", "b-0001")


def test_genre_menu_opens_a_series_search(page: Page, hub: httpx.Client) -> None:
    """«Жанры» (the bookstore's layout device) opens a non-modal panel of the genres, each
    with its most read series; a series opens the search for it."""
    tid = open_site(page, hub, "books", path="").trajectory_id
    button = page.get_by_role("button", name="Жанры")
    menu = page.get_by_role("navigation", name="Жанры")
    expect(menu).to_be_hidden()
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(menu.get_by_role("region")).to_have_count(6)
    genre = menu.get_by_role("region", name="Детектив")
    expect(genre.get_by_role("link")).to_have_count(10)  # the genre, 3 series, authors, tags
    genre.get_by_role("link", name="Тайны Ночного вокзала").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Результаты по запросу «Тайны Ночного вокзала»"
    )
    (search,) = params_of(wait_events(hub, tid, "submit_search"))
    assert search["value"] == "Тайны Ночного вокзала"
    expect(page.locator("article.b-card").first).to_be_visible()
