"""Маркет's dense screens through the real UI at both screens (1280×800 and a phone's):
the catalogue menu's departments, a list's facets with their counts, the applied filters'
chips and the cards' badges, the product page's reviews, questions, seller and
recommendations; every control of them named, none with a name a task's path looks for."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect
from support.controls import assert_free, names
from support.http import create, params_of, wait_events
from support.pages import open_site

from services.market.catalog import load_catalog


def test_departments_menu_links_kinds_makers_and_searches(
    screen_page: Page, hub: httpx.Client
) -> None:
    page = screen_page
    tid = open_site(page, hub, "shop", path="").trajectory_id
    page.get_by_role("button", name="Все разделы").click()
    panel = page.get_by_role("navigation", name="Отделы Маркета")
    expect(panel.get_by_role("region")).to_have_count(5)
    pets = panel.get_by_role("region", name="Зоотовары")
    assert_free([n for n in names(panel) if n != "Продукты"])  # a department's own name
    pets.get_by_role("link", name="Лежанка для собак").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Результаты по запросу «Лежанка для собак»"
    )
    page.get_by_role("button", name="Все разделы").click()
    panel.get_by_role("region", name="Зоотовары").get_by_role(
        "link", name="Кото-Граф", exact=True
    ).click()
    expect(page).to_have_url(re.compile(r"/shop/c/pets\?brand="))
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 2")
    events = wait_events(hub, tid, "apply_filter")
    assert params_of(events) == [{"filter_type": "brand", "value": "Кото-Граф"}]
    assert params_of(wait_events(hub, tid, "submit_search"))[0]["value"] == "Лежанка для собак"


def test_facets_chips_and_badges(screen_page: Page, hub: httpx.Client) -> None:
    """The facets below «Применить» apply at once, each option with its live count; the
    chips take a filter off, «Сбросить все фильтры» every one; a discounted card says so;
    below the list, searches, makers, shelves of links and answers."""
    page = screen_page
    tid = open_site(page, hub, "shop", path="c/electronics").trajectory_id
    form = page.get_by_role("form", name="Фильтры и сортировка")
    seller = form.get_by_role("checkbox", name="Северный склад")
    expect(seller).to_have_accessible_name("Северный склад 3")
    seller.check()
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 3")
    form.get_by_role("radio", name="Сегодня или завтра").check()
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 2")
    expect(form.get_by_role("checkbox", name="Со скидкой")).to_have_accessible_name("Со скидкой 1")
    form.get_by_role("checkbox", name="Со скидкой").check()
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 1")
    card = page.locator("article.m-card")
    discount = load_catalog().product("m-002").discount  # type: ignore[union-attr]
    expect(card.locator(".kit-badges")).to_contain_text(f"Скидка −{discount} %")
    chips = page.get_by_role("navigation", name="Выбранные фильтры")
    assert_free(names(chips))
    chips.get_by_role("link", name="Со скидкой — снять фильтр").click()
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 2")
    expect(form.get_by_role("checkbox", name="Северный склад")).to_be_checked()
    page.get_by_role("link", name="Сбросить все фильтры").click()
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 10")
    expect(page.get_by_role("navigation", name="Выбранные фильтры")).to_have_count(0)
    assert_free([n for n in names(form) if n != "Применить"])
    for block in ("m-searches-title", "m-makers-title", "m-popular-title", "m-deals-title"):
        assert_free(names(page.locator(f"section[aria-labelledby={block}]")))
    faq = page.get_by_role("region", name="Вопросы о покупке")
    faq.get_by_text("Когда привезут заказ?").click()
    expect(faq.get_by_role("link", name="Доставка и пункты выдачи")).to_be_visible()
    popular = page.get_by_role("region", name="Популярное у покупателей").get_by_role("link")
    expect(popular).to_have_count(16)
    popular.first.click()
    expect(page).to_have_url(re.compile(r"/shop/p/m-\d{3}$"))
    page.go_back()
    page.get_by_role("region", name="Часто ищут").get_by_role("link").first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Результаты по запросу")
    makers = page.get_by_role("region", name="Производители на Маркете")
    makers.get_by_role("link", name="Стремнина").click()
    expect(page).to_have_url(re.compile(r"/shop/c/sport\?brand="))

    events = wait_events(hub, tid, "apply_filter", at_least=4)
    assert params_of(events) == [
        {"filter_type": "seller", "value": "Северный склад"},
        {"filter_type": "delivery", "value": 1},
        {"filter_type": "discount", "value": True},
        {"filter_type": "brand", "value": "Стремнина"},
    ]
    assert not params_of(wait_events(hub, tid), "apply_sort")


def test_product_page_reviews_questions_seller_and_recommendations(
    screen_page: Page, hub: httpx.Client
) -> None:
    """The reviews reorder by links and write nothing; «Полезно» and the seller's
    subscription are toggles of the page; a question opens its answer; the seller's link
    filters the department by it; a recommendation opens its product."""
    page = screen_page
    tid = open_site(page, hub, "shop", path="p/m-001").trajectory_id
    for block in (".m-facts", ".m-all-specs", ".kit-rv", ".kit-qa", ".kit-shelf"):
        assert_free(names(page.locator(block)))
    reviews = page.get_by_role("region", name=re.compile("^Отзывы о товаре"))
    expect(reviews.get_by_role("table", name="Оценки по звёздам")).to_be_visible()
    reviews.get_by_role("link", name="Сначала с низкой оценкой").click()
    expect(page).to_have_url(re.compile(r"\?reviews=low#reviews$"))
    stars = reviews.locator(".kit-rv-stars").evaluate_all(
        "els => els.map(el => el.getAttribute('aria-label'))"
    )
    assert stars == sorted(stars)
    useful = reviews.get_by_role("button", name=re.compile("^Отзыв полезен: ")).first
    useful.click()
    expect(useful).to_have_attribute("aria-pressed", "true")
    questions = page.get_by_role("region", name=re.compile("^Вопросы о товаре"))
    question = questions.locator("summary").first
    question.click()
    expect(questions.locator("details").first.locator("p")).to_be_visible()
    subscribe = page.get_by_role("button", name="Подписаться на продавца")
    subscribe.click()
    expect(page.get_by_role("button", name="Вы подписаны на продавца")).to_have_attribute(
        "aria-pressed", "true"
    )
    page.get_by_role("region", name="С этим товаром покупают").get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"/shop/p/m-\d{3}$"))
    page.go_back()
    page.get_by_role("link", name=re.compile("^Все товары продавца")).click()
    expect(page.get_by_test_id("found")).to_have_text("Найдено товаров: 5")

    events = wait_events(hub, tid, "apply_filter")
    assert params_of(events) == [{"filter_type": "seller", "value": "Лавка на Садовой"}]
    items = [
        s["item_id"] for s in params_of(wait_events(hub, tid), "state_changed") if "item_id" in s
    ]
    assert items[:2] == ["m-001", "m-001"] and items[2] != "m-001"
    assert not params_of(wait_events(hub, tid), "apply_sort")


def test_unknown_filters_and_review_orders_are_refused(
    agent: httpx.Client, hub: httpx.Client
) -> None:
    base = f"/t/{create(hub).trajectory_id}/shop"
    for path, field in [
        ("/c/pets?seller=s-9", "seller"),
        ("/c/pets?delivery=2", "delivery"),
        ("/c/pets?discount=yes", "discount"),
        ("/p/m-001?reviews=worst", "reviews"),
    ]:
        answer = agent.get(base + path)
        assert answer.status_code == 422 and field in answer.text, path
    assert agent.get(base + "/p/m-001?reviews=low").status_code == 200
