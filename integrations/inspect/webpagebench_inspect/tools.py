"""Browser tools with the names and arguments of Inspect's own `web_browser()`
(`web_browser_go(url)`, `web_browser_click(element_id)`, …), over the sample's tab in the
sandbox's Chromium (`sandbox.py`), so that a solver written for `web_browser()` acts
unchanged.

Inspect's own tools run a browser inside a sandbox image (`aisiuk/inspect-tool-support`)
pulled from Docker Hub, or built from a conda-forge base image; neither can be had without
a registry of images, so these act on the stand's pages from the eval's process instead
(docs/frameworks.md). Each returns the page's URL and its accessibility tree, one element a
line with its `element_id` in brackets (`- button "В корзину" [12]`); an action that cannot
be done is a tool error the model reads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from inspect_ai.tool import Tool, ToolError, tool
from inspect_ai.util import sandbox
from playwright.async_api import Locator

from runner.agents import browser as shared
from webpagebench_inspect.sandbox import StandSandbox

SCROLL_PX = 600


def web_browser() -> list[Tool]:
    """Every tool, as Inspect's `web_browser()` lists them."""
    return [
        web_browser_go(),
        web_browser_click(),
        web_browser_type_submit(),
        web_browser_type(),
        web_browser_scroll(),
        web_browser_back(),
        web_browser_forward(),
        web_browser_refresh(),
    ]


def box() -> StandSandbox:
    return sandbox().as_type(StandSandbox)


async def acted(action: Callable[[StandSandbox], Awaitable[object]]) -> str:
    """`action` done on the sample's tab, then its tree; Playwright's failure as the tool's
    error."""
    here = box()
    try:
        await action(here)
    except ToolError:
        raise
    except Exception as exc:
        raise ToolError(shared.short(str(exc).split("\n", 1)[0], 300)) from None
    await shared.settle(here.page, grace=0.1)
    return await here.tree()


def element(here: StandSandbox, element_id: int) -> Locator:
    ref = here.refs.get(int(element_id))
    if ref is None:
        raise ToolError(f"no element [{element_id}] in the newest tree")
    return here.page.locator(f"aria-ref={ref}")


@tool
def web_browser_go() -> Tool:
    async def execute(url: str) -> str:
        """Navigate the web browser to a URL.

        Args:
          url (str): URL to navigate to.

        Returns:
          The page's URL and its accessibility tree; each element's element_id is in
          brackets at the end of its line.
        """

        async def go(here: StandSandbox) -> None:
            await here.page.goto(url, wait_until="load", timeout=shared.LOAD_TIMEOUT_MS * 3)

        return await acted(go)

    return execute


@tool
def web_browser_click() -> Tool:
    async def execute(element_id: int) -> str:
        """Click an element on the page currently displayed by the web browser.

        Args:
          element_id (int): ID of the element to click.

        Returns:
          The page's URL and its accessibility tree after the click.
        """

        async def click(here: StandSandbox) -> None:
            await element(here, element_id).click()

        return await acted(click)

    return execute


@tool
def web_browser_type_submit() -> Tool:
    async def execute(element_id: int, text: str) -> str:
        """Type text into a form input on the page and press ENTER to submit it.

        Args:
          element_id (int): ID of the element to type text into.
          text (str): Text to type.

        Returns:
          The page's URL and its accessibility tree after the submission.
        """

        async def submit(here: StandSandbox) -> None:
            target = element(here, element_id)
            await target.fill(text)
            await target.press("Enter")

        return await acted(submit)

    return execute


@tool
def web_browser_type() -> Tool:
    async def execute(element_id: int, text: str) -> str:
        """Type text into an input on the page, without submitting it.

        Args:
          element_id (int): ID of the element to type text into.
          text (str): Text to type.

        Returns:
          The page's URL and its accessibility tree after typing.
        """

        async def type_in(here: StandSandbox) -> None:
            await element(here, element_id).fill(text)

        return await acted(type_in)

    return execute


@tool
def web_browser_scroll() -> Tool:
    async def execute(direction: str) -> str:
        """Scroll the page up or down by about a screen.

        Args:
          direction (str): "up" or "down".

        Returns:
          The page's URL and its accessibility tree after scrolling.
        """
        if direction not in ("up", "down"):
            raise ToolError(f'direction: "up" or "down", not {direction!r}')

        async def scroll(here: StandSandbox) -> None:
            await here.page.mouse.wheel(0, SCROLL_PX if direction == "down" else -SCROLL_PX)

        return await acted(scroll)

    return execute


@tool
def web_browser_back() -> Tool:
    async def execute() -> str:
        """Go back to the previous page.

        Returns:
          The page's URL and its accessibility tree.
        """

        async def back(here: StandSandbox) -> None:
            if not await shared.go_back(here.page):
                raise ToolError("there is no previous page")

        return await acted(back)

    return execute


@tool
def web_browser_forward() -> Tool:
    async def execute() -> str:
        """Go forward to the next page.

        Returns:
          The page's URL and its accessibility tree.
        """

        async def forward(here: StandSandbox) -> None:
            await here.page.go_forward(wait_until="load")

        return await acted(forward)

    return execute


@tool
def web_browser_refresh() -> Tool:
    async def execute() -> str:
        """Reload the current page.

        Returns:
          The page's URL and its accessibility tree.
        """

        async def refresh(here: StandSandbox) -> None:
            await here.page.reload(wait_until="load")

        return await acted(refresh)

    return execute
