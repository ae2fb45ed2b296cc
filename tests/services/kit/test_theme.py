"""The dark theme on every site and the hub: set from the first byte (no flash of light),
readable, and the same DOM otherwise. A screenshot per site is kept in test-artifacts/."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page
from support.http import create, make_task

from services.core.sites import registry

ARTIFACTS = "test-artifacts"


def luminance(css: str) -> float:
    """Relative luminance of an `rgb(...)` colour (WCAG)."""
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def tags(html: str) -> list[str]:
    return re.findall(r"<([a-z0-9-]+)[\s>]", html)


@pytest.mark.parametrize("domain", [*registry().captions, "hub"])
def test_dark_theme_is_readable_from_the_first_byte(
    domain: str, page: Page, hub: httpx.Client, agent: httpx.Client, stack
) -> None:
    site = "grocery" if domain == "hub" else domain
    task = make_task([{"event_name": "state_changed"}], domain=site)
    dark = create(hub, task, ui_variants={"theme": "dark"})
    light = create(hub, task)
    path = "" if domain == "hub" else f"{domain}/"
    first = agent.get(f"{dark.url}{path}").text
    assert re.search(r'<html[^>]*data-theme="dark"', first[:400]), "theme not in the first bytes"
    light_html = agent.get(f"{light.url}{path}").text
    assert tags(first) == tags(light_html)  # the same DOM otherwise

    page.goto(f"{dark.url}{path}")
    body = page.evaluate(
        "() => { const s = getComputedStyle(document.body); return [s.backgroundColor, s.color]; }"
    )
    assert luminance(body[0]) < 0.05, f"background {body[0]} is not dark"
    assert contrast(*body) >= 7, f"text {body[1]} on {body[0]}"
    muted = page.evaluate(
        "() => { const el = document.createElement('span'); el.className = 'muted';"
        " document.body.append(el); return getComputedStyle(el).color; }"
    )
    assert contrast(body[0], muted) >= 4.5, f"muted text {muted} on {body[0]}"
    page.screenshot(path=f"{ARTIFACTS}/{domain}-dark.png", full_page=False)
