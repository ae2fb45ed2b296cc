"""Продукты through the real UI in Chromium: every screen writes its documented events."""

from __future__ import annotations

import httpx
from playwright.sync_api import Page, expect
from support.http import create, make_task, wait_events
from support.pages import open_site


def test_cart_through_the_ui(page: Page, hub: httpx.Client) -> None:
    created = open_site(page, hub, "grocery", make_task([{"event_name": "basket_add"}]))
    tid = created.trajectory_id
    expect(page.get_by_role("heading", name="Хиты недели")).to_be_visible()
    page.get_by_role("navigation", name="Каталог").get_by_role(
        "link", name="Молоко, сыр, яйца"
    ).click()
    card = page.locator("article.g-card", has_text="Кефир «Три ракиты» 1%")
    card.get_by_role("button", name="В корзину").click()
    expect(card.locator(".g-qty")).to_have_attribute("data-amount", "1")
    card.get_by_role("button", name="Добавить ещё одну").click()
    expect(card.locator(".g-qty")).to_have_attribute("data-amount", "2")
    card.get_by_role("button", name="Убрать одну штуку").click()
    expect(card.locator(".g-qty")).to_have_attribute("data-amount", "1")
    expect(page.get_by_test_id("cart-count")).to_have_text("1")
    page.get_by_role("link", name="Корзина").click()
    expect(page.get_by_test_id("cart-total")).to_have_text("99 ₽")

    events = wait_events(hub, tid)
    states = [e["params"] for e in events if e["type"] == "state_changed"]
    assert states == [
        {"new_state": "bench_hub_main"},
        {"new_state": "bench_grocery_main"},
        {"new_state": "bench_grocery_category", "category": "dairy"},
        {"new_state": "bench_grocery_basket"},
    ]
    basket = [(e["type"], e["params"]["amount"]) for e in events if e["type"].startswith("basket")]
    assert basket == [("basket_add", 1), ("basket_add", 2), ("basket_remove", 1)]
    first = next(e for e in events if e["type"] == "basket_add")
    assert first["params"] == {
        "item_id": "g-0052",
        "amount": 1,
        "title": "Кефир «Три ракиты» 1%",
        "price": 99,
    }
    assert first["source"] == "server" and first["site"] == "grocery"
    all_events = hub.get(f"/api/trajectories/{tid}/events").json()["events"]
    assert [e["seq"] for e in all_events] == list(range(1, len(all_events) + 1))
    # the passive tracker logged the clicks, from the page
    page.goto(created.url)  # leaving the page flushes the tracker's batch
    clicks = wait_events(hub, tid, "click")
    assert all(e["source"] == "page" for e in clicks)


def test_cart_works_without_javascript(browser, hub: httpx.Client, stack) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    open_site(page, hub, "grocery", path="c/pantry")
    card = page.locator("article.g-card", has_text="Крупа гречневая ядрица «Крупяной ряд», 450 г")
    card.get_by_role("button", name="В корзину").click()
    card = page.locator("article.g-card", has_text="Крупа гречневая ядрица «Крупяной ряд», 450 г")
    assert card.locator(".g-amount").inner_text() == "1"
    assert page.url.endswith("/grocery/c/pantry")
    context.close()


def test_unknown_category_and_product(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    assert agent.get(f"/t/{tid}/grocery/c/caviar").status_code == 404
    assert agent.post(f"/t/{tid}/grocery/cart/g-9999", data={"op": "add"}).status_code == 404
    assert agent.post(f"/t/{tid}/grocery/cart/g-0001", data={"op": "steal"}).status_code == 422
    assert agent.get("/_site/grocery/img/g-9999.svg").status_code == 404
    image = agent.get("/_site/grocery/img/g-0001.svg")
    assert image.status_code == 200 and image.headers["content-type"].startswith("image/svg")


def test_stock_limit_is_refused(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    url = f"/t/{tid}/grocery/cart/g-0056"  # Кефир 3,2%: 12 in stock
    for _ in range(12):
        assert (
            agent.post(url, data={"op": "inc"}, headers={"Accept": "application/json"}).status_code
            == 200
        )
    refused = agent.post(url, data={"op": "inc"}, headers={"Accept": "application/json"})
    assert refused.status_code == 409 and "stock" in refused.json()["detail"]
    below = agent.post(
        f"/t/{tid}/grocery/cart/g-0001", data={"op": "dec"}, headers={"Accept": "application/json"}
    )
    assert below.json()["amount"] == 0
    adds = wait_events(hub, tid, lambda e: e["type"].startswith("basket"), 12)
    assert len(adds) == 12 and adds[-1]["params"]["amount"] == 12  # no event for a no-op


def test_front_page_blocks_open_shelves_and_information(page: Page, hub: httpx.Client) -> None:
    """The blocks below the showcase (docs/sites.md, "Front pages"): a themed shelf opens its
    category, named otherwise than the menu's item; how delivery works opens the
    information pages."""
    open_site(page, hub, "grocery", path="")
    title = page.get_by_role("heading", level=1)
    shelves = page.get_by_role("region", name="Что приготовить")
    expect(shelves.get_by_role("link")).to_have_count(5)
    shelves.get_by_role("link", name="К завтраку").click()
    expect(title).to_contain_text("Молоко, сыр, яйца")
    page.go_back()
    delivery = page.get_by_role("region", name="Как мы доставляем")
    delivery.get_by_role("link", name="Способы оплаты").click()
    expect(title).to_have_text("Оплата заказа")
