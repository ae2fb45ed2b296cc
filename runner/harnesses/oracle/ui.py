"""The oracle's hands: every action goes through the page as a user's would, and is counted."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Locator, Page

from services.kit.variants import DOMAINS


class UI:
    def __init__(self, page: Page, domain: str) -> None:
        self.page = page
        self.domain = domain
        self.steps = 0

    async def open(self, url: str) -> None:
        """Open the hub page, then the task's tab, as an agent given the URL would."""
        await self.page.goto(url)
        self.steps += 1
        await self.click(
            self.page.locator("nav.wpb-tabs").get_by_role("link", name=DOMAINS[self.domain])
        )

    async def click(self, target: Locator) -> None:
        await target.click()
        self.steps += 1
        await self.page.wait_for_load_state()

    async def fill(self, target: Locator, text: str) -> None:
        await target.fill(text)
        self.steps += 1


def target_amount(expected: Any) -> int:
    """The smallest quantity that satisfies an `amount`-like parameter (plain or operator)."""
    if expected is None:
        return 1
    if isinstance(expected, dict):
        value = float(expected["value"])
        op = expected.get("condition", "equal")
        if op == "greater_than":
            return int(value) + 1
        if op in ("less_than", "less_than_or_equal"):
            return 1
        return max(1, int(value + 0.999))
    return int(float(expected))
