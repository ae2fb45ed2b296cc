"""`clickables=divs` (services/kit/clickables.py), through the real UI: the shops' cart and
favourite controls and Файлы' download are divs with no role, the icons with no name, and
each still does what its button does, by mouse and by keyboard, with the same events."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Locator, Page, expect
from support.http import make_task, params_of, wait_events
from support.pages import open_site

DIVS = {"clickables": "divs"}
TEA = "Чай чёрный «Крупяной ряд»"


def controls(scope: Locator) -> list[str]:
    """The roles of the controls an agent over the accessibility tree finds in `scope`."""
    return re.findall(r"- (button|link|checkbox)\b", scope.aria_snapshot())


def test_the_cart_controls_are_divs_that_add_and_count(page: Page, hub: httpx.Client) -> None:
    task = make_task([{"event_name": "basket_add", "parameters": {"item_id": "g-0053"}}])
    created = open_site(page, hub, "grocery", task, ui_variants=DIVS)
    card = page.get_by_role("article", name=re.compile(TEA))
    box = card.locator("[data-qty]")
    # No button of the card's, and nothing named by the tea: «В корзину» is every card's.
    expect(page.get_by_role("button", name=re.compile(f"В корзину: {TEA}"))).to_have_count(0)
    assert "button" not in controls(box)
    card.get_by_text("В корзину", exact=True).click()
    expect(box).to_have_attribute("data-amount", "1")
    plus = box.locator("form:has(input[value=inc]) [data-click]")
    expect(plus).to_have_text("+")
    assert controls(box) == []  # − and + are icons with no role and no name
    plus.focus()
    page.keyboard.press("Enter")
    expect(box).to_have_attribute("data-amount", "2")
    box.locator("form:has(input[value=dec]) [data-click]").click()
    expect(box).to_have_attribute("data-amount", "1")
    added = params_of(wait_events(hub, created.trajectory_id, "basket_add", at_least=2))
    assert [p["amount"] for p in added] == [1, 2]
    assert hub.get(f"/api/trajectories/{created.trajectory_id}/check").json()["ems"] == 1


def test_the_default_keeps_the_named_buttons(page: Page, hub: httpx.Client) -> None:
    open_site(page, hub, "grocery")
    expect(page.get_by_role("button", name=re.compile(f"^В корзину: {TEA}"))).to_have_count(1)
    expect(page.locator("[data-click]")).to_have_count(0)


def test_the_download_is_an_arrow_with_no_name(page: Page, hub: httpx.Client) -> None:
    created = open_site(page, hub, "files", path="c/lab-reports?year=2024", ui_variants=DIVS)
    row = page.locator('li.f-file[data-file-name="Акт_поверки_весов_2024.pdf"]')
    control = row.locator("[data-click=download]")
    assert "link" not in controls(row) and "button" not in controls(row)
    with page.expect_download() as mouse:
        control.click()
    assert mouse.value.suggested_filename == "Акт_поверки_весов_2024.pdf"
    with page.expect_download() as keyboard:
        control.focus()
        page.keyboard.press(" ")
    assert keyboard.value.suggested_filename == "Акт_поверки_весов_2024.pdf"
    downloads = wait_events(hub, created.trajectory_id, "bench_files_download", at_least=2)
    act = {"file_name": "Акт_поверки_весов_2024.pdf", "collection": "lab-reports", "year": 2024}
    assert params_of(downloads) == 2 * [{**act, "format": "pdf", "widget": "outline"}]
