"""Книги' dense screens through the real UI at both screens (1280×800 and a phone's): the
genre menu's lists, authors and tags, the search's facets with their counts and the applied
filters' chips, the book page's tags, fragment, author subscription, quotes, reviews,
questions and recommendations; every control of them named, none with a name a task's path
looks for."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect
from support.controls import assert_free, names
from support.http import create, params_of, wait_events
from support.pages import open_site

from services.books.catalog import Filters, arrange, load_catalog


def found(query: str, filters: Filters) -> str:
    """The results' count line for `query` narrowed by `filters`, as the catalog makes it."""
    items, _ = load_catalog().search(query)
    return f"Найдено изданий: {len(arrange(items, filters, 'popular'))}"


def test_genre_menu_opens_genres_authors_and_tags(screen_page: Page, hub: httpx.Client) -> None:
    page = screen_page
    tid = open_site(page, hub, "books", path="").trajectory_id
    catalog = load_catalog()
    page.get_by_role("button", name="Жанры").click()
    menu = page.get_by_role("navigation", name="Жанры")
    assert_free(names(menu))
    genre = menu.get_by_role("region", name="Детектив")
    genre.get_by_role("heading", name="Детектив").get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Жанр: Детектив")
    detective = [i for i in catalog.all() if i.genre == "Детектив"]
    expect(page.get_by_test_id("found")).to_have_text(f"Найдено изданий: {len(detective)}")
    page.get_by_role("button", name="Жанры").click()
    (author,) = catalog.genre_authors("Детектив", 1)
    genre.get_by_role("link", name=author.name).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Книги автора: {author.name}")
    page.get_by_role("button", name="Жанры").click()
    (tag,) = catalog.genre_tags("Детектив", 1)
    genre.get_by_role("link", name=tag, exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Книги с тегом «{tag}»")

    events = wait_events(hub, tid, "apply_filter", at_least=3)
    assert params_of(events) == [
        {"filter_type": "genre", "value": "Детектив"},
        {"filter_type": "author", "value": author.name},
        {"filter_type": "tag", "value": tag},
    ]


def test_facets_and_chips(screen_page: Page, hub: httpx.Client) -> None:
    """The facets below «Применить» apply at once, each option with its live count; a chip
    takes its filter off, «Сбросить все фильтры» every one and keeps the query; below the
    list, tags, authors, shelves of links and answers."""
    page = screen_page
    tid = open_site(page, hub, "books", path="search?q=маяк").trajectory_id
    form = page.get_by_role("form", name="Фильтры и сортировка")
    expect(form.get_by_role("radio", name="Детектив")).to_have_accessible_name("Детектив 2")
    form.get_by_role("radio", name="Детектив").check()
    expect(page.get_by_test_id("found")).to_have_text(found("маяк", Filters(genre="Детектив")))
    form.get_by_role("radio", name="от 4,5 ★").check()
    expect(page.get_by_test_id("found")).to_have_text(
        found("маяк", Filters(genre="Детектив", rating="4.5"))
    )
    form.get_by_role("radio", name="С 2024 года").check()
    expect(page.get_by_test_id("found")).to_have_text(
        found("маяк", Filters(genre="Детектив", rating="4.5", year="2024"))
    )
    chips = page.get_by_role("navigation", name="Выбранные фильтры")
    assert_free(names(chips))
    chips.get_by_role("link", name="С 2024 года — снять фильтр").click()
    expect(page.get_by_test_id("found")).to_have_text(
        found("маяк", Filters(genre="Детектив", rating="4.5"))
    )
    page.get_by_role("link", name="Сбросить все фильтры").click()
    expect(page.get_by_test_id("found")).to_have_text(found("маяк", Filters()))
    expect(page.get_by_role("heading", level=1)).to_have_text("Результаты по запросу «маяк»")
    assert_free([n for n in names(form) if n != "Применить"])
    for block in ("b-tags-title", "b-authors-title", "b-popular-title", "b-newest-title"):
        assert_free(names(page.locator(f"section[aria-labelledby={block}]")))
    faq = page.get_by_role("region", name="Вопросы о покупке")
    faq.get_by_text("Можно ли подарить книгу?").click()
    expect(faq.get_by_role("link", name="Подарочные карты")).to_be_visible()
    page.get_by_role("region", name="Популярное у читателей").get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"/books/b/b-\d{4}$"))
    page.go_back()
    tag = load_catalog().tag_list()[0]
    page.get_by_role("region", name="Часто ищут").get_by_role("link", name=tag).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Книги с тегом «{tag}»")

    events = wait_events(hub, tid, "apply_filter", at_least=4)
    assert params_of(events) == [
        {"filter_type": "genre", "value": "Детектив"},
        {"filter_type": "rating", "value": "4.5"},
        {"filter_type": "year", "value": 2024},
        {"filter_type": "tag", "value": tag},
    ]


def test_book_page_tags_fragment_reviews_and_recommendations(
    screen_page: Page, hub: httpx.Client
) -> None:
    """A tag opens its books; the fragment opens in place; the author's subscription and
    a review's «Полезно» are toggles of the page; the reviews reorder by links and write
    nothing; a question opens its answer; a recommendation opens its book."""
    page = screen_page
    tid = open_site(page, hub, "books", path="b/b-0022").trajectory_id
    for block in (".b-tags", ".b-more", ".b-fragment", ".kit-rv", ".kit-qa", ".kit-shelf"):
        assert_free(names(page.locator(block)))
    page.get_by_role("group").filter(has_text="Читать фрагмент").locator("summary").click()
    expect(page.locator(".b-fragment-text p").first).to_be_visible()
    subscribe = page.get_by_role("button", name="Подписаться на автора")
    subscribe.click()
    expect(page.get_by_role("button", name="Вы подписаны на автора")).to_have_attribute(
        "aria-pressed", "true"
    )
    reviews = page.get_by_role("region", name=re.compile("^Отзывы читателей"))
    reviews.get_by_role("link", name="Сначала новые").click()
    expect(page).to_have_url(re.compile(r"\?reviews=new#reviews$"))
    useful = reviews.get_by_role("button", name=re.compile("^Отзыв полезен: ")).first
    useful.click()
    expect(useful).to_have_attribute("aria-pressed", "true")
    questions = page.get_by_role("region", name=re.compile("^Вопросы о книге"))
    questions.locator("summary").first.click()
    expect(questions.locator("details p").first).to_be_visible()
    page.get_by_role("region", name="Вам может понравиться").get_by_role("link").first.click()
    expect(page).to_have_url(re.compile(r"/books/b/b-\d{4}$"))
    page.go_back()
    page.get_by_role("navigation", name="Теги книги").get_by_role(
        "link", name="маленький город"
    ).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Книги с тегом «маленький город»")

    events = wait_events(hub, tid, "apply_filter")
    assert params_of(events) == [{"filter_type": "tag", "value": "маленький город"}]
    screens = params_of(wait_events(hub, tid), "state_changed")
    items = [s["item_id"] for s in screens if "item_id" in s]
    assert items[:2] == ["b-0022", "b-0022"] and items[2] != "b-0022"
    assert not params_of(wait_events(hub, tid), "apply_sort")


def test_unknown_filters_and_review_orders_are_refused(
    agent: httpx.Client, hub: httpx.Client
) -> None:
    base = f"/t/{create(hub).trajectory_id}/books"
    for path, field in [
        ("/search?genre=Поэзия", "genre"),
        ("/search?year=1999", "year"),
        ("/search?rating=3", "rating"),
        ("/search?tag=нет-такого", "tag"),
        ("/b/b-0022?reviews=worst", "reviews"),
    ]:
        answer = agent.get(base + path)
        assert answer.status_code == 422 and field in answer.text, path
    assert agent.get(base + "/search?tag=экранизация").status_code == 200
