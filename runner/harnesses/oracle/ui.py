"""The oracle's hands: every action goes through the page as a user's would, and is counted.

Two paths: `reference` points and clicks; `alternate` (the second reference path) uses the
keyboard only — Enter or Space on the focused control, keys typed one by one, arrows and
Enter in a list — so a widget that only a mouse can drive fails the suite.

Either path copes with the shell's perturbations (services/core/perturb.py) as a person
does: it answers the consent and closes the promo by their buttons whenever one covers the
page, waits after each click until «Загрузка…» is gone and the browser has the next page,
and scrolls a target out from under the sticky banner; it clicks once.

Every click copes with the page shell's perturbations as a person would (docs/tasks.md,
"Perturbations"): a card a lazy list has not loaded yet is scrolled to, one on another page
of a paginated list is paged to; a link that opens a new tab is followed there; a session
that has expired is logged in again with the account the hub page showed."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Locator, Page, Request, Response

from services.core.matching import value_matches
from services.core.models.events import Parameters
from services.core.sites import registry

PATHS = ("reference", "alternate")
# The shell's perturbations as a person meets them (kit/overlay.html): each dialog by its
# name and the button that answers it, the busy indicator, the sticky banner.
DIALOGS = {"Мы используем файлы cookie": "Принять", "Скидка 10% на первый заказ": "Закрыть"}
BUSY = "Загрузка…"
STICKY = "Приложение"
# The longest wait for a page the browser is still loading after a click.
LOADING_S = 15


# What a click needs to know of its target, in one call to the page: the list perturbation
# (`lazy`, `paginated`) whose list still hides the target's card (null when none does), an
# input's type, whether it is (in) a link that opens a new tab (`tabs=new_tab`), and whether
# it posts to the site (a form's submit button, a payment method the page sends, a
# `clickables=divs` div that sends its form).
TARGET_FACTS = """el => {
  const list = el.closest("[data-kit-list]");
  const card = list && [...list.children].find((c) => c.contains(el));
  return {
    hiddenIn: card && card.hidden ? list.dataset.kitList : null,
    kind: el.tagName === "INPUT" ? el.type : "",
    newTab: el.closest("a[href]")?.target === "_blank",
    posts: el.closest("form[method=post]") !== null && el.matches(
      "button:not([type=button]), input[type=submit], input[data-pay-method], [data-click=submit]"
    ),
  };
}"""
LOGIN_SCREEN = re.compile(r"/_session/login$")


def site_post(response: Response) -> bool:
    """A post of the page to its site (not its own events)."""
    request = response.request
    return request.method == "POST" and "/_events" not in request.url


class UI:
    def __init__(self, page: Page, domain: str, path: str = "reference") -> None:
        if path not in PATHS:
            raise ValueError(f"path: expected one of {', '.join(PATHS)}, got {path!r}")
        self.page = page
        self.domain = domain
        # The second reference path: keyboard only, and the other natural choices.
        self.alternate = path == "alternate"
        self.steps = 0
        # Opened on a screen of the task's site: a recovery task's start state, whose
        # state the solver reads there before it acts (docs/tasks.md, "Start state").
        self.resumed = False
        # The navigations the browser is loading (what its tab's spinner shows).
        self.loading: set[Request] = set()
        # The test account the hub page shows where a site's session may expire.
        self.account: tuple[str, str] | None = None
        page.on("request", self._requested)
        page.on("requestfinished", self._loaded)
        page.on("requestfailed", self._loaded)

    def _loaded(self, request: Request) -> None:
        self.loading.discard(request)

    def _requested(self, request: Request) -> None:
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.loading.add(request)

    async def open(self, url: str) -> None:
        """Open the hub page, then the task's tab, as an agent given the URL would; a URL
        that opens on a screen of the task's site (a start state's) is left there."""
        for name, button in DIALOGS.items():
            dialog = self.page.get_by_role("dialog", name=name)
            await self.page.add_locator_handler(
                dialog, lambda d=dialog, b=button: self.click(d.get_by_role("button", name=b))
            )
        await self.page.goto(url)
        self.steps += 1
        shown = self.page.locator(".hub-account")
        if await shown.count():
            login = await shown.get_by_test_id("account-login").inner_text()
            password = await shown.get_by_test_id("account-password").inner_text()
            self.account = (login.strip(), password.strip())
        if f"/{self.domain}/" in urlsplit(self.page.url).path:
            self.resumed = True
            return
        await self.click(
            self.page.locator("nav.wpb-tabs").get_by_role(
                "link", name=registry().captions[self.domain]
            )
        )

    async def click(self, target: Locator) -> None:
        facts = await self.reveal(target)
        if facts["newTab"]:
            async with self.page.context.expect_page() as opened:
                await self._press(target, facts["kind"])
            self.page = await opened.value
        elif self.account is not None and facts["posts"]:
            # A session that may expire: the site's answer to the post says whether it did.
            async with self.page.expect_response(site_post) as answer:
                await self._press(target, facts["kind"])
            if expired(await answer.value):
                await self.log_in_again()
        else:
            await self._press(target, facts["kind"])
        self.steps += 1
        await self.settle()

    async def _press(self, target: Locator, kind: str) -> None:
        if self.alternate:
            # Space toggles a box or a radio; Enter presses a button or follows a link.
            await target.press(" " if kind in ("checkbox", "radio") else "Enter")
        else:
            await self._clear_of_banner(target)
            await target.click()

    async def settle(self) -> None:
        """Wait for what an action started: the page's «Загрузка…» gone, then the page the
        browser is loading (an answer may come after the page already looks idle)."""
        await self.page.get_by_role("status", name=BUSY).wait_for(state="hidden")
        deadline = time.monotonic() + LOADING_S
        while self.loading and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await self.page.wait_for_load_state()

    async def _clear_of_banner(self, target: Locator) -> None:
        """Under a sticky banner the target scrolls to the middle of the viewport first."""
        if await self.page.get_by_role("complementary", name=STICKY).count():
            await target.evaluate("el => el.scrollIntoView({block: 'center'})")

    async def touch(self, target: Locator) -> None:
        """Reach a native control before setting it, as a person does: a click, or with the
        keyboard the key that opens it. The page logs it, so the selection that follows is
        not `unprompted` in the verdict."""
        if self.alternate:
            await target.focus()
            await target.press("Alt+ArrowDown")
        else:
            await self._clear_of_banner(target)
            await target.click()

    async def fill(self, target: Locator, text: str) -> None:
        if self.alternate:
            await target.press("ControlOrMeta+a")
            await target.press("Delete")
            await target.press_sequentially(text)
        else:
            await target.fill(text)
        self.steps += 1

    async def reveal(self, target: Locator) -> dict[str, Any]:
        """Bring a card a list perturbation hides into view (`layout=lazy`: scroll to the end
        of the list until it loads; `layout=paginated`: page to it from the first page);
        the target's facts (`TARGET_FACTS`) once it shows."""
        for _ in range(60):
            facts: dict[str, Any] = await target.evaluate(TARGET_FACTS)
            kind = facts["hiddenIn"]
            if kind is None:
                return facts
            if kind == "lazy":
                await self.page.mouse.wheel(0, 2000)
                self.steps += 1
                await self.page.wait_for_timeout(250)
                continue
            pager = self.page.get_by_role("navigation", name="Страницы списка").first
            first = pager.get_by_role("button", name="Страница 1", exact=True)
            if await first.get_attribute("aria-current") != "page":
                await self.click(first)
            else:
                await self.click(pager.get_by_role("button", name="Вперёд"))
        raise LookupError("the list never shows the card")

    async def log_in_again(self) -> None:
        """Log in on an expired session's login screen with the hub page's account; the site
        then makes the refused action itself, once."""
        assert self.account is not None
        await self.page.wait_for_url(LOGIN_SCREEN)
        form = self.page.locator("form[data-kit-login]")
        await self.fill(form.get_by_label("Логин"), self.account[0])
        await self.fill(form.get_by_label("Пароль"), self.account[1])
        await self._press(form.get_by_role("button", name="Войти"), "")
        self.steps += 1
        await self.page.wait_for_url(lambda url: "/_session/login" not in url)
        await self.page.wait_for_load_state()


# Each element's attributes, read in one call to the page: a call per attribute and element
# costs a round trip to the browser each (62 cards × 3 attributes: 1.6 s; in one call 0.07 s).
ATTRIBUTES = "(els, names) => els.map(el => names.map(name => el.getAttribute(name)))"


async def first_match(items: Locator, facts: dict[str, str], wanted: Parameters) -> Locator | None:
    """The first of `items` whose facts (a fact's name -> the attribute that holds it) match
    `wanted` on every fact it names (`value_matches`); None when none does."""
    rows = await items.evaluate_all(ATTRIBUTES, list(facts.values()))
    for index, values in enumerate(rows):
        found = dict(zip(facts, values, strict=True))
        if all(value_matches(v, found[k]) for k, v in wanted.items() if k in found):
            return items.nth(index)
    return None


def expired(answer: Response) -> bool:
    """Whether a post's answer is an expired session's: the script's 401, the form's 303 to
    the login screen."""
    location = answer.headers.get("location") or ""
    return answer.status == 401 or (answer.status == 303 and "/_session/login" in location)


def plain(value: Any) -> Any:
    """The value a plain or `{"value", "condition": "equal"}` parameter asks for."""
    if isinstance(value, dict) and "condition" in value:
        return value.get("value")
    return value


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


# -- the kit's shared widgets (services/kit/static/widgets), under every implementation ----

MONTHS_RU = [
    "Январь",
    "Февраль",
    "Март",
    "Апрель",
    "Май",
    "Июнь",
    "Июль",
    "Август",
    "Сентябрь",
    "Октябрь",
    "Ноябрь",
    "Декабрь",
]


def dotted(iso: str) -> str:
    """2026-09-15 -> 15.09.2026"""
    year, month, day = iso.split("-")
    return f"{day}.{month}.{year}"


async def choose_option(ui: UI, root: Locator, label: str) -> None:
    """Choose `label` in a kit combobox (`autocomplete`/`typeahead`) or its `native_select`."""
    if await root.get_attribute("data-impl") == "native_select":
        select = root.locator("select")
        await ui.touch(select)
        await select.select_option(label=label)
        ui.steps += 1
        return
    field = root.get_by_role("combobox")
    await ui.fill(field, label.split(",")[0])
    quoted = json.dumps(label, ensure_ascii=False)
    option = root.get_by_role("option").and_(root.locator(f"[data-label={quoted}]"))
    if not ui.alternate:
        await ui.click(option)
        return
    wanted = await option.get_attribute("id")
    for _ in range(await root.get_by_role("option").count()):
        await field.press("ArrowDown")
        ui.steps += 1
        if await field.get_attribute("aria-activedescendant") == wanted:
            await field.press("Enter")
            ui.steps += 1
            return
    raise LookupError(f"the arrow keys never reach the option {label!r}")


async def _grid_pick(ui: UI, scope: Locator, iso: str) -> None:
    """Turn a month grid to the target's month and press the day."""
    year, month = int(iso[:4]), int(iso[5:7])
    title = f"{MONTHS_RU[month - 1]} {year}"
    for _ in range(36):
        shown = (await scope.locator(".wpb-cal-title").first.inner_text()).strip()
        if shown == title:
            break
        name, number = shown.split()
        later = (year, month) > (int(number), MONTHS_RU.index(name) + 1)
        await ui.click(scope.locator(".wpb-cal-next" if later else ".wpb-cal-prev").first)
    await ui.click(scope.locator(f'button[data-date="{iso}"]'))


async def pick_date(ui: UI, root: Locator, slot: int, iso: str) -> None:
    """Set slot `slot` of a kit date field to `iso` through the implementation on the page."""
    impl = await root.get_attribute("data-impl")
    if impl in ("text_input", "native_input"):
        field = root.locator(".wpb-date-input").nth(slot)
        if impl == "native_input" and ui.alternate:
            # Chromium's date field takes digits segment by segment, in the order of the
            # browser's own locale (headless: month first): type, look, retype if needed.
            year, month, day = iso.split("-")
            for digits in (month + day + year, day + month + year):
                await field.focus()
                for _ in range(3):  # back to the first segment
                    await field.press("ArrowLeft")
                await field.press_sequentially(digits)
                ui.steps += 1
                if await field.input_value() == iso:
                    break
        else:
            await ui.touch(field)
            await ui.fill(field, dotted(iso) if impl == "text_input" else iso)
        await field.press("Enter")
        ui.steps += 1
        return
    if impl == "inline_calendar":
        await _grid_pick(ui, root, iso)
        return
    if impl == "single_popup":
        trigger = root.locator(".wpb-date-trigger")
        popup = root.locator(".wpb-date-popup")
    else:  # split_popup, popup_grid: a button and a popup per slot
        trigger = root.locator(".wpb-date-trigger").nth(slot)
        popup = root.locator(".wpb-date-popup").nth(slot)
    if await trigger.get_attribute("aria-expanded") != "true":
        await ui.click(trigger)
    await _grid_pick(ui, popup, iso)


async def _set_counter(ui: UI, root: Locator, what: str, room: int | None, value: int) -> None:
    selector = f'[data-counter="{what}"][data-room="{"" if room is None else room}"]'
    control = root.locator(selector)
    tag = await control.evaluate("el => el.tagName")
    if tag == "SELECT":
        await control.select_option(str(value))
        ui.steps += 1
        return
    if await control.get_attribute("role") == "radiogroup":
        low = 0 if what == "kids" else 1
        await ui.click(control.get_by_role("radio").nth(value - low))
        return
    for _ in range(12):
        current = int(await control.get_attribute("data-value") or 0)
        if current == value:
            return
        step = "1" if current < value else "-1"
        await ui.click(control.locator(f'button[data-step="{step}"]'))
    raise LookupError(f"the {what} counter does not reach {value}")


async def set_guests(ui: UI, root: Locator, rooms: list[Parameters]) -> None:
    """Set the kit guests counter to `rooms` ([{"adults", "kids": [ages]}]) and confirm."""
    impl = await root.get_attribute("data-impl")
    if impl == "rooms_popup":
        trigger = root.locator(".wpb-guests-trigger")
        if await trigger.get_attribute("aria-expanded") != "true":
            await ui.click(trigger)
        for _ in range(12):
            count = await root.locator("fieldset.wpb-guests-room").count()
            if count == len(rooms):
                break
            if count < len(rooms):
                await ui.click(root.get_by_role("button", name="Добавить номер"))
            else:
                await ui.click(root.get_by_role("button", name=f"Удалить номер {count}"))
    else:
        await _set_counter(ui, root, "rooms", None, len(rooms))
    for index, room in enumerate(rooms):
        await _set_counter(ui, root, "adults", index, int(room["adults"]))
        kids = list(room.get("kids") or [])
        await _set_counter(ui, root, "kids", index, len(kids))
        for kid, age in enumerate(kids):
            ages = root.locator(f'select[data-age][data-room="{index}"][data-kid="{kid}"]')
            await ages.select_option(str(age))
            ui.steps += 1
    await ui.click(root.locator(".wpb-guests-confirm"))


async def press(ui: UI, target: Locator, key: str, navigates: bool = False) -> None:
    """Press a key in a field (a counted step); wait for the page it opens when `navigates`."""
    if navigates:
        async with ui.page.expect_navigation():
            await target.press(key)
    else:
        await target.press(key)
    ui.steps += 1
    await ui.settle()
