"""A page read by role and accessible name, as agents over the accessibility tree read it:
repeated controls (cart, favourites, downloads) name their item, cards are named."""

from __future__ import annotations

import re
from collections import Counter

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.http import make_task
from support.pages import open_site

CONTROL = re.compile(r'- (button|link|menuitem) "([^"]+)"')


def repeated(page: Page) -> dict[str, int]:
    """Controls of the page's main part that share an accessible name."""
    names = Counter(
        f"{role} {name}" for role, name in CONTROL.findall(page.locator("main").aria_snapshot())
    )
    return {name: n for name, n in names.items() if n > 1}


@pytest.mark.parametrize(
    ("domain", "path"),
    [
        ("grocery", ""),
        ("shop", ""),
        ("books", "search?q=Руднева"),
        ("files", "c/manuals?year=2023"),
    ],
)
def test_no_wall_of_identical_controls(page: Page, hub: httpx.Client, domain, path) -> None:
    open_site(page, hub, domain, path=path)
    assert not repeated(page)


def test_a_card_and_its_buttons_are_found_by_name(page: Page, hub: httpx.Client) -> None:
    task = make_task(
        [{"event_name": "basket_add", "parameters": {"item_id": "g-0053", "amount": 1}}]
    )
    created = open_site(page, hub, "grocery", task)
    tea = "Чай чёрный «Крупяной ряд»"
    card = page.get_by_role("article", name=re.compile(tea))
    expect(card).to_have_count(1)
    page.get_by_role("button", name=re.compile(f"^В корзину: {tea}")).click()
    page.get_by_role("button", name=re.compile(f"^Добавить ещё одну: {tea}")).click()
    expect(card.get_by_text("2", exact=True)).to_be_visible()
    check = hub.get(f"/api/trajectories/{created.trajectory_id}/check").json()
    assert check["ems"] == 0  # amount 2 now: the last event says so
    page.get_by_role("button", name=re.compile(f"^Убрать одну штуку: {tea}")).click()
    expect(card.get_by_text("1", exact=True)).to_be_visible()
    check = hub.get(f"/api/trajectories/{created.trajectory_id}/check").json()
    assert check["ems"] == 1


@pytest.mark.parametrize(
    ("domain", "field", "typed", "message"),
    [
        ("rail", "Откуда", "Казань", "Выберите станцию из списка"),
        ("hotels", "Город", "Женева", "Выберите город из списка"),
    ],
)
def test_a_typed_but_unchosen_place_is_flagged_when_left(
    page: Page, hub: httpx.Client, domain, field, typed, message
) -> None:
    open_site(page, hub, domain)
    box = page.get_by_role("combobox", name=field)
    box.fill(typed)
    box.press("Escape")
    box.press("Tab")
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("status").filter(has_text=message)).to_contain_text(f"«{typed}»")
    box.focus()
    box.press("ArrowDown")
    box.press("Enter")
    expect(box).not_to_have_attribute("aria-invalid", "true")
