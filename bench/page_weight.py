"""Page weight of the shop and books screens: bytes transferred and requests per screen
(each loaded in Chromium, every response counted), and time to first byte (median of 20
httpx GETs through the hub). Starts its own embedded stack; prints a table.

    .venv/bin/python -m bench.page_weight
"""

from __future__ import annotations

import statistics
import time

import httpx
from playwright.sync_api import Response, sync_playwright
from rich.table import Table

from bench.common import console, fresh_stack
from runner.stack.chromium import ARGS, chromium_path, context_options

GETS = 20
SCREENS: dict[str, list[tuple[str, str]]] = {
    "shop": [
        ("главная", "/"),
        ("категория", "/c/electronics"),
        ("поиск", "/search?q=наушники"),
        ("товар", "/p/m-001"),
        ("избранное", "/favorites"),
        ("корзина", "/cart"),
        ("оформление", "/checkout"),
    ],
    "books": [
        ("главная", "/"),
        ("поиск", "/search?q=Руднева"),
        ("книга", "/b/b-0012"),
        ("избранное", "/favorites"),
        ("корзина", "/cart"),
        ("оформление", "/checkout"),
    ],
}


def main() -> int:
    table = Table(title="Page weight: Маркет and Книги")
    for column in ("site", "screen", "requests", "KiB", "TTFB median, ms"):
        table.add_column(column, justify="left" if column in ("site", "screen") else "right")
    with fresh_stack("shop,books") as stack:
        admin = httpx.Client(
            base_url=stack.hub_url, headers={"Authorization": f"Bearer {stack.token}"}, timeout=30
        )
        client = httpx.Client(base_url=stack.hub_url, timeout=30)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium_path(playwright), args=ARGS
            )
            for domain, screens in SCREENS.items():
                task = {
                    "test_data": {
                        "bench_first_domain": domain,
                        "task": "%HOST%",
                        "conditions": [{"event_name": "basket_add"}],
                    }
                }
                created = admin.post("/api/trajectories", json={"task": task}).json()
                base = f"/t/{created['trajectory_id']}/{domain}"
                # something in the cart, so the cart and checkout screens are not empty
                first_item = "m-001" if domain == "shop" else "b-0012"
                client.post(f"{base}/cart/{first_item}", data={"op": "add"})
                for caption, path in screens:
                    context = browser.new_context(**context_options())
                    page = context.new_page()
                    seen: list[Response] = []

                    def record(response: Response, seen: list[Response] = seen) -> None:
                        seen.append(response)

                    page.on("response", record)
                    page.goto(f"{stack.hub_url}{base}{path}", wait_until="networkidle")
                    weight = 0
                    for response in seen:
                        try:
                            weight += len(response.body())
                        except Exception:  # redirects and aborted bodies have none
                            continue
                    requests = len([r for r in seen if "/_events?" not in r.url])
                    context.close()
                    ttfb = []
                    for _ in range(GETS):
                        started = time.perf_counter()
                        with client.stream("GET", f"{base}{path}") as answer:
                            next(answer.iter_raw(), b"")
                            ttfb.append((time.perf_counter() - started) * 1000)
                    table.add_row(
                        domain,
                        caption,
                        str(requests),
                        f"{weight / 1024:.1f}",
                        f"{statistics.median(ttfb):.1f}",
                    )
            browser.close()
    console.print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
