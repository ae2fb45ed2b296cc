"""`gui`: a screenshot-only agent. Each step it sends the newest screenshot (a PNG data
URL) to a vision model of one family (options `family`: uitars, qwen3vl, opencua, fara,
evocua, jedi; runner/agents/gui_families.py), reads the family's answer as normalized
actions, scales their points from the family's frame (options `coords` overrides it) to
the viewport and performs them with the mouse and keyboard.

Options: `family`, `coords`, `history_images` (screenshots kept in the conversation,
default 1: only the newest), `page_geometry` (for the test model only: the request gets a
top-level `wpb_page` with the visible interactive elements' labels and boxes).

    python -m runner.agents.gui_agent input.json
"""

from __future__ import annotations

import asyncio
import base64
import time
from dataclasses import dataclass, replace
from functools import partial
from urllib.parse import urljoin

from playwright.async_api import Page, async_playwright

from runner.agents import browser as shared
from runner.agents.chat import ContentPart, ImagePart, Message, PageGeometry
from runner.agents.gui_families import (
    FAMILIES,
    FRAMES,
    Action,
    ActionRecord,
    ParseError,
    Screen,
    SequenceRecord,
    executable,
)
from runner.agents.protocol import ModelAnswer, Recorder, main
from services.core.models.protocol import AgentInput

# Earlier steps kept in the conversation (their screenshots replaced by a note).
HISTORY_STEPS = 15
# A scroll without an amount moves this share of the viewport.
SCROLL_SHARE = 0.6
MAX_WAIT_S = 10.0
# Time a mouse or key action gets to start a navigation before the page counts as settled.
GRACE_S = 0.15

# Visible interactive elements, for `wpb_page`: read only, the page is not changed.
ELEMENTS_JS = """() => {
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, '
    + 'label, [role=button], [role=link], [role=tab], [role=checkbox], [role=radio], '
    + '[role=option], [role=menuitem], [role=combobox], [role=textbox], [role=switch], '
    + '[onclick], [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';
  const W = innerWidth, H = innerHeight, out = [];
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    const x0 = Math.max(0, r.left), y0 = Math.max(0, r.top);
    const x1 = Math.min(W, r.right), y1 = Math.min(H, r.bottom);
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    const top = document.elementFromPoint((x0 + x1) / 2, (y0 + y1) / 2);
    if (top && top !== el && !el.contains(top) && !top.contains(el)) continue;
    const label = el.getAttribute('aria-label')
      || (el.labels && el.labels.length ? el.labels[0].innerText : '')
      || el.innerText || el.getAttribute('placeholder') || el.value
      || el.getAttribute('title') || el.getAttribute('alt') || '';
    out.push({label: String(label).replace(/\\s+/g, ' ').trim().slice(0, 200),
              box: [x0, y0, x1 - x0, y1 - y0].map(v => Math.round(v * 10) / 10)});
  }
  return out;
}"""


@dataclass
class Turn:
    """One earlier step: what the model saw and said, and what came of it."""

    url: str
    image: bytes | None
    output: str
    result: str


class Hands:
    """The mouse and keyboard on one screen; keeps the pointer between actions."""

    def __init__(self, page: Page, screen: Screen, pointer: tuple[float, float]) -> None:
        self.page = page
        self.screen = screen
        self.pointer = pointer

    def at(self, point: tuple[float, float] | None) -> tuple[float, float]:
        if point is not None:
            self.pointer = self.screen.to_viewport(*point)
        return self.pointer

    async def do(self, action: Action) -> str:
        """Carry out one action on the page; what happened, in a few words for the model."""
        for family in (self.pointer_action, self.keyboard_action, self.page_action):
            done = await family(action)
            if done is not None:
                return done
        raise ParseError(f"the action {action.name!r} is not available here")

    async def pointer_action(self, action: Action) -> str | None:
        mouse, name = self.page.mouse, action.name
        if name not in ("click", "double_click", "move", "drag", "scroll"):
            return None
        x, y = self.at(action.point)
        if name == "click":
            await mouse.click(x, y)
            return f"clicked at ({x:.0f}, {y:.0f})"
        if name == "double_click":
            await mouse.dblclick(x, y)
            return f"double-clicked at ({x:.0f}, {y:.0f})"
        await mouse.move(x, y)
        if name == "move":
            return f"moved the pointer to ({x:.0f}, {y:.0f})"
        if name == "scroll":
            return await self.scroll(action)
        await mouse.down()
        x2, y2 = self.at(action.end)
        await mouse.move(x2, y2, steps=8)
        await mouse.up()
        return f"dragged from ({x:.0f}, {y:.0f}) to ({x2:.0f}, {y2:.0f})"

    async def scroll(self, action: Action) -> str:
        width, height = self.screen.viewport
        share = (height if action.direction in ("up", "down") else width) * SCROLL_SHARE
        amount = min(action.amount or share, 3 * height)
        dx = {"left": -amount, "right": amount}.get(action.direction, 0.0)
        dy = {"up": -amount, "down": amount}.get(action.direction, 0.0)
        await self.page.mouse.wheel(dx, dy)
        return f"scrolled {action.direction} by {amount:.0f} px"

    async def keyboard_action(self, action: Action) -> str | None:
        keyboard = self.page.keyboard
        if action.name == "key":
            return await self.keys(action.keys)
        if action.name != "type":
            return None
        if await self.choose(action.text):
            return f"chose {action.text!r} in the list"
        if action.clear:
            await keyboard.press("Control+A")
            await keyboard.press("Delete")
        await keyboard.type(action.text)
        if action.submit:
            await keyboard.press("Enter")
        return "typed" + (" and pressed Enter" if action.submit else "")

    async def page_action(self, action: Action) -> str | None:
        page, name = self.page, action.name
        if name == "wait":
            await asyncio.sleep(min(max(action.seconds, 0.0), MAX_WAIT_S))
            return "waited"
        if name == "navigate":
            url = action.text.strip()
            if url.startswith("/"):
                url = urljoin(page.url, url)
            elif "://" not in url:
                url = "https://" + url
            await page.goto(url, wait_until="load", timeout=shared.LOAD_TIMEOUT_MS * 3)
            return "opened the page"
        if name == "back":
            if not await shared.go_back(page):
                raise RuntimeError("there is no previous page")
            return "went back"
        if name == "forward":
            await page.go_forward(wait_until="commit", timeout=shared.LOAD_TIMEOUT_MS)
            return "went forward"
        if name == "reload":
            await page.reload(wait_until="load", timeout=shared.LOAD_TIMEOUT_MS)
            return "reloaded the page"
        if name in ("answer", "memo"):
            return "noted"
        return None

    async def choose(self, text: str) -> bool:
        """Typing into a native drop-down list picks the option that starts with the text.
        Headless Chromium draws the list's popup outside the screenshot, and its typeahead
        ignores text typed outside the US layout (Cyrillic), so the executor does what a
        desktop list's typeahead would, then closes the popup."""
        focused = self.page.locator("select:focus")
        if not text or not await focused.count():
            return False
        options = await focused.evaluate("s => [...s.options].map(o => o.label || o.text)")
        wanted = " ".join(text.split()).casefold()
        found = [o for o in options if " ".join(o.split()).casefold() == wanted] or [
            o for o in options if " ".join(o.split()).casefold().startswith(wanted)
        ]
        if not found:
            raise RuntimeError(f"the list has no option {text!r}")
        await focused.select_option(label=found[0])
        await self.page.keyboard.press("Escape")
        return True

    async def keys(self, keys: tuple[str, ...]) -> str:
        """A key combination; browser shortcuts the page never sees are done by the browser."""
        combo = "+".join(keys)
        shortcuts = {"Alt+ArrowLeft": "back", "Alt+ArrowRight": "forward", "F5": "reload"}
        shortcuts["Control+r"] = shortcuts["Control+R"] = "reload"
        if combo in shortcuts:
            return await self.do(Action(shortcuts[combo]))
        await self.page.keyboard.press(combo)
        return f"pressed {combo}"


def image_part(png: bytes) -> ImagePart:
    data = base64.b64encode(png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}


def conversation(
    system: str, task: str, turns: list[Turn], now: Turn, images: int
) -> list[Message]:
    """System prompt, task, earlier steps (their newest `images - 1` screenshots kept), and
    the newest screenshot with the result of the last action."""
    messages: list[Message] = [
        {"role": "system", "content": system},
        {"role": "user", "content": task},
    ]
    shown = turns[-HISTORY_STEPS:]
    kept_from = len(shown) - max(images - 1, 0)
    previous = ""
    for index, turn in enumerate([*shown, now]):
        text = f"URL: {turn.url}" + (f"\nPrevious action: {previous}" if previous else "")
        shown_image = turn is now or index >= kept_from
        if not shown_image:
            text += "\n(screenshot omitted)"
        parts: list[ContentPart] = [{"type": "text", "text": text}]
        if shown_image and turn.image:
            parts.append(image_part(turn.image))
        messages.append({"role": "user", "content": parts})
        if turn is not now:
            messages.append({"role": "assistant", "content": turn.output})
            previous = turn.result
    return messages


async def geometry(page: Page, family: str, screen: Screen) -> PageGeometry:
    try:
        elements = await page.evaluate(ELEMENTS_JS)
    except Exception:
        elements = []
    return {
        "family": family,
        "frame": screen.frame,
        "viewport": {"width": screen.viewport[0], "height": screen.viewport[1]},
        "image_size": {"width": screen.image[0], "height": screen.image[1]},
        "elements": elements,
    }


async def run(spec: AgentInput, recorder: Recorder) -> None:
    family_name = str(spec.options.get("family") or "uitars")
    if family_name not in FAMILIES:
        raise ValueError(f"options.family: {family_name!r}; known: {', '.join(FAMILIES)}")
    family = FAMILIES[family_name]
    frame = str(spec.options.get("coords") or family.frame)
    if frame not in FRAMES:
        raise ValueError(f"options.coords: {frame!r}; known: {', '.join(FRAMES)}")
    images = max(1, int(spec.options.get("history_images") or 1))
    with_geometry = bool(spec.options.get("page_geometry"))
    task = f"Task: {spec.prompt}\nStart page: {spec.start_url}"
    started = time.monotonic()
    chat = shared.Chat(spec)
    turns: list[Turn] = []
    answer = ""
    async with async_playwright() as playwright:
        browser, tab = await shared.attach(playwright, spec)
        width, height = spec.viewport.width, spec.viewport.height
        pointer = (width / 2, height / 2)
        try:
            for _step in range(spec.limits.max_steps):
                if time.monotonic() - started > spec.limits.time_limit_s:
                    break
                shared.check_alive(browser)
                page = await tab.current()
                png = await shared.screenshot(page)
                if png is None:
                    raise RuntimeError("the page could not be captured")
                size = await page.evaluate("[innerWidth, innerHeight]")
                screen = Screen((int(size[0]), int(size[1])), shared.png_size(png), frame)
                now = Turn(page.url, png, "", "")
                messages = conversation(family.prompt(screen), task, turns, now, images)
                boxes = await geometry(page, family_name, screen) if with_geometry else None
                reply = await chat.complete(messages, page=boxes)
                recorder.add_usage(chat.model, reply.input_tokens, reply.output_tokens)
                output = reply.content
                if reply.tool_calls:  # a server that parsed the calls out of the text
                    calls = [call.model_dump() for call in reply.tool_calls]
                    output = f"{output}\n{calls}".strip()
                said = ModelAnswer(output, reply.input_tokens, reply.output_tokens, reply.latency_s)
                record = partial(recorder.step, url=now.url, answer=said, screenshot=png)
                hands = Hands(page, screen, pointer)
                done: list[ActionRecord] = []
                results: list[str] = []
                error: str | None = None
                try:
                    for parsed in family.parse(reply.content, reply.tool_calls):
                        action = executable(parsed)
                        entry = action.record()
                        if action.point is not None:
                            entry["at"] = [round(v) for v in screen.to_viewport(*action.point)]
                        done.append(entry)
                        if action.name == "done":
                            message = action.text or answer
                            record(steps_action(done))
                            recorder.finish(action.status, message)
                            return
                        if action.name == "answer":
                            answer = action.text
                        result = await hands.do(action)
                        if action.notes:
                            result += f" ({'; '.join(action.notes)})"
                        results.append(result)
                        await shared.settle(hands.page, GRACE_S)
                except ParseError as exc:
                    error = f"{exc}. {family.reminder}"
                except Exception as exc:  # a failed browser action: a step error
                    error = shared.short(f"{type(exc).__name__}: {exc}", 400)
                pointer = hands.pointer
                record(steps_action(done) if done else {"name": "none"}, error=error)
                result = "; ".join(results) or "nothing done"
                turns.append(
                    replace(now, output=output, result=f"Error: {error}" if error else result)
                )
        finally:
            await chat.close()
    recorder.finish(None, "")


def steps_action(done: list[ActionRecord]) -> ActionRecord | SequenceRecord:
    return done[0] if len(done) == 1 else {"name": "sequence", "actions": done}


if __name__ == "__main__":
    main(run)
