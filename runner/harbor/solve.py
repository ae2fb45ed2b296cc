"""An exported task's reference solution (`solution/solve.sh`, Harbor's `oracle` agent): the
oracle harness's solver in the box's own Chromium, from the trial's door on.

    python -m runner.harbor.solve http://start:8000/ /solution/task.json

The task file is the one the trial's door created the trajectory from (its conditions
shifted to the export's date); the solver reads its conditions as the harness does and
acts only through the pages.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from playwright.async_api import async_playwright

from runner.harnesses.oracle import solve_in
from runner.stack.chromium import launch, new_context
from services.core.tasks import load_task


async def solve(start: str, task_file: Path) -> int:
    """The steps the solver took."""
    test_data = load_task(task_file)["test_data"]
    async with async_playwright() as playwright:
        browser = await launch(playwright)
        try:
            context = await new_context(browser)
            ui = await solve_in(
                context, start, str(test_data.get("bench_first_domain")), test_data["conditions"]
            )
            return ui.steps
        finally:
            await browser.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python -m runner.harbor.solve START_URL TASK_FILE")
    steps = asyncio.run(solve(sys.argv[1], Path(sys.argv[2])))
    print(f"solved in {steps} steps")
