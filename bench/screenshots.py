"""Screenshots of every site's screens (home, results, item, checkout or the nearest), the
first screen only, at the desktop's 1280x800 and a phone's 390x844: each site's trajectory is
brought to a start state first (an item in the cart, a ticket chosen, a room chosen), then
every screen of `SHOTS` is shot into docs/sites/<site>-<screen>-<desktop|phone>.jpg, and
docs/sites/README.md (their tables) is written from the same table. Starts its own embedded
stack (today 2026-11-29); a file the table no longer names is removed.

    .venv/bin/python -m bench.screenshots [--sites rail,hotels]     (make screenshots)

A screen is added by a line in `SHOTS` (and the requests that bring it about in `PREPARE`).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from playwright.sync_api import Browser, sync_playwright

from bench.common import console, fresh_stack
from bench.page_weight import FIRST_ITEM
from runner.stack.chromium import ARGS, chromium_path, context_options
from services.core.models.run import Viewport
from services.core.sites import registry

FOLDER = Path(__file__).resolve().parent.parent / "docs" / "sites"
README = FOLDER / "README.md"
VIEWPORTS = {"desktop": Viewport(), "phone": Viewport(width=390, height=844)}
QUALITY = 70  # JPEG: the whole folder stays under 4 MB


@dataclass(frozen=True)
class Shot:
    """A screen: its name in the file's name, its caption in the tables, its path under the
    site."""

    name: str
    caption: str
    path: str


TRIP = "date=2026-12-05&adults=1&children=0"
STAY = "start=2026-12-05&end=2026-12-08&rooms=2"
SHOTS: dict[str, list[Shot]] = {
    "shop": [
        Shot("home", "главная", "/"),
        Shot("search", "поиск «наушники»", "/search?q=наушники"),
        Shot("item", "товар", "/p/m-001"),
        Shot("checkout", "оформление", "/checkout"),
    ],
    "books": [
        Shot("home", "главная", "/"),
        Shot("search", "поиск «Руднева»", "/search?q=Руднева"),
        Shot("item", "книга", "/b/b-0012"),
        Shot("checkout", "оформление", "/checkout"),
    ],
    "grocery": [
        Shot("home", "главная", "/"),
        Shot("search", "поиск «творог»", "/search?q=творог"),
        Shot("item", "товар", "/p/g-0129"),
        Shot("cart", "корзина", "/cart"),
        Shot("checkout", "оформление", "/checkout"),
    ],
    "rail": [
        Shot("home", "главная", "/"),
        Shot(
            "search",
            "поиск Москва — Санкт-Петербург",
            f"/search?from=Москва&to=Санкт-Петербург&{TRIP}",
        ),
        Shot("train", "поезд", f"/train/t-001?{TRIP}"),
        Shot("payment", "оплата", "/payment"),
    ],
    "hotels": [
        Shot("home", "главная", "/"),
        Shot("search", "поиск: Москва, 3 ночи", f"/search?city=ru-mow&{STAY}"),
        Shot("hotel", "отель", f"/hotel/h-ru-mow-1?{STAY}"),
        Shot("booking", "бронирование", "/booking"),
    ],
    "files": [
        Shot("home", "кабинет", "/"),
        Shot("collection", "коллекция «Отчёты лаборатории»", "/c/lab-reports"),
        Shot("files", "её файлы 2024 года", "/c/lab-reports?year=2024"),
    ],
}
# The requests that bring a site's trajectory to the screens' start state, in order: a form
# posted, or a page got where the form is None (the train page sets the trip's date; rail's
# ticket goes to the cart, then the next trip's seat is chosen for the train page).
Step = tuple[str, dict[str, str] | None]
PREPARE: dict[str, list[Step]] = {
    **{site: [(f"/cart/{item}", {"op": "add"})] for site, item in FIRST_ITEM.items()},
    "rail": [
        (f"/train/t-001?{TRIP}", None),
        ("/train/t-001/tariff", {"tariff": "Эконом"}),
        ("/train/t-001/seat", {"seat": "1"}),
        ("/passengers/0", {}),
        ("/basket", {}),
        ("/checkout/method", {"method": "card"}),
        (f"/train/t-001?{TRIP}", None),
        ("/train/t-001/tariff", {"tariff": "Эконом"}),
        ("/train/t-001/seat", {"seat": "2"}),
    ],
    "hotels": [
        (
            "/hotel/h-ru-mow-1/room",
            {"room_type": "Стандартный", "start": "2026-12-05", "end": "2026-12-08", "rooms": "2"},
        ),
    ],
}
# The README's side-by-sides: two sites' home pages at the desktop's size, the pairs that
# were one look before each site had its own (issue 38).
BESIDE = (("rail", "hotels"), ("shop", "grocery"))


def image(site: str, shot: Shot, screen: str) -> str:
    return f"{site}-{shot.name}-{screen}.jpg"


def readme() -> str:
    """docs/sites/README.md as the table gives it."""
    captions = registry().captions
    lines = [
        "# The sites' screens",
        "",
        "Every site's home, results, item and checkout screens (or the nearest), the first",
        "screen only, at the desktop's 1280x800 and a phone's 390x844, in the default theme.",
        "Each site's trajectory starts with an item in its cart (shop, books, grocery), a",
        "ticket in the cart to be paid by card and the next trip's seat chosen (rail), or a",
        "room chosen (hotels).",
        "Written, with this file, by `make screenshots`",
        "(`.venv/bin/python -m bench.screenshots [--sites rail,hotels]`, about a minute):",
        "the screens are the table `SHOTS` in `bench/screenshots.py`; rerun it after a",
        "page changes. Do not edit this file by hand.",
        "",
        "Two sites' home pages side by side:",
    ]
    for pair in BESIDE:
        left, right = (image(site, SHOTS[site][0], "desktop") for site in pair)
        lines += [
            "",
            "| " + " | ".join(f"{captions[site]} (`{site}`)" for site in pair) + " |",
            "|---|---|",
            f'| <img src="{left}" width="400"> | <img src="{right}" width="400"> |',
        ]
    for site, shots in SHOTS.items():
        lines += [
            "",
            f"## {site}",
            "",
            f"«{captions[site]}»; the site's page: [{site}.md]({site}.md).",
            "",
            "| screen | path | desktop | phone |",
            "|---|---|---|---|",
        ]
        for shot in shots:
            desktop, phone = (image(site, shot, screen) for screen in VIEWPORTS)
            lines.append(
                f"| {shot.caption} | `{shot.path}` "
                f'| <a href="{desktop}"><img src="{desktop}" width="320"></a> '
                f'| <a href="{phone}"><img src="{phone}" width="120"></a> |'
            )
    return "\n".join(lines) + "\n"


def shoot(browser: Browser, url: str, screen: str, target: Path) -> None:
    context = browser.new_context(**context_options(VIEWPORTS[screen]))
    page = context.new_page()
    answer = page.goto(url, wait_until="networkidle")
    if answer is None or answer.status != 200:
        raise RuntimeError(f"{url}: answered {answer and answer.status}, not 200")
    page.screenshot(path=target, type="jpeg", quality=QUALITY, animations="disabled", caret="hide")
    context.close()


def prepare(client: httpx.Client, base: str, steps: list[Step]) -> None:
    for path, form in steps:
        answer = client.get(base + path) if form is None else client.post(base + path, data=form)
        if answer.status_code >= 400:
            raise RuntimeError(f"{base}{path}: answered {answer.status_code}: {answer.text[:300]}")


def trajectory(admin: httpx.Client, site: str) -> str:
    """A new trajectory on `site`; the path of the site under it."""
    task = {
        "test_data": {
            "bench_first_domain": site,
            "task": "%HOST%",
            "conditions": [{"event_name": "state_changed"}],
        }
    }
    created = admin.post("/api/trajectories", json={"task": task}).json()
    return f"/t/{created['trajectory_id']}/{site}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default=",".join(SHOTS), help="sites to shoot")
    args = parser.parse_args()
    sites = [s for s in args.sites.split(",") if s]
    unknown = set(sites) - set(SHOTS)
    if unknown:
        parser.error(f"--sites: no screens listed for {', '.join(sorted(unknown))}")
    started = time.perf_counter()
    named = {
        image(site, shot, screen) for site in SHOTS for shot in SHOTS[site] for screen in VIEWPORTS
    }
    for stale in FOLDER.glob("*.jpg"):
        if stale.name not in named:
            stale.unlink()
    with (
        fresh_stack(",".join(sites)) as stack,
        httpx.Client(
            base_url=stack.hub_url, headers={"Authorization": f"Bearer {stack.token}"}, timeout=30
        ) as admin,
        httpx.Client(base_url=stack.hub_url, timeout=30) as client,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=chromium_path(playwright), args=ARGS)
        for site in sites:
            base = trajectory(admin, site)
            prepare(client, base, PREPARE.get(site, []))
            for shot in SHOTS[site]:
                for screen in VIEWPORTS:
                    target = FOLDER / image(site, shot, screen)
                    shoot(browser, f"{stack.hub_url}{base}{shot.path}", screen, target)
            console.print(f"{site}: {len(SHOTS[site]) * len(VIEWPORTS)} screenshots")
        browser.close()
    README.write_text(readme(), encoding="utf-8")
    size = sum(path.stat().st_size for path in FOLDER.glob("*.jpg"))
    console.print(
        f"docs/sites: {size / 2**20:.1f} MiB of screenshots, {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
