"""The sites' chrome and identity (docs/sites.md, "Identity" and "Chrome"): every site's
utility bar and footer, whose links open its information page and write its info screen;
no caption that takes a name a task's path looks for; the region list of the shops that
deliver, chosen by a click; each site's own colours, and `theme=unified` for one look."""

from __future__ import annotations

import html
import importlib
import re

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.http import create, make_task, wait_events

from services.core.sites import registry
from services.kit.chrome import RESERVED, Chrome

SITES = registry().captions


def chrome_of(domain: str) -> Chrome:
    """The site's `CHROME`, beside its app module (services/<site>/chrome.py)."""
    site = registry().site(domain)
    assert site is not None
    chrome: Chrome = importlib.import_module(f"{site.app.rsplit('.', 1)[0]}.chrome").CHROME
    return chrome


@pytest.mark.parametrize("domain", SITES)
def test_no_caption_takes_a_name_a_path_looks_for(domain: str) -> None:
    chrome = chrome_of(domain)
    taken = [*RESERVED, *(caption.casefold() for caption in SITES.values())]
    for link in chrome.links():
        clash = [name for name in taken if name in link.caption.casefold()]
        assert not clash, (link.caption, clash)
    # One slug, one caption: a slug's page says what every link to it says.
    captions: dict[str, str] = {}
    for link in chrome.links():
        assert captions.setdefault(link.slug, link.caption) == link.caption, link.slug
    footer = sum(len(column.links) for column in chrome.columns) + len(chrome.apps)
    assert footer >= 20 and 3 <= len(chrome.columns) <= 5
    screens = registry().site(domain).hook("screens")()  # type: ignore[union-attr]
    assert chrome.screen in screens


def open_site(hub: httpx.Client, domain: str, **variants: str) -> tuple[str, str]:
    """A trajectory on `domain`'s front page: its id and the page's address."""
    created = create(hub, make_task([{"event_name": "state_changed"}], domain=domain), **variants)
    return created.trajectory_id, f"{created.url}{domain}/"


# `make test` clicks through two sites' chrome (the kit draws it the same on all six, and
# every link of every front page is fetched below); `make test-full` all six.
CLICKED = ("shop", "rail")


@pytest.mark.parametrize(
    "domain", [pytest.param(d, marks=() if d in CLICKED else pytest.mark.full) for d in SITES]
)
def test_a_footer_link_opens_the_sites_information_page(
    domain: str, page: Page, hub: httpx.Client, agent: httpx.Client
) -> None:
    chrome = chrome_of(domain)
    tid, url = open_site(hub, domain)
    page.goto(url)
    footer = page.get_by_role("contentinfo")
    expect(footer.get_by_role("link")).to_have_count(
        sum(len(c.links) for c in chrome.columns) + len(chrome.apps)
    )
    link = chrome.columns[-1].links[0]
    footer.get_by_role("link", name=link.caption, exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(link.caption)
    (shown,) = wait_events(
        hub, tid, lambda e: e["params"].get("new_state") == chrome.screen, timeout=10
    )
    assert shown["params"]["category"] == link.slug and shown["source"] == "server"
    # The utility bar's links lead there too; an unknown slug is the site's missing page.
    header = chrome.header[0]
    page.get_by_role("link", name=header.caption, exact=True).first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text(header.caption)
    assert agent.get(f"{url}info/no-such-page").status_code == 404


@pytest.mark.parametrize("domain", [d for d in SITES if chrome_of(d).regions])
def test_the_region_is_chosen_in_a_list_that_stays_on_the_page(
    domain: str, page: Page, hub: httpx.Client
) -> None:
    regions = chrome_of(domain).regions
    _, url = open_site(hub, domain)
    page.goto(url)
    bar = page.locator(".kit-topbar")
    expect(bar.get_by_text(f"Регион: {regions[0]}")).to_be_visible()
    bar.get_by_text("Регион:").click()
    choice = bar.get_by_role("button", name=regions[2], exact=True)
    expect(bar.get_by_role("button", name=regions[0], exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    choice.click()
    expect(bar.get_by_text(f"Регион: {regions[2]}")).to_be_visible()
    expect(choice).to_be_hidden()  # the list closed; the page is where it was
    assert page.url == url


def accent(page: Page) -> str:
    return page.evaluate(
        "() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()"
    )


def test_each_site_has_its_own_identity_and_unified_keeps_one_look(
    page: Page, hub: httpx.Client
) -> None:
    own, unified = {}, set()
    for domain in SITES:
        page.goto(open_site(hub, domain)[1])
        own[domain] = accent(page)
        page.goto(open_site(hub, domain, ui_variants={"theme": "unified"})[1])
        unified.add(accent(page))
        assert re.search(r'data-theme="unified"', page.content()[:400])
    assert len(set(own.values())) == len(SITES), own  # six accents
    assert unified == {"#1f7a4d"}  # the shell's, on every site


@pytest.mark.parametrize("domain", SITES)
def test_no_link_of_the_front_page_is_a_dead_end(
    domain: str, hub: httpx.Client, agent: httpx.Client
) -> None:
    """Every link of a site's front page (chrome, blocks, menus) answers 200 on the hub."""
    _, url = open_site(hub, domain)
    page = agent.get(url).text
    path = url.split("/t/", 1)[1]
    links = {
        html.unescape(href)
        for href in re.findall(r'href="(/t/[^"#]+)"', page)
        if path.split("/", 1)[0] in href
    }
    assert len(links) >= 20
    for link in sorted(links):
        assert agent.get(link).status_code == 200, link


def test_a_popular_route_on_the_rail_front_page_opens_its_trains(
    page: Page, hub: httpx.Client
) -> None:
    _, url = open_site(hub, "rail")
    page.goto(url)
    routes = page.get_by_role("region", name="Популярные направления").get_by_role("link")
    expect(routes).to_have_count(6)
    name = routes.first.get_attribute("aria-label") or ""
    origin, dest = name.split(": ", 1)[1].split(" — ")
    routes.first.click()
    expect(page.get_by_role("heading", level=2).first).to_be_visible()
    assert "/search?" in page.url and "Поезда" in page.title()
    assert origin in page.content() and dest in page.content()
