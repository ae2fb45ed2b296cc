"""The page shell's `layout`, `session` and `tabs` perturbations on every site, clicked through
in Chromium by role and accessible name at the default and the phone's screen (each site at
one of them in the default selection, every one under `full`: support.pages.page_matrix): a lazy
list loads its cards on scroll, a paginated one reaches its page 2, repeated controls share
one caption under different names, an expired session asks to log in and keeps the cart, an
item opens in a new tab of the same trajectory; and two trajectories at once, one perturbed
and one not, each see their own page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import product

import httpx
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect
from support.http import create, make_task
from support.pages import open_site, page_matrix
from support.stand import TODAY

from runner.stack.chromium import context_options
from services.core import perturb
from services.core.models.run import Viewport

START = date.fromisoformat(TODAY) + timedelta(days=7)
END = START + timedelta(days=3)


@dataclass(frozen=True)
class Site:
    # A list page (under the site's address) and the selector of its cards.
    list_path: str
    cards: str
    # The repeated control under `dup_labels`: its role and its one visible caption.
    repeated: tuple[str, str]
    # The link that opens an item in a new tab (its accessible name; the first card's first
    # link where none is given) and what the new tab shows.
    item_link: re.Pattern[str] | None = None
    item_shows: str = ""


SITES = {
    "shop": Site("search?q=для", "article.m-card", ("link", "Подробнее")),
    "books": Site("search?q=о", "article.b-card", ("link", "Подробнее")),
    "grocery": Site(
        "c/dairy",
        "article.g-card",
        ("button", "Добавить"),
        re.compile("^Хлеб и выпечка$"),
        "Хлеб и выпечка",
    ),
    "hotels": Site(
        f"search?city=ru-mow&start={START}&end={END}&rooms=2",
        "li.h-card",
        ("link", "Подробнее"),
        re.compile("^Выбрать номер: "),
        "Цена за ночь",
    ),
    "rail": Site(
        f"search?from=Москва&to=Санкт-Петербург&date={START}&adults=1",
        "li.r-train",
        ("link", "Выбрать"),
        re.compile("^Выбрать поезд"),
        "Тариф",
    ),
    "files": Site(
        "c/projects-archive?year=2024",
        "li.f-file",
        ("link", "Просмотр"),
        re.compile(r"^Просмотр: .*\.csv$"),
        "Проект;Руководитель",
    ),
}


def open_list(page: Page, hub: httpx.Client, domain: str, variants: dict[str, str]) -> str:
    """A new trajectory with `variants` on `domain`, its list page open; the trajectory's
    address."""
    return open_site(page, hub, domain, path=SITES[domain].list_path, ui_variants=variants).url


def same_screen(browser: Browser, page: Page) -> BrowserContext:
    """A second person's browser, at the screen of `page`."""
    return browser.new_context(**context_options(Viewport(**page.viewport_size)))


def visible(cards: Locator) -> int:
    return sum(cards.nth(i).is_visible() for i in range(cards.count()))


# -- layout=lazy ----------------------------------------------------------------------------


@page_matrix(product([{"layout": "lazy"}], SITES))
def test_lazy_list_loads_its_cards_on_scroll(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page, site = screen_page, SITES[domain]
    open_list(page, hub, domain, variants)
    cards = page.locator(site.cards)
    total = cards.count()
    assert total > perturb.LAZY_FIRST
    expect(cards.nth(perturb.LAZY_FIRST - 1)).to_be_visible()
    # The rest is out of the page and of its accessibility tree until it loads.
    expect(cards.nth(perturb.LAZY_FIRST)).to_be_hidden()
    assert visible(cards) == perturb.LAZY_FIRST
    more = page.get_by_role("status").filter(has_text="ещё")
    for _ in range(total):
        if not more.count():
            break
        page.mouse.wheel(0, 4000)
        page.wait_for_timeout(500)
    expect(cards.last).to_be_visible()
    assert visible(cards) == total


# -- layout=paginated -----------------------------------------------------------------------


@page_matrix(product([{"layout": "paginated"}], SITES))
def test_paginated_list_reaches_page_two(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page, site = screen_page, SITES[domain]
    open_list(page, hub, domain, variants)
    cards = page.locator(site.cards)
    total = cards.count()
    pager = page.get_by_role("navigation", name="Страницы списка")
    if total <= perturb.PAGE_SIZE:  # Отели' 6 hotels a city, Поезда's 8 trains: one page
        expect(pager).to_have_count(0)
        assert visible(cards) == total
        return
    assert visible(cards) == perturb.PAGE_SIZE
    expect(pager.get_by_role("button", name="Назад")).to_be_disabled()
    pager.get_by_role("button", name="Страница 2").click()
    expect(cards.nth(perturb.PAGE_SIZE)).to_be_visible()
    expect(cards.first).to_be_hidden()
    expect(pager.get_by_role("button", name="Страница 2")).to_have_attribute("aria-current", "page")
    assert page.url.endswith("#page=2")
    pager.get_by_role("button", name="Назад").click()
    expect(cards.first).to_be_visible()
    pager.get_by_role("button", name="Вперёд").click()
    expect(cards.first).to_be_hidden()
    # The page shown is kept in the address: a reload (or going back) comes to it again.
    page.reload()
    expect(cards.nth(perturb.PAGE_SIZE)).to_be_visible()
    expect(pager).to_contain_text(f"Страница 2 из {-(-total // perturb.PAGE_SIZE)}")


# -- layout=dup_labels ----------------------------------------------------------------------


@page_matrix(product([{"layout": "dup_labels"}], SITES))
def test_dup_labels_one_caption_different_names(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page, site = screen_page, SITES[domain]
    open_list(page, hub, domain, variants)
    role, caption = site.repeated
    controls = page.get_by_role(role, name=re.compile(f"^{caption}")).filter(has_text=caption)
    count = controls.count()
    assert count >= 2
    captions = {controls.nth(i).inner_text().strip() for i in range(count)}
    names = [controls.nth(i).get_attribute("aria-label") for i in range(count)]
    assert captions == {caption}
    assert None not in names and len(set(names)) == count
    # The second control, found by its name, is the second card's.
    second = page.locator(site.cards).nth(1)
    name = names[1]
    assert name is not None
    assert second.get_by_role(role, name=name, exact=True).count() == 1
    if domain == "files":  # «Просмотр» shows the file itself
        return
    page.get_by_role(role, name=name, exact=True).click()
    if role == "link":
        page.wait_for_load_state()
        assert "/search" not in page.url and "/c/dairy" not in page.url
    else:
        expect(page.get_by_test_id("cart-count")).to_have_text("1")


# -- tabs=new_tab ---------------------------------------------------------------------------


@page_matrix(product([{"tabs": "new_tab"}], SITES))
def test_new_tab_opens_the_item_in_the_same_trajectory(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page, site = screen_page, SITES[domain]
    url = open_list(page, hub, domain, variants)
    card = page.locator(site.cards).first
    link = card.get_by_role("link").first
    shows = site.item_shows or card.get_attribute("data-title") or ""
    if site.item_link is not None:
        link = page.get_by_role("link", name=site.item_link).first
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url.startswith(url), "the new tab left the trajectory"
    expect(tab.locator("body")).to_contain_text(shows)
    assert page.locator(site.cards).count() > 0  # the list stays in the first tab
    assert len(page.context.pages) == 2


# -- session=expire -------------------------------------------------------------------------


def account(page: Page, url: str) -> tuple[str, str]:
    """The test account, as the trajectory's hub page shows it."""
    page.goto(url)
    box = page.get_by_role("region", name="Учётная запись для входа")
    return (
        box.get_by_test_id("account-login").inner_text(),
        box.get_by_test_id("account-password").inner_text(),
    )


def log_in(page: Page, login: str, password: str) -> None:
    screen = page.get_by_role("region", name="Сеанс истёк")
    expect(screen).to_be_visible()
    screen.get_by_label("Логин").fill(login)
    screen.get_by_label("Пароль").fill(password)
    screen.get_by_role("button", name="Войти").click()
    page.wait_for_url(lambda u: "/_session/login" not in u)
    page.wait_for_load_state()


def add_three(page: Page, site: Site) -> list[str]:
    """Press «В корзину» on three cards; the names of those pressed."""
    names = []
    for index in range(perturb.EXPIRE_AFTER + 1):
        button = (
            page.locator(site.cards)
            .nth(index)
            .get_by_role("button", name=re.compile("^В корзину: "))
        )
        names.append(button.get_attribute("aria-label") or "")
        button.click()
        if index < perturb.EXPIRE_AFTER:
            expect(page.get_by_test_id("cart-count")).to_have_text(str(index + 1))
    return names


@page_matrix(product([{"session": "expire"}], SITES))
def test_expired_session_asks_to_log_in_and_keeps_the_cart(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page, site = screen_page, SITES[domain]
    created = create(
        hub, make_task([{"event_name": "state_changed"}], domain=domain), ui_variants=variants
    )
    login, password = account(page, created.url)
    assert (login, password) == perturb.ACCOUNT
    page.goto(f"{created.url}{domain}/{site.list_path}")
    if domain in ("shop", "books", "grocery"):
        add_three(page, site)
        page.wait_for_url(re.compile("/_session/login"))
        screen = page.get_by_role("region", name="Сеанс истёк")
        screen.get_by_label("Пароль").fill("неверный")
        screen.get_by_label("Логин").fill(login)
        screen.get_by_role("button", name="Войти").click()
        expect(screen.get_by_role("alert")).to_contain_text("Неверный логин или пароль")
        log_in(page, login, password)
        # The two earlier additions survived, the third was made once, after the login.
        expect(page.get_by_test_id("cart-count")).to_have_text(str(perturb.EXPIRE_AFTER + 1))
        return
    if domain == "rail":
        page.get_by_role("link", name="Выбрать поезд").first.click()
        tariffs = page.get_by_role("group", name="Тарифы").get_by_role("button")
        chosen = ""
        for index in range(perturb.EXPIRE_AFTER + 1):
            chosen = tariffs.nth(index).inner_text()
            tariffs.nth(index).click()
            page.wait_for_load_state()
        log_in(page, login, password)
        pressed = page.get_by_role("group", name="Тарифы").get_by_role("button", pressed=True)
        expect(pressed).to_have_text(chosen)
        return
    if domain == "hotels":
        page.get_by_role("link", name="Выбрать номер").first.click()
        hotel = page.url
        rooms = page.get_by_role("button", name=re.compile("^Выбрать номер «"))
        room = ""
        for index in range(perturb.EXPIRE_AFTER + 1):
            page.goto(hotel)
            room = rooms.nth(index % rooms.count()).get_attribute("aria-label") or ""
            rooms.nth(index % rooms.count()).click()
            page.wait_for_load_state()
        log_in(page, login, password)
        assert "/booking" in page.url
        expect(page.locator("main")).to_contain_text(room.split("«")[1].rstrip("»"))
        return
    # Файлы: a download changes nothing; the session never runs out.
    downloads = page.get_by_role("link", name=re.compile("^Скачать: "))
    for index in range(perturb.EXPIRE_AFTER + 2):
        with page.expect_download() as got:
            downloads.nth(index).click()
        assert got.value.suggested_filename
    assert "/_session/" not in page.url


# -- per trajectory -------------------------------------------------------------------------


@page_matrix(
    product(
        [
            {"layout": "lazy"},
            {"layout": "paginated"},
            {"layout": "dup_labels"},
            {"tabs": "new_tab"},
        ],
        ["shop"],
    )
)
def test_two_trajectories_at_once_each_see_their_own_page(
    variants: dict[str, str],
    domain: str,
    screen_page: Page,
    browser: Browser,
    hub: httpx.Client,
) -> None:
    site, mine = SITES[domain], screen_page
    (impl,) = variants.values()
    second = same_screen(browser, mine)
    try:
        theirs = second.new_page()
        open_list(mine, hub, domain, variants)
        open_list(theirs, hub, domain, {"layout": "none"})
        total = theirs.locator(site.cards).count()
        assert visible(theirs.locator(site.cards)) == total
        assert theirs.locator("[data-kit-list], .kit-more, a[target=_blank]").count() == 0
        expected = {
            "lazy": perturb.LAZY_FIRST,
            "paginated": perturb.PAGE_SIZE,
            "dup_labels": total,
            "new_tab": total,
        }[impl]
        assert visible(mine.locator(site.cards)) == expected
        marks = {
            "lazy": "[data-kit-list=lazy]",
            "paginated": "nav.kit-pager",
            "dup_labels": ".kit-more",
            "new_tab": "a[target=_blank]",
        }
        assert mine.locator(marks[impl]).count() > 0
    finally:
        second.close()


@page_matrix([({"session": "expire"}, "grocery")])
def test_an_expired_session_is_the_trajectorys_own(
    variants: dict[str, str],
    domain: str,
    screen_page: Page,
    browser: Browser,
    hub: httpx.Client,
) -> None:
    """Two trajectories press «В корзину» three times at once: only the one whose session
    expires is asked to log in; the hub page shows the account only to it."""
    site, mine = SITES[domain], screen_page
    plain = create(
        hub,
        make_task([{"event_name": "state_changed"}], domain=domain),
        ui_variants={"session": "none"},
    )
    second = same_screen(browser, mine)
    try:
        theirs = second.new_page()
        theirs.goto(plain.url)
        expect(theirs.get_by_role("region", name="Учётная запись для входа")).to_have_count(0)
        open_list(mine, hub, domain, variants)
        theirs.goto(f"{plain.url}{domain}/{site.list_path}")
        add_three(mine, site)
        add_three(theirs, site)
        mine.wait_for_url(re.compile("/_session/login"))
        expect(theirs.get_by_test_id("cart-count")).to_have_text(str(perturb.EXPIRE_AFTER + 1))
        assert "/_session/" not in theirs.url
    finally:
        second.close()
