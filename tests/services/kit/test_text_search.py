"""The shared `text_search` control: six implementations, each different in DOM, each
submitting by mouse and by keyboard (a typed query or a chosen suggestion) and producing
the same `submit_search` event, with `widget` naming the implementation."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect
from support.http import params_of, wait_events
from support.pages import open_site

from services.core.sites import registry

IMPLEMENTATIONS = registry().controls["text_search"]["shop"]


def search_field(page: Page) -> Locator:
    """The page's search field, once its script has set it up: the script is a module, run
    after the page is parsed, and keys typed before it runs raise no suggestions."""
    expect(page.locator("form[data-ts]")).to_have_attribute("data-ts-ready", "1")
    return page.get_by_role("search").get_by_role("combobox")


def test_the_six_implementations_differ_in_dom(page: Page, hub: httpx.Client) -> None:
    shapes = set()
    for impl in IMPLEMENTATIONS:
        open_site(page, hub, "shop", path="", ui_variants={"text_search": impl})
        form = page.locator("form[data-ts]")
        expect(form).to_have_attribute("data-widget", impl)
        shape = form.evaluate(
            "f => [...f.querySelectorAll('*')]"
            ".filter(e => e.tagName !== 'svg' && !e.closest('svg'))"
            ".map(e => e.tagName + '.' + e.className).join(' ')"
        )
        shapes.add(shape)
    assert len(shapes) == len(IMPLEMENTATIONS)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_submits_by_mouse_and_keyboard(page: Page, hub: httpx.Client, impl: str) -> None:
    tid = open_site(page, hub, "shop", path="", ui_variants={"text_search": impl}).trajectory_id
    field = search_field(page)
    form = page.get_by_role("search")
    # by mouse: type, then click the button named «Найти»
    field.click()
    field.fill("коврик")
    form.get_by_role("button", name="Найти", exact=True).click()
    expect(page.get_by_role("heading", name="Результаты по запросу «коврик»")).to_be_visible()
    # by keyboard: type, then Enter
    field = search_field(page)
    field.fill("")
    field.press_sequentially("мяч", delay=20)
    expect(page.get_by_role("listbox", name="Подсказки")).to_be_visible()
    field.press("Enter")
    expect(page.get_by_role("heading", name="Результаты по запросу «мяч»")).to_be_visible()
    # a suggestion by keyboard: arrows + Enter
    field = search_field(page)
    field.fill("")
    field.press_sequentially("кофе", delay=20)
    options = page.get_by_role("option")
    expect(options.first).to_be_visible()
    field.press("ArrowDown")
    field.press("ArrowDown")
    field.press("ArrowUp")
    expect(options.first).to_have_attribute("aria-selected", "true")
    chosen = options.first.get_attribute("data-value")
    field.press("Enter")
    expect(page.get_by_role("heading", name=f"Результаты по запросу «{chosen}»")).to_be_visible()
    # a suggestion by mouse
    field = search_field(page)
    field.fill("")
    field.press_sequentially("Стремнина", delay=20)
    page.get_by_role("option", name="Стремнина производитель").click()
    expect(page.get_by_role("heading", name="Результаты по запросу «Стремнина»")).to_be_visible()

    assert params_of(wait_events(hub, tid, "submit_search", 4)) == [
        {"value": value, "widget": impl} for value in ("коврик", "мяч", chosen, "Стремнина")
    ]
