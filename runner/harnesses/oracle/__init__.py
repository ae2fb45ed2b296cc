"""`oracle`: the reference solver. It reads a task's conditions and satisfies them through
the real UI, clicking and typing as an agent would; it never posts events itself.

Each site's descriptor names its solver (`SiteDescriptor.oracle`; the built-in ones are
`oracle/<domain>.py`), an `async def solve(ui: UI, conditions) -> None`. A solver is given
only the conditions it must make hold: forbidden ones (an event that must not happen) are
left out, so no solver ever works towards one.

`--option path=alternate` takes the second reference path, another way a person would do
the same task: the keyboard only, the item found by search where the reference browses
the catalogue, a default confirmed in its widget where the reference leaves it alone
(`ui.alternate`). Both paths must solve every task.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError

from runner.chromium import new_context
from runner.harness import Episode, InfraError, Outcome
from runner.harnesses.oracle.ui import PATHS, UI
from services.core.models.events import Condition
from services.core.sites import registry

Solver = Callable[[UI, list[Condition]], Awaitable[None]]


def solver_for(domain: str) -> Solver | None:
    site = registry().site(domain)
    return site.hook("oracle") if site else None


def required(conditions: list[Condition]) -> list[Condition]:
    """The conditions a solver works towards: all but the forbidden ones."""
    return [c for c in conditions if c.get("forbidden") is not True]


class OracleFailed(RuntimeError):
    """The oracle could not solve the task: a broken task or a broken screen."""


class OracleHarness:
    name = "oracle"
    needs_browser = True

    async def run(self, episode: Episode) -> Outcome:
        if episode.browser is None or not episode.browser.is_connected():
            raise InfraError("the browser is not running")
        solver = solver_for(episode.first_domain or "")
        if solver is None:
            raise OracleFailed(f"no oracle solver for domain {episode.first_domain!r}")
        context = await new_context(episode.browser)
        try:
            page = await context.new_page()
            page.set_default_timeout(min(15_000, episode.time_limit_s * 1000))
            ui = UI(page, episode.first_domain or "", episode.agent.options.get("path", PATHS[0]))
            await ui.open(episode.url)
            await solver(ui, required(episode.conditions))
            # Done only once the page's own events (widget selections) are stored.
            await page.evaluate("() => window.wpb && window.wpb.settled()")
            return Outcome(completion=True, final_message="Готово.", steps=ui.steps)
        except PlaywrightError as exc:
            if not episode.browser.is_connected():
                raise InfraError(f"the browser went away: {exc}") from exc
            raise
        finally:
            await context.close()
