"""Chromium for harnesses: Playwright's own build where installed, Debian's otherwise: for
the runner's own headless launches its headless shell where that is installed (the same
Blink without the browser around it: about half the CPU an episode takes), the browser for
harnesses that start their own."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright

from runner.settings import RunnerSettings
from services.core.models.run import Viewport

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = Viewport()
LOCALE = "ru-RU"
TIMEZONE = "Europe/Moscow"
SYSTEM_CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
# Debian's `chromium-headless-shell`.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"


def chromium_path(playwright: Any, shell: bool = True) -> str | None:
    """WPB_CHROMIUM, else Playwright's download if present (None: Playwright picks its own),
    else the system's: its headless shell where installed and `shell`, else the browser."""
    configured = RunnerSettings().chromium
    if configured:
        return configured
    bundled = Path(playwright.chromium.executable_path)
    if bundled.exists():
        return None
    system = (HEADLESS_SHELL, *SYSTEM_CHROMIUM) if shell else SYSTEM_CHROMIUM
    return next((path for path in system if Path(path).exists()), None)


def executable(playwright: Any) -> str:
    """The Chromium browser itself, for harnesses that start one per episode with the
    browser's flags."""
    return chromium_path(playwright, shell=False) or str(playwright.chromium.executable_path)


async def launch(playwright: Playwright, *flags: str) -> Browser:
    """The runner's headless Chromium, with `flags` beside its own."""
    return await playwright.chromium.launch(
        executable_path=chromium_path(playwright), args=[*ARGS, *flags], headless=True
    )


class SharedChromium:
    """One headless Chromium for whatever shares it (the OpenEnv server's sessions, an Inspect
    task's samples): launched with `flags` at first use, on the caller's event loop, and
    again where it went away."""

    def __init__(self, *flags: str) -> None:
        self.flags = flags
        self.playwright: Playwright | None = None
        self.browser: Browser | None = None
        self.lock = asyncio.Lock()

    async def get(self) -> Browser:
        async with self.lock:
            if self.browser is None or not self.browser.is_connected():
                if self.playwright is None:
                    self.playwright = await async_playwright().start()
                self.browser = await launch(self.playwright, *self.flags)
            return self.browser

    async def close(self) -> None:
        if self.browser is not None:
            with contextlib.suppress(Exception):  # gone already
                await self.browser.close()
        if self.playwright is not None:
            await self.playwright.stop()
        self.browser = self.playwright = None


def context_options(viewport: Viewport = VIEWPORT) -> dict[str, Any]:
    """A browser context's options: `viewport`'s (a phone's a mobile context), Russian,
    Moscow time."""
    return {**viewport.context, "locale": LOCALE, "timezone_id": TIMEZONE}


async def new_context(
    browser: Browser, viewport: Viewport = VIEWPORT, downloads: bool = True
) -> BrowserContext:
    return await browser.new_context(**context_options(viewport), accept_downloads=downloads)
