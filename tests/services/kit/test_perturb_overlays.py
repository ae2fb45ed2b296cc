"""The `latency` and `overlay` perturbations (services/core/perturb.py) on every site, at the
default and the phone's screen (each site at one of them in the default selection, every one
under `full`: support.pages.page_matrix), clicked through as a person would, by role and name: the
consent blocks the page until answered and is never asked again on the trajectory; the
promo opens a few seconds after load and closes; the sticky banner covers the bottom of the
viewport; a slow trajectory's pages take their seeded delay with «Загрузка…» shown; a late
answer comes after the control looks idle, and a second click then commits once. Each is
the trajectory's own: another one, at the same time, sees its own page."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from itertools import product
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from support.http import create, events_url, make_task, wait_events
from support.pages import open_site, page_matrix, site_tab

from bench.suite import INJECTED, server_seconds
from runner.stack.chromium import LOCALE, TIMEZONE
from runner.stack.stack import Stack
from services.core import perturb
from services.core.sites import registry

SITES = list(registry().captions)
CONSENT = "Мы используем файлы cookie"
PROMO = "Скидка 10% на первый заказ"
BUSY = "Загрузка…"
# A site's page with a cart button, for the shops' late answer.
CARDS = {"grocery": "", "shop": "c/electronics", "books": ""}


def other(domain: str) -> str:
    return SITES[(SITES.index(domain) + 1) % len(SITES)]


def of_type(hub: httpx.Client, tid: str, event_type: str, after: str = "state_changed") -> list:
    """The params of the trajectory's `event_type` events, once an `after` event that came
    later than the last of them is stored (a page loaded after them)."""
    events = wait_events(hub, tid, lambda e: e["type"] in (event_type, after), at_least=1)
    return [e["params"] for e in events if e["type"] == event_type]


# What the page looks like at each click (after its handlers) and IDLE_AFTER_MS after the
# first, kept in sessionStorage: a locator or an evaluate waits for, or is cut by, the page a
# pending navigation brings.
RECORDER = """idle => {
  const look = () => [getComputedStyle(document.getElementById('wpb-busy')).display,
    document.querySelector('main').getAttribute('aria-busy'),
    document.querySelectorAll('main button:disabled').length];
  sessionStorage.clear();
  sessionStorage.setItem('before', JSON.stringify(look()));
  let clicks = 0;
  addEventListener('click', () => {
    clicks += 1;
    const n = clicks;
    setTimeout(() => sessionStorage.setItem(`click${n}`, JSON.stringify(look())), 0);
    if (n === 1) setTimeout(() => sessionStorage.setItem('idle', JSON.stringify(look())), idle);
  });
}"""


def recorded(page: Page) -> dict[str, list]:
    return page.evaluate(
        "() => Object.fromEntries("
        "Object.entries(sessionStorage).map(([k, v]) => [k, JSON.parse(v)]))"
    )


# -- overlay ---------------------------------------------------------------------------


@page_matrix(product([{"overlay": "consent"}], SITES))
def test_consent_blocks_the_page_until_answered_then_never_again(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page = screen_page
    created = open_site(page, hub, domain, ui_variants=variants)
    dialog = page.get_by_role("dialog", name=CONSENT)
    expect(dialog).to_be_visible()
    assert dialog.get_attribute("aria-modal") == "true"
    with pytest.raises(PlaywrightTimeout):  # the page under it takes no click
        page.locator("nav.wpb-tabs a").last.click(trial=True, timeout=1000)
    page.keyboard.press("Escape")  # it wants an answer
    expect(dialog).to_be_visible()
    how, button = (
        ("accept", "Принять") if page.viewport_size["width"] > 600 else ("decline", "Отклонить")
    )
    dialog.get_by_role("button", name=button).click()
    expect(dialog).to_be_hidden()
    tid = created.trajectory_id
    closed = wait_events(hub, tid, "dialog_closed")
    assert [e["params"] for e in closed] == [{"dialog": "consent", "how": how}]
    # The page works, and no page of the trajectory, on any site, asks again.
    site_tab(page, other(domain)).click()
    page.wait_for_url(f"**/{other(domain)}/")
    site_tab(page, domain).click()
    page.wait_for_url(f"**/{domain}/")
    expect(page.get_by_role("heading").first).to_be_visible()
    expect(page.get_by_role("dialog", name=CONSENT)).to_have_count(0)
    opened = wait_events(hub, tid, "dialog_opened")
    assert [e["params"] for e in opened] == [{"dialog": "consent"}]


@page_matrix(product([{"overlay": "promo"}], SITES))
def test_promo_opens_after_a_few_seconds_closes_and_is_shown_once(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client, agent: httpx.Client
) -> None:
    page = screen_page
    created = open_site(page, hub, domain, ui_variants=variants)
    started = time.monotonic()
    dialog = page.get_by_role("dialog", name=PROMO)
    expect(dialog).to_be_visible()
    assert time.monotonic() - started >= perturb.PROMO_S[0] - 1  # not at once
    dialog.get_by_role("button", name="Закрыть").click()
    expect(dialog).to_be_hidden()
    tid = created.trajectory_id
    closed = wait_events(hub, tid, "dialog_closed")
    assert [e["params"] for e in closed] == [{"dialog": "promo", "how": "close"}]
    for site in (domain, other(domain)):  # never rendered again on the trajectory
        assert 'data-overlay="promo"' not in agent.get(f"{created.url}{site}/").text


@page_matrix(product([{"overlay": "sticky"}], SITES))
def test_sticky_banner_covers_the_bottom_and_the_page_scrolls_out_from_under_it(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page = screen_page
    open_site(page, hub, domain, ui_variants=variants)
    banner = page.get_by_role("complementary", name="Приложение")
    expect(banner).to_be_visible()
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    for _ in range(2):
        box = banner.bounding_box()
        assert box is not None
        assert box["x"] == 0 and box["width"] == width
        assert box["y"] + box["height"] == pytest.approx(height, abs=1)
        on_top = "([x, y]) => !!document.elementFromPoint(x, y).closest('.kit-sticky')"
        assert page.evaluate(on_top, [width / 2, height - 8])
        page.mouse.wheel(0, 2000)  # fixed: still over the bottom after a scroll
        page.wait_for_timeout(200)
    # Scrolled to the end, the page's last line sits above the banner.
    last = page.evaluate(
        "() => { scrollTo(0, document.body.scrollHeight);"
        " return document.querySelector('main').getBoundingClientRect().bottom; }"
    )
    assert last <= banner.bounding_box()["y"] + 1


# -- latency ---------------------------------------------------------------------------


@page_matrix(product([{"latency": "slow"}], SITES))
def test_slow_pages_take_their_delay_with_the_spinner_shown(
    variants: dict[str, str],
    domain: str,
    screen_page: Page,
    hub: httpx.Client,
    agent: httpx.Client,
    stack: Stack,
) -> None:
    page = screen_page
    created = open_site(page, hub, domain, ui_variants=variants)
    delay = perturb.seeded(created.trajectory_id, "slow", perturb.SLOW_S)
    busy = page.get_by_role("status", name=BUSY)
    expect(busy).to_be_hidden()
    started = time.monotonic()
    page.evaluate(RECORDER, 60_000)
    site_tab(page, domain).click()
    page.wait_for_load_state()
    expect(busy).to_be_hidden(timeout=10_000)
    assert time.monotonic() - started >= delay
    assert recorded(page)["click1"][:2] == ["flex", "true"]  # shown while it was pending
    # The same seeded delay held on every response of the trajectory, no more: the site's
    # count of held seconds (the page gone, nothing else is asked meanwhile).
    page.goto("about:blank")
    held = server_seconds(stack)[INJECTED]
    for _ in range(2):
        assert agent.get(f"{created.url}{domain}/").elapsed.total_seconds() >= delay
    assert server_seconds(stack)[INJECTED] - held == pytest.approx(2 * delay)


def double_click_once(page: Page, button: Any) -> None:
    """Click, let the control look idle (the spinner gone, the button enabled) while the
    answer has not come, and click it again at the same place, by the mouse (a locator
    would wait for the page a navigation brings)."""
    box = button.bounding_box()
    assert box is not None
    page.evaluate(RECORDER, perturb.IDLE_AFTER_MS + 150)
    button.click(no_wait_after=True)
    page.wait_for_timeout(perturb.IDLE_AFTER_MS + 300)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def looked_idle(page: Page) -> None:
    """The first click showed the spinner; before the answer the page looked as before it,
    and the second click came on that page."""
    seen = recorded(page)
    assert seen["click1"][0] == "flex"
    assert seen["idle"] == seen["before"]
    assert "click2" in seen


@page_matrix(product([{"latency": "late_accept"}], CARDS))
def test_late_cart_add_clicked_twice_adds_once(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page = screen_page
    created = open_site(page, hub, domain, path=CARDS[domain], ui_variants=variants)
    box = page.locator("[data-qty]").first
    add = box.get_by_role("button", name=re.compile("^В корзину: "))
    double_click_once(page, add)
    expect(box).to_have_attribute("data-amount", "1", timeout=10_000)
    looked_idle(page)
    page.wait_for_timeout(perturb.LATE_S[1] * 1000)  # the repeat's answer, too
    expect(box).to_have_attribute("data-amount", "1")
    page.reload()
    added = of_type(hub, created.trajectory_id, "basket_add")
    assert [p["amount"] for p in added] == [1]


@page_matrix([({"latency": "late_accept"}, "hotels")])
def test_late_hotel_room_clicked_twice_books_once(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    page = screen_page
    hotel = "hotel/h-ch-zrh-2?start=2026-12-10&end=2026-12-12"
    created = open_site(page, hub, domain, path=hotel, ui_variants=variants)
    choose = page.get_by_role("button", name=re.compile("^Выбрать номер ")).first
    double_click_once(page, choose)
    # The first navigation is cut by the second click's, which gets the first one's answer.
    expect(page).to_have_url(re.compile(r"/booking$"), timeout=10_000)
    looked_idle(page)
    chosen = of_type(hub, created.trajectory_id, "bench_hotel_select_room")
    assert len(chosen) == 1


def rail_cart(agent: httpx.Client, base: str) -> None:
    """One ticket in the trajectory's rail cart and the card chosen, by the site's own forms."""
    search = {
        "from": "Москва",
        "to": "Казань",
        "date": "2026-12-10",
        "adults": "1",
        "children": "0",
    }
    results = agent.get(f"{base}/search", params=search).text
    link = re.search(r'href="([^"]*/train/[^"]+)"', results)
    assert link
    agent.get(link.group(1).replace("&amp;", "&"))
    train = re.search(r"/train/([^/?#]+)", link.group(1)).group(1)  # type: ignore[union-attr]
    page = agent.get(f"{base}/train/{train}").text
    tariff = re.search(r'name="tariff" value="([^"]+)"', page)
    assert tariff
    assert (
        agent.post(f"{base}/train/{train}/tariff", data={"tariff": tariff.group(1)}).status_code
        == 303
    )
    seatmap = agent.get(f"{base}/train/{train}").text
    tags = re.finditer(r'<button[^>]*data-seat="(\d+)"[^>]*>', seatmap)
    seats = [tag.group(1) for tag in tags if "disabled" not in tag.group(0)]
    assert agent.post(f"{base}/train/{train}/seat", data={"seat": seats[0]}).status_code == 303
    assert agent.post(f"{base}/passengers/0").status_code == 303
    assert agent.post(f"{base}/basket").status_code == 303
    assert agent.post(f"{base}/checkout/method", data={"method": "card"}).status_code == 303


@page_matrix([({"latency": "late_accept"}, "rail")])
def test_late_rail_payment_clicked_twice_pays_once(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client, agent: httpx.Client
) -> None:
    page = screen_page
    created = open_site(page, hub, domain, ui_variants=variants)
    rail_cart(agent, f"/t/{created.trajectory_id}/{domain}")
    page.goto(f"{created.url}{domain}/payment")
    double_click_once(page, page.get_by_role("button", name=re.compile("^Оплатить")))
    expect(page.get_by_role("heading", name="Заказ оплачен")).to_be_visible(timeout=10_000)
    looked_idle(page)
    paid = of_type(hub, created.trajectory_id, "submit_payment")
    assert len(paid) == 1


@page_matrix(product([{"latency": "late_accept"}], SITES))
def test_late_accept_shows_the_spinner_then_looks_idle(
    variants: dict[str, str], domain: str, screen_page: Page, hub: httpx.Client
) -> None:
    """On every site, a navigation shows «Загрузка…» and the page then works as before."""
    page = screen_page
    open_site(page, hub, domain, ui_variants=variants)
    busy = page.get_by_role("status", name=BUSY)
    site_tab(page, other(domain)).click()
    page.wait_for_url(f"**/{other(domain)}/")
    expect(busy).to_be_hidden()
    expect(page.get_by_role("heading").first).to_be_visible()


# -- each trajectory its own -----------------------------------------------------------


@pytest.fixture
def second(browser: Browser) -> Iterator[Page]:
    """A second person's browser, at the same time as `page`."""
    context = browser.new_context(locale=LOCALE, timezone_id=TIMEZONE)
    yield context.new_page()
    context.close()


@page_matrix(
    [
        ({"overlay": "consent"}, "grocery"),
        ({"overlay": "promo"}, "shop"),
        ({"overlay": "sticky"}, "books"),
        ({"latency": "slow"}, "rail"),
        ({"latency": "late_accept"}, "hotels"),
    ]
)
def test_each_trajectory_sees_its_own_page(
    variants: dict[str, str],
    domain: str,
    screen_page: Page,
    hub: httpx.Client,
    second: Page,
    agent: httpx.Client,
) -> None:
    page = screen_page
    (impl,) = variants.values()
    perturbed = open_site(page, hub, domain, ui_variants=variants)
    open_site(second, hub, domain)
    marks = {
        "consent": 'data-overlay="consent"',
        "promo": 'data-overlay="promo"',
        "sticky": 'class="kit-sticky"',
        "slow": 'data-latency="slow"',
        "late_accept": 'data-latency="late_accept"',
    }
    assert marks[impl] in page.content()
    assert marks[impl] not in second.content()
    assert "/_kit/overlay.css" not in second.content()
    if impl == "consent":  # answered in one trajectory, still asked in another
        third = create(
            hub,
            make_task([{"event_name": "state_changed"}], domain=domain),
            ui_variants=variants,
        )
        page.get_by_role("dialog", name=CONSENT).get_by_role("button", name="Принять").click()
        wait_events(hub, perturbed.trajectory_id, "dialog_closed")
        assert marks[impl] not in agent.get(f"{perturbed.url}{domain}/").text
        assert marks[impl] in agent.get(f"{third.url}{domain}/").text


def test_a_page_writes_only_its_own_dialogs(agent: httpx.Client, hub: httpx.Client) -> None:
    """A shell dialog's events come from a page that shows it, of its trajectory's overlay,
    closed in one of its ways; anything else is refused, naming the field."""
    consent = create(
        hub, make_task([{"event_name": "state_changed"}]), ui_variants={"overlay": "consent"}
    )
    url = events_url(agent, f"{consent.url}grocery/")
    for params, field in (
        ({"dialog": "promo"}, "events[0].params.dialog"),
        ({"dialog": "login"}, "events[0].params.dialog"),
        ({"dialog": "consent", "how": "close"}, "events[0].params.how"),
        ({"dialog": "consent"}, "events[0].params.how"),
    ):
        answer = agent.post(url, json={"type": "dialog_closed", "params": params})
        assert answer.status_code == 422 and answer.json()["field"] == field, params
    ok = {"type": "dialog_closed", "params": {"dialog": "consent", "how": "decline"}}
    assert agent.post(url, json=ok).status_code == 200
    plain = create(hub, make_task([{"event_name": "state_changed"}]))
    refused = agent.post(events_url(agent, f"{plain.url}grocery/"), json=ok)
    assert refused.status_code == 403 and refused.json()["field"] == "events[0].type"
