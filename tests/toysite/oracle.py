"""The oracle of Игрушки: ring the bell a `toy_ring` condition names."""

from __future__ import annotations

from runner.harnesses.oracle.ui import UI
from services.core.models.events import Condition


async def solve(ui: UI, conditions: list[Condition]) -> None:
    for condition in conditions:
        if condition["event_name"] != "toy_ring":
            raise ValueError(f"the toy oracle cannot satisfy {condition['event_name']!r}")
        bell = condition.get("parameters", {}).get("bell")
        card = ui.page.locator("article.toy-card", has_text=bell or "")
        await ui.click(card.first.get_by_role("button", name="Позвонить"))
