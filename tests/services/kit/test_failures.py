"""The kit's page scripts when the server fails, in Chromium: the person is told (an alert),
the controls keep showing what the server holds, and nothing hangs or throws."""

from __future__ import annotations

import time

import httpx
from playwright.sync_api import Page, Route, expect
from support.http import create, make_task, wait_events
from support.pages import open_site

# settled(), or "hung" when it has not resolved within the given milliseconds.
SETTLED_WITHIN = """ms => Promise.race([
  window.wpb.settled().then(() => "settled"),
  new Promise((resolve) => setTimeout(() => resolve("hung"), ms)),
])"""


def bad_gateway(route: Route) -> None:
    """A proxy's 502: an HTML page, not JSON."""
    route.fulfill(status=502, content_type="text/html", body="<h1>502 Bad Gateway</h1>")


# Отели's city as a native select: one choice writes one event.
NATIVE_CITY = {"select_city": "native_select"}


def test_emit_retries_502s_for_16_s_then_says_so(page: Page, hub: httpx.Client) -> None:
    posts: list[str] = []

    def refuse(route: Route) -> None:
        posts.append(route.request.post_data or "")
        bad_gateway(route)

    page.route("**/_events?*", refuse)
    open_site(page, hub, "hotels", path="", ui_variants=NATIVE_CITY)
    page.get_by_role("combobox", name="Город").select_option("ch-zrh")
    assert page.evaluate(SETTLED_WITHIN, 25_000) == "settled"
    alert = page.get_by_role("alert").filter(has_text="Действие не записано")
    expect(alert).to_have_text(
        "Действие не записано: сервер не ответил (ошибка 502). Повторите его."
    )
    # bounded retries, spread over ~16 s: long enough to ride out a restart of NATS
    assert sum("bench_hotel_select_city" in body for body in posts) == 8


def test_emit_waits_as_long_as_retry_after_says(page: Page, hub: httpx.Client) -> None:
    """A 503 with `Retry-After: 2` (NATS restarting): the next post comes 2 s later, not
    after the first back-off of 0.25 s, and then the event is stored."""
    posts: list[float] = []

    def unavailable_once(route: Route) -> None:
        posts.append(time.monotonic())
        if len(posts) == 1:
            route.fulfill(status=503, headers={"Retry-After": "2"}, json={"detail": "nats"})
        else:
            route.continue_()

    page.route("**/_events?*", unavailable_once)
    tid = open_site(page, hub, "hotels", path="", ui_variants=NATIVE_CITY).trajectory_id
    page.get_by_role("combobox", name="Город").select_option("ch-zrh")
    assert page.evaluate(SETTLED_WITHIN, 10_000) == "settled"
    assert len(posts) >= 2 and posts[1] - posts[0] >= 1.9
    wait_events(hub, tid, "bench_hotel_select_city")
    expect(page.get_by_role("alert").filter(has_text="Действие не записано")).to_have_count(0)


def test_emit_refused_is_shown_at_once(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "hotels", path="", ui_variants=NATIVE_CITY).trajectory_id
    assert hub.post(f"/api/trajectories/{tid}/close").status_code == 200
    page.get_by_role("combobox", name="Город").select_option("ch-zrh")
    expect(page.get_by_role("alert").filter(has_text="Действие не записано")).to_have_text(
        "Действие не записано: сервер его не принял (ошибка 409). Повторите его."
    )
    assert page.evaluate(SETTLED_WITHIN, 5_000) == "settled"


def test_cart_and_favourite_when_the_shop_answers_502(page: Page, hub: httpx.Client) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    open_site(page, hub, "books", path="b/b-0173")
    page.route("**/cart/**", bad_gateway)
    page.route("**/favorites/**", bad_gateway)
    buy = page.locator(".b-buy")
    add = buy.get_by_role("button", name="В корзину")
    add.click()
    expect(buy.get_by_role("alert")).to_have_text("Не получилось, попробуйте ещё раз")
    expect(add).to_be_enabled()  # still «В корзину»: nothing was added
    heart = buy.get_by_role("button", name="Добавить в избранное")
    heart.click()
    expect(buy.locator("form[data-fav]").get_by_role("alert")).to_have_text(
        "Не получилось, попробуйте ещё раз"
    )
    expect(heart).to_have_attribute("aria-pressed", "false")
    expect(heart).to_be_enabled()
    page.unroute("**/cart/**")
    add.click()  # the shop is back: the alert goes, the stepper comes
    expect(page.get_by_test_id("cart-count")).to_have_text("1")
    expect(buy.locator("[data-qty]").get_by_role("alert")).to_have_count(0)
    assert errors == []


def test_pages_write_their_events_where_the_stand_is_not_a_secure_context(
    page: Page, hub: httpx.Client
) -> None:
    """An agent in a container reaches the stand by name (`http://hub:8000`: compose's agents
    network, a Harbor trial), where the browser withholds what only https and localhost get
    (`crypto.randomUUID`): the page's events are written all the same."""
    host = "http://hub.wpb.test"
    stand = str(hub.base_url).rstrip("/")
    page.route(
        f"{host}/**", lambda route: route.continue_(url=stand + route.request.url[len(host) :])
    )
    task = make_task([{"event_name": "state_changed"}], domain="hotels")
    created = create(hub, task, ui_variants=NATIVE_CITY)
    page.goto(created.url.replace(stand, host) + "hotels/")
    assert page.evaluate("isSecureContext") is False
    page.get_by_role("combobox", name="Город").select_option("ch-zrh")
    assert page.evaluate(SETTLED_WITHIN, 10_000) == "settled"
    wait_events(hub, created.trajectory_id, "bench_hotel_select_city")
    expect(page.get_by_role("alert").filter(has_text="Действие не записано")).to_have_count(0)
