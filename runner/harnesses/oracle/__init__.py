"""`oracle`: the reference solver. It reads a task's conditions and satisfies them through
the real UI, clicking and typing as an agent would; it never posts events itself.

Each site's solver is declared under the site's domain in the entry-point group
`webpagebench.oracles` (pyproject.toml: the built-in ones are `oracle/<domain>.py`; a site
from another package declares its own there beside its descriptor), an
`async def solve(ui: UI, conditions) -> None`. A solver is given
only the conditions it must make hold: forbidden ones (an event that must not happen) are
left out, so no solver ever works towards one.

A task that requires the agent's report (an `agent_report` condition) is no site's to
solve: the solvers never see it, and the oracle reports the status it names (`done`
otherwise), which the runner logs as the agent's report.

`--option path=alternate` takes the second reference path, another way a person would do
the same task: the keyboard only, the item found by search where the reference browses
the catalogue, a default confirmed in its widget where the reference leaves it alone
(`ui.alternate`). Both paths must solve every task.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib.metadata import entry_points

from playwright.async_api import BrowserContext
from playwright.async_api import Error as PlaywrightError

from runner.errors import InfraError
from runner.harnesses.harness import Episode, Harness, Outcome
from runner.harnesses.oracle.ui import PATHS, UI
from runner.stack.chromium import new_context
from services.core.models.events import Condition
from services.core.models.run import ReportStatus

ENTRY_POINT_GROUP = "webpagebench.oracles"
Solver = Callable[[UI, list[Condition]], Awaitable[None]]
REPORT = "agent_report"
# The oracle's final message for each report.
SAYS: dict[ReportStatus, str] = {
    "done": "Готово.",
    "infeasible": "Так сделать нельзя: такого нет.",
    "needs_input": "Уточните, пожалуйста, что выбрать.",
    "gave_up": "Не получилось.",
}


def solver_for(domain: str) -> Solver | None:
    """The solver declared for the site `domain`; None where none is."""
    for entry in entry_points(group=ENTRY_POINT_GROUP, name=domain):
        solver: Solver = entry.load()
        return solver
    return None


def required(conditions: list[Condition]) -> list[Condition]:
    """The conditions a solver works towards: all but the forbidden ones and the report."""
    return [c for c in conditions if c.get("forbidden") is not True and c["event_name"] != REPORT]


def report_of(conditions: list[Condition]) -> ReportStatus:
    """The status a required `agent_report` condition names; `done` where none does."""
    for condition in conditions:
        status = (condition.get("parameters") or {}).get("status")
        if condition["event_name"] == REPORT and not condition.get("forbidden") and status in SAYS:
            return status
    return "done"


class OracleFailed(RuntimeError):
    """The oracle could not solve the task: a broken task or a broken screen."""


class OracleHarness(Harness):
    name = "oracle"
    needs_browser = True
    observation = "none: it knows the task's conditions"
    action = "Playwright through the sites' pages, as a person clicks and types"

    async def run(self, episode: Episode) -> Outcome:
        if episode.browser is None or not episode.browser.is_connected():
            raise InfraError("the browser is not running")
        context = await new_context(episode.browser, episode.viewport)
        try:
            ui = await solve_in(
                context,
                episode.url,
                episode.first_domain or "",
                episode.conditions,
                episode.agent.options.get("path", PATHS[0]),
                min(15_000, episode.time_limit_s * 1000),
            )
            report = report_of(episode.conditions)
            return Outcome(
                completion=report == "done",
                final_message=SAYS[report],
                report=report,
                steps=ui.steps,
            )
        except PlaywrightError as exc:
            if not episode.browser.is_connected():
                raise InfraError(f"the browser went away: {exc}") from exc
            raise
        finally:
            await context.close()


async def solve_in(
    context: BrowserContext,
    url: str,
    domain: str,
    conditions: list[Condition],
    path: str = PATHS[0],
    timeout_ms: float = 15_000,
) -> UI:
    """The task's conditions made to hold in a new tab of `context`, from `url` on (the
    harness's episode; an exported Harbor task's solve.sh); its hands, with their steps.
    Done only once the pages' own events (widget selections) are stored: every tab's, where
    an item opened in a new one (`tabs=new_tab`)."""
    solver = solver_for(domain)
    if solver is None:
        raise OracleFailed(f"no oracle solver for domain {domain!r}")
    page = await context.new_page()
    page.set_default_timeout(timeout_ms)
    ui = UI(page, domain, path)
    await ui.open(url)
    await solver(ui, required(conditions))
    for tab in context.pages:
        await tab.evaluate("() => window.wpb && window.wpb.settled()")
    return ui
