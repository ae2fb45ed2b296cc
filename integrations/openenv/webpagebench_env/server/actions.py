"""BrowserGym's high-level actions, read as data and done with Playwright.

An action string is one call or several (one per line), each a function of BrowserGym's
action set with literal arguments: `click('e12')`, `fill('e7', 'Москва')`,
`select_option('e9', ['Эконом'])`, `mouse_click(640, 400)`, `send_msg_to_user('Готово')`.
Nothing is executed as code: the string is parsed (`ast`), each call checked against its
signature, and a call of anything else is refused with the list of what is known. An
element id (`bid`) is a `[ref=…]` of the newest accessibility tree.

Besides BrowserGym's, `report(status, message)` ends the episode with any of the runner's
reports (`done`, `infeasible`, `needs_input`, `gave_up`); `send_msg_to_user(text)` is
`done` with that message and `report_infeasible(reason)` is `infeasible`.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, get_args
from urllib.parse import urljoin

from playwright.async_api import BrowserContext, Locator, Page, Request

from runner.agents import browser as shared
from webpagebench_env.models import ReportStatus

MAX_CALLS = 20
# What a site may keep in the browser besides cookies, cleared between a tab's episodes.
STORAGE = "local_storage,indexeddb,cache_storage,service_workers,file_systems,shared_storage"
# How long an action's requests may take to be answered before the page is read anyway.
QUIET_S = 5.0
# BrowserGym's mouse buttons and modifier names, as Playwright takes them.
BUTTONS = ("left", "middle", "right")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


class ActionError(ValueError):
    """An action that cannot be read or failed on the page: the observation's
    `last_action_error`; the episode goes on."""


@dataclass(frozen=True)
class Report:
    """The action that ends the episode: the agent's report."""

    status: ReportStatus
    message: str


@dataclass
class Tabs:
    """The episode's browser context and its pages, one of them the active tab; `tree` the
    newest accessibility snapshot, whose refs the element ids are; `loading` the context's
    requests under way (`watch`)."""

    context: BrowserContext
    pages: list[Page]
    active: int = 0
    tree: str = ""
    loading: set[Request] = field(default_factory=set)

    def watch(self) -> None:
        """Keep `loading`: every request the context sends until it is answered or fails."""

        def sent(request: Request) -> None:  # Playwright tags a handler: a function
            self.loading.add(request)

        def ended(request: Request) -> None:
            self.loading.discard(request)

        self.context.on("request", sent)
        self.context.on("requestfinished", ended)
        self.context.on("requestfailed", ended)

    async def quiet(self, timeout: float = QUIET_S) -> None:
        """Wait until no request is under way (what a click's script sent has its answer:
        a cart's count, the site's event), for at most `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while self.loading and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    async def cleared(self, origin: str) -> Page:
        """The tab ready for another episode: the others closed, the context's cookies and
        `origin`'s storage cleared (its history goes after the next page: `forget`)."""
        live = [page for page in self.pages if not page.is_closed()]
        for page in live[1:]:
            await page.close()
        page = live[0] if live else await self.context.new_page()
        if not live:
            await shared.prepare(page)
        await self.context.clear_cookies()
        session = await self.context.new_cdp_session(page)
        try:
            cleared = {"origin": origin, "storageTypes": STORAGE}
            await session.send("Storage.clearDataForOrigin", cleared)
        finally:
            await session.detach()
        self.pages, self.active, self.tree = [page], 0, ""
        self.loading.clear()
        return page

    async def forget(self) -> None:
        """The tab's history dropped but for its page (no way back to an episode before)."""
        session = await self.context.new_cdp_session(self.page)
        try:
            await session.send("Page.resetNavigationHistory")
        finally:
            await session.detach()

    @property
    def page(self) -> Page:
        return self.pages[self.active]

    def element(self, bid: Any) -> Locator:
        ref = str(bid).strip().strip("[]").removeprefix("ref=")
        if not ref or f"[ref={ref}]" not in self.tree:
            raise ActionError(f"no element [ref={ref}] in the newest tree")
        return self.page.locator(f"aria-ref={ref}")


Handler = Callable[..., Awaitable[Report | None]]
HANDLERS: dict[str, Handler] = {}


def action(handler: Handler) -> Handler:
    HANDLERS[handler.__name__] = handler
    return handler


@dataclass(frozen=True)
class Call:
    name: str
    args: list[Any]
    kwargs: dict[str, Any]


def parse(text: str) -> list[Call]:
    """The calls of an action string, each checked against its signature; ActionError
    saying what is wrong otherwise."""
    try:
        tree = ast.parse(text.strip(), mode="exec")
    except SyntaxError as exc:
        raise ActionError(f"not an action: {exc.msg} at line {exc.lineno}") from None
    if not tree.body:
        raise ActionError("no action given")
    if len(tree.body) > MAX_CALLS:
        raise ActionError(f"at most {MAX_CALLS} actions at once")
    calls = []
    for statement in tree.body:
        node = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ActionError(f"not a call of an action: {ast.unparse(statement)[:80]}")
        name = node.func.id
        if name not in HANDLERS:
            known = ", ".join(sorted(HANDLERS))
            raise ActionError(f"unknown action {name!r}; the actions: {known}")
        try:
            args = [ast.literal_eval(a) for a in node.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except ValueError:
            raise ActionError(f"{name}: arguments are literals (strings, numbers, lists)") from None
        try:
            inspect.signature(HANDLERS[name]).bind(None, *args, **kwargs)
        except TypeError as exc:
            raise ActionError(f"{name}: {exc}") from None
        calls.append(Call(name, args, kwargs))
    reports = [i for i, c in enumerate(calls) if c.name in ENDING]
    if reports and reports[0] != len(calls) - 1:
        raise ActionError("a report ends the episode: it must be the last action")
    return calls


async def perform(tabs: Tabs, calls: list[Call]) -> Report | None:
    """Do the calls in order on the active tab; the report where the last one ends the
    episode. The first that fails raises ActionError, the rest are not done."""
    report = None
    for call in calls:
        try:
            report = await HANDLERS[call.name](tabs, *call.args, **call.kwargs)
        except ActionError:
            raise
        except Exception as exc:  # Playwright's own: a timeout, a detached element
            message = str(exc).split("\n", 1)[0]
            raise ActionError(f"{call.name}: {shared.short(message, 300)}") from None
        if call.name not in ENDING:
            # The time a click or key gives a navigation to start (the old document is still
            # "complete" until the new one commits), then its load and every request it sent.
            await shared.settle(tabs.page, grace=0.1)
            await tabs.quiet()
    return report


def the_button(value: str) -> Any:
    if value not in BUTTONS:
        raise ActionError(f"button: one of {', '.join(BUTTONS)}, not {value!r}")
    return value


def the_modifiers(value: list[str]) -> Any:
    wrong = [m for m in value if m not in MODIFIERS]
    if wrong:
        raise ActionError(f"modifiers: each one of {', '.join(MODIFIERS)}, not {wrong}")
    return value


def number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ActionError(f"{name}: a number, not {value!r}")
    return float(value)


# -- on elements (bid) ---------------------------------------------------------------


@action
async def click(
    tabs: Tabs, bid: str, button: str = "left", modifiers: list[str] | None = None
) -> None:
    target = tabs.element(bid)
    await target.click(button=the_button(button), modifiers=the_modifiers(modifiers or []))


@action
async def dblclick(
    tabs: Tabs, bid: str, button: str = "left", modifiers: list[str] | None = None
) -> None:
    target = tabs.element(bid)
    await target.dblclick(button=the_button(button), modifiers=the_modifiers(modifiers or []))


@action
async def hover(tabs: Tabs, bid: str) -> None:
    await tabs.element(bid).hover()


@action
async def fill(tabs: Tabs, bid: str, value: str, enable_autocomplete_menu: bool = False) -> None:
    target = tabs.element(bid)
    if enable_autocomplete_menu:  # typed key by key, as BrowserGym does, so suggestions open
        await target.fill("")
        await target.press_sequentially(str(value))
    else:
        await target.fill(str(value))


@action
async def select_option(tabs: Tabs, bid: str, options: str | list[str]) -> None:
    chosen = [options] if isinstance(options, str) else [str(o) for o in options]
    target = tabs.element(bid)
    try:
        await target.select_option(label=chosen)
    except Exception:
        await target.select_option(value=chosen)


@action
async def check(tabs: Tabs, bid: str) -> None:
    await tabs.element(bid).check()


@action
async def uncheck(tabs: Tabs, bid: str) -> None:
    await tabs.element(bid).uncheck()


@action
async def clear(tabs: Tabs, bid: str) -> None:
    await tabs.element(bid).clear()


@action
async def focus(tabs: Tabs, bid: str) -> None:
    await tabs.element(bid).focus()


@action
async def press(tabs: Tabs, bid: str, key_comb: str) -> None:
    await tabs.element(bid).press(str(key_comb))


@action
async def drag_and_drop(tabs: Tabs, from_bid: str, to_bid: str) -> None:
    await tabs.element(from_bid).drag_to(tabs.element(to_bid))


# -- at coordinates and on the keyboard -----------------------------------------------


@action
async def mouse_move(tabs: Tabs, x: float, y: float) -> None:
    await tabs.page.mouse.move(number(x, "x"), number(y, "y"))


@action
async def mouse_click(tabs: Tabs, x: float, y: float, button: str = "left") -> None:
    await tabs.page.mouse.click(number(x, "x"), number(y, "y"), button=the_button(button))


@action
async def mouse_dblclick(tabs: Tabs, x: float, y: float, button: str = "left") -> None:
    await tabs.page.mouse.dblclick(number(x, "x"), number(y, "y"), button=the_button(button))


@action
async def mouse_down(tabs: Tabs, x: float, y: float, button: str = "left") -> None:
    await tabs.page.mouse.move(number(x, "x"), number(y, "y"))
    await tabs.page.mouse.down(button=the_button(button))


@action
async def mouse_up(tabs: Tabs, x: float, y: float, button: str = "left") -> None:
    await tabs.page.mouse.move(number(x, "x"), number(y, "y"))
    await tabs.page.mouse.up(button=the_button(button))


@action
async def mouse_drag_and_drop(
    tabs: Tabs, from_x: float, from_y: float, to_x: float, to_y: float
) -> None:
    mouse = tabs.page.mouse
    await mouse.move(number(from_x, "from_x"), number(from_y, "from_y"))
    await mouse.down()
    await mouse.move(number(to_x, "to_x"), number(to_y, "to_y"), steps=5)
    await mouse.up()


@action
async def scroll(tabs: Tabs, delta_x: float, delta_y: float) -> None:
    await tabs.page.mouse.wheel(number(delta_x, "delta_x"), number(delta_y, "delta_y"))


@action
async def keyboard_press(tabs: Tabs, key: str) -> None:
    await tabs.page.keyboard.press(str(key))


@action
async def keyboard_down(tabs: Tabs, key: str) -> None:
    await tabs.page.keyboard.down(str(key))


@action
async def keyboard_up(tabs: Tabs, key: str) -> None:
    await tabs.page.keyboard.up(str(key))


@action
async def keyboard_type(tabs: Tabs, text: str) -> None:
    await tabs.page.keyboard.type(str(text))


@action
async def keyboard_insert_text(tabs: Tabs, text: str) -> None:
    await tabs.page.keyboard.insert_text(str(text))


# -- navigation and tabs ----------------------------------------------------------------


@action
async def goto(tabs: Tabs, url: str) -> None:
    address = urljoin(tabs.page.url, str(url).strip())
    if not address.startswith(("http://", "https://")):
        raise ActionError(f"goto: not a web address: {url!r}")
    await tabs.page.goto(address, wait_until="load", timeout=shared.LOAD_TIMEOUT_MS * 3)


@action
async def go_back(tabs: Tabs) -> None:
    if not await shared.go_back(tabs.page):
        raise ActionError("go_back: there is no previous page")


@action
async def go_forward(tabs: Tabs) -> None:
    await tabs.page.go_forward(wait_until="commit", timeout=shared.LOAD_TIMEOUT_MS)


@action
async def new_tab(tabs: Tabs) -> None:
    page = await tabs.context.new_page()
    await shared.prepare(page)
    tabs.pages.append(page)
    tabs.active = len(tabs.pages) - 1


@action
async def tab_focus(tabs: Tabs, index: int) -> None:
    if not isinstance(index, int) or not 0 <= index < len(tabs.pages):
        raise ActionError(f"tab_focus: index 0..{len(tabs.pages) - 1}, not {index!r}")
    tabs.active = index
    await tabs.page.bring_to_front()


@action
async def tab_close(tabs: Tabs) -> None:
    if len(tabs.pages) == 1:
        raise ActionError("tab_close: the last tab stays open")
    await tabs.pages.pop(tabs.active).close()
    tabs.active = max(0, tabs.active - 1)


@action
async def noop(tabs: Tabs, wait_ms: float = 1000) -> None:
    await tabs.page.wait_for_timeout(min(number(wait_ms, "wait_ms"), 10_000))


# -- the end ----------------------------------------------------------------------------


@action
async def send_msg_to_user(tabs: Tabs, text: str) -> Report:
    return Report("done", str(text))


@action
async def report_infeasible(tabs: Tabs, reason: str) -> Report:
    return Report("infeasible", str(reason))


@action
async def report(tabs: Tabs, status: str, message: str = "") -> Report:
    if status not in get_args(ReportStatus):
        raise ActionError(f"report: status one of {', '.join(get_args(ReportStatus))}")
    return Report(status, str(message))  # type: ignore[arg-type]


ENDING = frozenset({"send_msg_to_user", "report_infeasible", "report"})
