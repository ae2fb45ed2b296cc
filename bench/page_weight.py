"""Page weight of every site's screens, as an agent meets them: DOM nodes, the visible
interactive controls beyond the section tabs, the footer's links, the size of the page's
accessibility snapshot (Playwright's ARIA snapshot of the body, in characters), bytes
transferred and requests (each screen loaded in Chromium, every response counted), and the
time to first byte (median of 20 httpx GETs through the hub). Starts its own embedded stack
(today 2026-11-29); prints a table, and with `--json FILE` writes the figures.

    .venv/bin/python -m bench.page_weight [--sites shop,books] [--json weight.json]

The aims of issue 38: a home page of at least 500 nodes and 60 controls; a cart, checkout,
payment or booking screen of at least 250 nodes and 30 controls; a footer of at least 20
links on every site; TTFB at most 10 ms p50. Of issue 39: Маркет's, Книги', Поезда's and
Отели' results pages (category, search) at least 800 nodes and 100 controls, their item pages
(product, book, train, hotel) at least 500 and 60.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import httpx
from playwright.sync_api import Page, Response, sync_playwright

from bench.common import fresh_stack, table
from runner.stack.chromium import ARGS, chromium_path, context_options

GETS = 20
# Site -> (screen, path under the site) in the order an agent meets them; the first item
# of the cart is put there first, so that its screens are not empty.
SCREENS: dict[str, list[tuple[str, str]]] = {
    "shop": [
        ("главная", "/"),
        ("категория", "/c/electronics"),
        ("поиск", "/search?q=наушники"),
        ("товар", "/p/m-001"),
        ("корзина", "/cart"),
        ("оформление", "/checkout"),
    ],
    "books": [
        ("главная", "/"),
        ("поиск", "/search?q=Руднева"),
        ("книга", "/b/b-0012"),
        ("корзина", "/cart"),
        ("оформление", "/checkout"),
    ],
    "grocery": [
        ("главная", "/"),
        ("категория", "/c/dairy"),
        ("поиск", "/search?q=творог"),
        ("товар", "/p/g-0129"),
        ("корзина", "/cart"),
        ("оформление", "/checkout"),
    ],
    "rail": [
        ("главная", "/"),
        ("поиск", "/search?from=Москва&to=Санкт-Петербург&date=2026-12-05"),
        ("поезд", "/train/t-001?date=2026-12-05&adults=1&children=0"),
        ("пассажиры", "/passengers"),
        ("корзина", "/cart"),
        ("оформление", "/checkout"),
        ("оплата", "/payment"),
        ("заказ", "/paid"),
    ],
    "hotels": [
        ("главная", "/"),
        ("поиск", "/search?city=ru-mow&start=2026-12-05&end=2026-12-08&rooms=2"),
        ("отель", "/hotel/h-ru-mow-1?start=2026-12-05&end=2026-12-08&rooms=2"),
        ("бронирование", "/booking"),
    ],
    "files": [
        ("главная", "/"),
        ("коллекция", "/c/lab-reports"),
    ],
}
FIRST_ITEM = {"shop": "m-001", "books": "b-0012", "grocery": "g-0032"}
# What is posted (path under the site, form) before a screen is measured, so that it is not
# empty: rail's seat and passenger, its ticket in the cart, a pay method and the payment;
# hotels' room.
BEFORE: dict[tuple[str, str], list[tuple[str, dict[str, str]]]] = {
    ("rail", "пассажиры"): [
        ("/train/t-001/tariff", {"tariff": "Эконом"}),
        ("/train/t-001/seat", {"seat": "1"}),
    ],
    ("rail", "корзина"): [("/passengers/0", {}), ("/basket", {})],
    ("rail", "оплата"): [("/checkout/method", {"method": "card"})],
    ("rail", "заказ"): [("/payment", {})],
    ("hotels", "бронирование"): [
        (
            "/hotel/h-ru-mow-1/room",
            {"room_type": "Стандартный", "start": "2026-12-05", "end": "2026-12-08", "rooms": "2"},
        )
    ],
}
# Visible controls a person can operate, outside the section tabs (the hub's, on every page).
CONTROLS = """() => {
  const wanted = 'a[href], button, input:not([type=hidden]), select, textarea, summary,'
    + ' [role=button], [role=link], [role=tab], [role=checkbox], [role=radio], [tabindex]';
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden';
  };
  const controls = [...document.querySelectorAll(wanted)]
    .filter((el) => !el.closest('.wpb-tabs') && visible(el));
  const footer = document.querySelector('footer');
  return {
    nodes: document.getElementsByTagName('*').length,
    controls: controls.length,
    footer_links: footer ? footer.querySelectorAll('a[href]').length : 0,
  };
}"""


def measure(page: Page, url: str) -> dict[str, float]:
    seen: list[Response] = []

    def record(response: Response) -> None:  # Playwright tags the handler: a function
        seen.append(response)

    page.on("response", record)
    page.goto(url, wait_until="networkidle")
    weight = 0
    for response in seen:
        try:
            weight += len(response.body())
        except Exception:  # redirects and aborted bodies have none
            continue
    figures = page.evaluate(CONTROLS)
    return {
        **figures,
        "snapshot": len(page.locator("body").aria_snapshot()),
        "requests": len([r for r in seen if "/_events?" not in r.url]),
        "kib": weight / 1024,
    }


def first_byte(client: httpx.Client, path: str) -> float:
    times = []
    for _ in range(GETS):
        started = time.perf_counter()
        with client.stream("GET", path) as answer:
            next(answer.iter_raw(), b"")
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def shown(value: object) -> str:
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default=",".join(SCREENS), help="sites to measure")
    parser.add_argument("--json", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    sites = [s for s in args.sites.split(",") if s]
    unknown = set(sites) - set(SCREENS)
    if unknown:
        parser.error(f"--sites: no screens listed for {', '.join(sorted(unknown))}")
    rows: list[dict[str, object]] = []
    with fresh_stack(",".join(sites)) as stack:
        admin = httpx.Client(
            base_url=stack.hub_url, headers={"Authorization": f"Bearer {stack.token}"}, timeout=30
        )
        client = httpx.Client(base_url=stack.hub_url, timeout=30)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium_path(playwright), args=ARGS
            )
            for domain in sites:
                task = {
                    "test_data": {
                        "bench_first_domain": domain,
                        "task": "%HOST%",
                        "conditions": [{"event_name": "state_changed"}],
                    }
                }
                created = admin.post("/api/trajectories", json={"task": task}).json()
                base = f"/t/{created['trajectory_id']}/{domain}"
                if domain in FIRST_ITEM:
                    client.post(f"{base}/cart/{FIRST_ITEM[domain]}", data={"op": "add"})
                for screen, path in SCREENS[domain]:
                    for posted, form in BEFORE.get((domain, screen), []):
                        client.post(f"{base}{posted}", data=form)
                    context = browser.new_context(**context_options())
                    figures = measure(context.new_page(), f"{stack.hub_url}{base}{path}")
                    context.close()
                    ttfb = first_byte(client, f"{base}{path}")
                    rows.append({"site": domain, "screen": screen, **figures, "ttfb_ms": ttfb})
            browser.close()
    columns = ["nodes", "controls", "footer_links", "snapshot", "requests", "kib", "ttfb_ms"]
    table(
        "Page weight: every site's screens",
        ["site", "screen", *columns],
        [[str(row["site"]), str(row["screen"]), *(shown(row[c]) for c in columns)] for row in rows],
    )
    if args.json:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
