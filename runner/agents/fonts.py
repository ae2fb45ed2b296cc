"""The fonts a browser renders with, as a run's manifest records them (runner/run/provenance.py):
a page of Russian and Latin text in each generic family, and the platform fonts DevTools says
it drew each in (`CSS.getPlatformFontsForNode`).

`python -m runner.agents.fonts CDP_URL` prints them as JSON: the docker backend runs it in an
agent image beside a browser container, where only that namespace reaches its DevTools.
"""

from __future__ import annotations

import asyncio
import json
import sys

from playwright.async_api import Browser, async_playwright

# The generic families a page falls back on.
FAMILIES = ("sans-serif", "serif", "monospace")
TEXT = "Съешь же ещё этих мягких булок. Quick brown fox 0123456789"


async def rendered_fonts(browser: Browser) -> dict[str, str]:
    """Generic family -> the platform fonts `browser` draws text of it in, most glyphs first,
    comma-separated."""
    own = not browser.contexts  # a launched browser has none; one over CDP has its default
    context = await browser.new_context() if own else browser.contexts[0]
    page = await context.new_page()
    try:
        body = "".join(
            f'<p id="f{i}" style="font-family:{family}">{TEXT}</p>'
            for i, family in enumerate(FAMILIES)
        )
        await page.set_content(f'<html lang="ru"><body>{body}</body></html>')
        cdp = await context.new_cdp_session(page)
        await cdp.send("DOM.enable")
        await cdp.send("CSS.enable")
        root = (await cdp.send("DOM.getDocument"))["root"]["nodeId"]
        fonts = {}
        for i, family in enumerate(FAMILIES):
            node = await cdp.send("DOM.querySelector", {"nodeId": root, "selector": f"#f{i}"})
            used = await cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
            ranked = sorted(used["fonts"], key=lambda f: -f["glyphCount"])
            fonts[family] = ", ".join(f["familyName"] for f in ranked)
        return fonts
    finally:
        await page.close()
        if own:
            await context.close()


async def fonts_over_cdp(cdp_url: str) -> dict[str, str]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(cdp_url)
        try:
            return await rendered_fonts(browser)
        finally:
            await browser.close()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(fonts_over_cdp(sys.argv[1])), ensure_ascii=False))
