"""A site in a Chromium page, and the screens and covering design the page tests run at."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import count
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page

from runner.stack.chromium import VIEWPORT
from services.core import perturb
from services.core.models.api import CreatedTrajectory
from services.core.models.run import Viewport
from services.core.sites import registry
from support.http import create, make_task

# The screens page tests run at: the default and a phone's (the sites' narrow layout).
SCREENS = (VIEWPORT, Viewport(width=390, height=844))


def site_tab(page: Page, domain: str) -> Locator:
    """The tab of `domain`'s site in the page shell's «Разделы», by its caption in the site
    registry (every page of a trajectory shows them, its hub page too)."""
    caption = registry().captions[domain]
    return page.get_by_role("navigation", name="Разделы").get_by_role("link", name=caption)


def open_site(
    page: Page,
    hub: httpx.Client,
    domain: str,
    task: dict[str, Any] | None = None,
    path: str | None = None,
    **body: Any,
) -> CreatedTrajectory:
    """A new trajectory of `task` (by default one `state_changed` on `domain`; `body` the rest
    of what creates it, `ui_variants=` say) with `domain`'s site open in `page`: reached from
    the trajectory's hub page by the site's tab, as a person comes to it, or with `path`
    opened at that address under the site's (`""` its first page)."""
    task = task or make_task([{"event_name": "state_changed"}], domain=domain)
    created = create(hub, task, **body)
    if path is None:
        page.goto(created.url)
        site_tab(page, domain).click()
        page.wait_for_url(f"**/{domain}/")
    else:
        page.goto(f"{created.url}{domain}/{path}")
    return created


def perturbations() -> list[dict[str, str]]:
    """The page as it is (`{}`), then every perturbation's implementation as the `ui_variants`
    that select it (`{"layout": "lazy"}`), in the order of services/core/perturb.py."""
    chosen = [{key: impl} for key, impls in perturb.KEYS.items() for impl in impls]
    return [{}, *(variants for variants in chosen if perturb.NONE not in variants.values())]


def covering_screen(variants: dict[str, str], domain: str) -> Viewport:
    """The one screen the default selection runs `variants` (one of `perturbations()`) on
    `domain` at: a Latin square whose rows are the perturbations and whose columns the sites
    (the registry's order), so every pair is run once and, with at least as many rows and
    columns as screens, every perturbation and every site at every screen."""
    row = perturbations().index(variants)
    column = list(registry().captions).index(domain)
    return SCREENS[(row + column) % len(SCREENS)]


def page_matrix(cases: Iterable[tuple[dict[str, str], str]]) -> pytest.MarkDecorator:
    """Parametrizes a page test by `variants`, `domain` and `screen_page` (a page at a screen,
    the fixture's parameter): every case (`variants`, `domain`) at every screen, the whole
    product, where those off the covering design (`covering_screen`) are marked `full`: the
    default selection (`-m "not full"`) runs each case once, `make test-full` all of them."""
    params = []
    for variants, domain in cases:
        named = [f"{key}={impl}" for key, impl in variants.items()] or [perturb.NONE]
        for screen in SCREENS:
            covered = screen == covering_screen(variants, domain)
            params.append(
                pytest.param(
                    variants,
                    domain,
                    screen,
                    id="-".join([*named, domain, screen.name]),
                    marks=() if covered else pytest.mark.full,
                )
            )
    return pytest.mark.parametrize(
        ("variants", "domain", "screen_page"), params, indirect=["screen_page"]
    )


def cover_screens(items: list[pytest.Item]) -> None:
    """A test that takes `screen_page` as the fixture gives it (both screens; not through
    `page_matrix` or a `parametrize` of its own, which keep their design) runs at every
    screen under `make test-full`; under the default selection at one, the next screen for
    each next such test of its module (the first at the desktop's, the second at the
    phone's, ...), so that each module's tests meet every screen: the others are `full`."""
    turns: dict[str, count[int]] = {}
    cases: dict[tuple[str, str, str], list[pytest.Item]] = {}
    for item in items:
        params = dict(item.callspec.params) if hasattr(item, "callspec") else {}
        chosen = (m.args[0] for m in item.iter_markers("parametrize"))
        if "screen_page" not in params or any("screen_page" in names for names in chosen):
            continue
        del params["screen_page"]
        module = item.nodeid.split("::")[0]
        key = (module, getattr(item, "originalname", item.name), repr(sorted(params.items())))
        cases.setdefault(key, []).append(item)
    for (module, _, _), case in cases.items():
        covered = SCREENS[next(turns.setdefault(module, count())) % len(SCREENS)]
        for item in case:
            if item.callspec.params["screen_page"] != covered:
                item.add_marker(pytest.mark.full)
