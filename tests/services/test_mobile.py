"""Every site's main flow through the real UI in Chromium, at the default viewport and at a
phone's 390x844 (a mobile context with touch: the sites' narrow layout; each site at one of
them in the default selection, every one under `full`: support.pages.page_matrix), clicked by role
and accessible name as a person would. No page visited, the hub's at both, scrolls sideways:
the document is never wider than the window. Each page's screenshot is in
test-artifacts/screens/."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.http import create
from support.pages import SCREENS, open_site, page_matrix

SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screens"

# The document's width against the viewport's (a mobile page that overflows is shrunk to
# fit, which widens `innerWidth` itself), and what sticks out past the viewport's right edge
# (the outermost such elements), for the failure's message.
OVERFLOW_JS = """(width) => {
  const wide = document.scrollingElement.scrollWidth;
  const out = [];
  if (wide > width) {
    for (const el of document.querySelectorAll("body *")) {
      const box = el.getBoundingClientRect();
      const parent = el.parentElement.getBoundingClientRect();
      if (box.width && box.right > width + 1 && parent.right <= width + 1) {
        const classes = [...el.classList].map((c) => "." + c).join("");
        out.push(`${el.tagName.toLowerCase()}${classes} (right ${Math.round(box.right)})`);
      }
    }
  }
  return {width, wide, out: out.slice(0, 8)};
}"""


class Visit:
    """The pages a flow sees: each one's screenshot, and the ones that scroll sideways."""

    def __init__(self, page: Page, site: str) -> None:
        self.page, self.site, self.count = page, site, 0
        size = page.viewport_size or {"width": 0, "height": 0}
        self.width = size["width"]
        self.screen = f"{size['width']}x{size['height']}"
        self.wide: list[str] = []

    def look(self, name: str) -> None:
        self.page.wait_for_load_state()
        self.count += 1
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = SHOTS / f"{self.site}-{self.screen}-{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(shot))
        seen = self.page.evaluate(OVERFLOW_JS, self.width)
        if seen["wide"] > seen["width"]:
            self.wide.append(f"{name}: {seen['wide']} px wide in {seen['width']}: {seen['out']}")

    def done(self) -> None:
        assert not self.wide, f"{self.site} at {self.screen} scrolls sideways:\n" + "\n".join(
            self.wide
        )


def start(
    page: Page, hub: httpx.Client, domain: str, variants: dict[str, str], heading: str
) -> Visit:
    """`domain`'s site opened from a new trajectory's hub page, its first page headed
    `heading`."""
    open_site(page, hub, domain, ui_variants=variants)
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    visit = Visit(page, domain)
    visit.look("main")
    return visit


@pytest.mark.parametrize("screen_page", SCREENS, ids=lambda s: s.name, indirect=True)
def test_hub(screen_page: Page, hub: httpx.Client) -> None:
    page = screen_page
    page.goto(create(hub).url)
    visit = Visit(page, "hub")
    visit.look("hub")
    visit.done()


@page_matrix([({}, "shop")])
def test_shop(variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client) -> None:
    page = screen_page
    visit = start(page, hub, domain, variants, "Выбор покупателей")
    page.get_by_role("navigation", name="Каталог").get_by_role("link", name="Зоотовары").click()
    expect(page.get_by_role("form", name="Фильтры и сортировка")).to_be_visible()
    visit.look("category")
    box = page.get_by_role("combobox", name="Поиск по Маркету")
    box.fill("наушники")
    box.press("Enter")
    expect(page.get_by_test_id("found")).to_be_visible()
    visit.look("search")
    title = "Наушники беспроводные «Тиховей» TW-20 Pro"
    page.get_by_role("button", name=f"В корзину: {title}").click()
    expect(page.get_by_test_id("cart-count")).to_have_text("1")
    page.get_by_role("link", name=title).first.click()
    expect(page.get_by_role("heading", name=title)).to_be_visible()
    visit.look("product")
    page.get_by_role("link", name=re.compile(r"^Корзина")).click()
    expect(page.get_by_test_id("cart-total")).to_be_visible()
    visit.look("cart")
    page.get_by_role("link", name="Оформить заказ").click()
    expect(page.get_by_label("Адрес доставки")).to_be_visible()
    visit.look("checkout")
    visit.done()


@page_matrix([({}, "books")])
def test_books(variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client) -> None:
    page = screen_page
    visit = start(page, hub, domain, variants, "Новинки")
    field = page.get_by_role("combobox", name="Поиск книг и авторов")
    field.press_sequentially("Тетерин", delay=20)
    page.get_by_role("option", name="Зоя Тетерина автор").click()
    expect(page.get_by_test_id("found")).to_be_visible()
    visit.look("search")
    page.get_by_role("link", name="Тайна пустого вокзала").first.click()
    expect(page.get_by_role("heading", name="Тайна пустого вокзала")).to_be_visible()
    visit.look("book")
    page.get_by_role("button", name="В корзину").click()
    expect(page.get_by_test_id("cart-count")).to_have_text("1")
    page.get_by_role("link", name=re.compile(r"^Корзина")).click()
    expect(page.get_by_test_id("cart-total")).to_be_visible()
    visit.look("cart")
    page.get_by_role("link", name="Оформить заказ").click()
    expect(page.get_by_label("Электронная почта")).to_be_visible()
    visit.look("checkout")
    visit.done()


@page_matrix([({}, "grocery")])
def test_grocery(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page = screen_page
    visit = start(page, hub, domain, variants, "Хиты недели")
    menu = page.get_by_role("navigation", name="Каталог")
    menu.get_by_role("link", name="Молоко, сыр, яйца").click()
    visit.look("category")
    title = "Кефир «Три ракиты» 1%"
    card = page.locator("article").filter(has=page.get_by_role("heading", name=title))
    card.get_by_role("button", name="В корзину").click()
    card.get_by_role("button", name="Добавить ещё одну").click()
    expect(page.get_by_test_id("cart-count")).to_have_text("2")
    visit.look("added")
    page.get_by_role("link", name=re.compile(r"^Корзина")).click()
    expect(page.get_by_test_id("cart-total")).to_have_text("198 ₽")
    visit.look("cart")
    visit.done()


@page_matrix([({}, "hotels")])
def test_hotels(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page = screen_page
    visit = start(page, hub, domain, variants, "Найдите отель для поездки")
    page.get_by_role("combobox", name="Город").fill("цюр")
    page.get_by_role("option", name="Цюрих, Швейцария").click()
    page.get_by_role("button", name="Заезд: выберите дату").click()
    visit.look("check-in")
    page.get_by_role("button", name="Следующий месяц").click()
    page.get_by_role("button", name="15 декабря 2026").click()
    visit.look("check-out")
    page.get_by_role("button", name="20 декабря 2026").last.click()
    page.get_by_role("button", name="1 номер, 2 гостя").click()
    page.get_by_role("button", name="Больше: дети в номере 1").click()
    page.get_by_label("Возраст ребёнка 1 в номере 1").select_option("7")
    visit.look("guests")
    page.get_by_role("button", name="Готово").click()
    expect(page.get_by_role("button", name="1 номер, 3 гостя")).to_be_visible()
    page.get_by_role("button", name="Найти").click()
    expect(page.get_by_role("heading", name="Отели: Цюрих, Швейцария")).to_be_visible()
    visit.look("results")
    page.get_by_role("link", name=re.compile(r"^Выбрать номер: ")).first.click()
    expect(page.get_by_role("heading", name="Номера")).to_be_visible()
    visit.look("hotel")
    page.get_by_role("button", name="Выбрать номер «Стандартный»").click()
    expect(page.get_by_role("heading", name="Номер выбран")).to_be_visible()
    visit.look("room")
    visit.done()


@page_matrix([({}, "rail")])
def test_rail(variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client) -> None:
    page = screen_page
    visit = start(page, hub, domain, variants, "Билеты на поезд")
    page.get_by_role("combobox", name="Откуда").fill("моск")
    page.get_by_role("option", name="Москва").click()
    page.get_by_role("combobox", name="Куда", exact=True).fill("санкт")
    page.get_by_role("option", name="Санкт-Петербург").click()
    page.get_by_role("button", name="Туда: выберите дату").click()
    visit.look("date")
    page.get_by_role("button", name="Следующий месяц").click()
    page.get_by_role("button", name="15 декабря 2026").click()
    page.get_by_role("button", name="Найти").click()
    expect(page.get_by_role("link", name="Выбрать поезд «Ночная звезда»")).to_be_visible()
    visit.look("results")
    page.get_by_role("link", name="Выбрать поезд «Ночная звезда»").click()
    page.get_by_role("button", name="Купе · 3290 ₽").click()
    visit.look("seats")
    page.get_by_role("button", name="Место 1, нижнее, у окна").click()
    page.get_by_role("link", name="Далее: пассажиры").click()
    page.get_by_role("button", name="Выбрать пассажира: Смирнова Анна Петровна").click()
    visit.look("passengers")
    page.get_by_role("button", name="Оформить").click()
    expect(page.get_by_test_id("cart-total")).to_have_text("3290 ₽")
    visit.look("cart")
    visit.done()


@page_matrix([({}, "files")])
def test_files(variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client) -> None:
    page = screen_page
    visit = start(page, hub, domain, variants, "Коллекции")
    page.get_by_role("link", name="Архив проектов").click()
    visit.look("collection")
    page.get_by_label("Год").select_option("2024")
    page.get_by_role("button", name="Показать файлы").click()
    expect(page.locator("li.f-file")).to_have_count(18)
    visit.look("year")
    row = page.get_by_role("listitem").filter(has_text="2024.pdf")
    with page.expect_download() as download:
        row.get_by_role("link", name="Скачать").first.click()
    assert download.value.suggested_filename == "2024.pdf"
    visit.done()
