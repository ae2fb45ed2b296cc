"""What the `dom` and `gui` agents share: attaching to the runner's Chromium over CDP,
keeping hold of the page the agent works in, calling an OpenAI-compatible chat-completions
endpoint (its shapes in `chat`), and screenshots. Needs playwright and httpx (the project's
own venv has both)."""

from __future__ import annotations

import asyncio
import contextlib
import struct
import time
from dataclasses import dataclass

import httpx
from playwright.async_api import Browser, BrowserContext, Page, Playwright

from runner.agents.chat import (
    ChatAnswer,
    ChatRequest,
    Message,
    PageGeometry,
    TokenUsage,
    ToolCall,
    ToolDefinition,
)
from services.core.models.protocol import AgentInput

# How long one browser action may take before it counts as a failed step.
ACTION_TIMEOUT_MS = 5_000
# How long the agent waits for a page to load after an action.
LOAD_TIMEOUT_MS = 10_000


class EndpointError(RuntimeError):
    """A model endpoint answered with an HTTP error; `status_code` lets
    `protocol.error_kind` tell the endpoint's failures (5xx, 429, 401…) from the model's."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(f"model endpoint answered HTTP {status_code}: {detail[:500]}")
        self.status_code = status_code


@dataclass
class Reply:
    """One chat-completions answer, reduced to what an agent loop needs."""

    content: str
    tool_calls: list[ToolCall]
    input_tokens: int
    output_tokens: int
    latency_s: float
    # Whether the endpoint cut the answer at the completion limit.
    cut: bool = False


class Chat:
    """A chat-completions client for one episode: the model's settings from the input, the
    key from the variable it names (never logged), no retries (the runner retries infra)."""

    def __init__(self, spec: AgentInput) -> None:
        self.model = spec.model.name
        self.temperature = spec.model.temperature
        self.max_tokens = spec.model.max_tokens
        base = (spec.model.base_url or "https://api.openai.com/v1").rstrip("/")
        self.url = f"{base}/chat/completions"
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(max(30.0, spec.limits.time_limit_s), connect=10.0),
            headers={"Authorization": f"Bearer {spec.model.api_key}"},
        )

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolDefinition] | None = None,
        page: PageGeometry | None = None,
    ) -> Reply:
        """One answer to `messages`; `tools` are offered with `tool_choice` auto, `page` is
        sent as `wpb_page`. An answer in another shape is a ValueError naming the field."""
        body: ChatRequest = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if tools is not None:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        if page is not None:
            body["wpb_page"] = page
        started = time.monotonic()
        response = await self.client.post(self.url, json=body)
        latency = time.monotonic() - started
        if response.status_code >= 400:
            raise EndpointError(response.status_code, response.text)
        answer = ChatAnswer.parse(response.content, f"the answer of {self.url}")
        choice = answer.choices[0]
        usage = answer.usage or TokenUsage()
        return Reply(
            content=choice.message.text,
            tool_calls=choice.message.tool_calls or [],
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            latency_s=latency,
            cut=choice.finish_reason == "length",
        )

    async def close(self) -> None:
        await self.client.aclose()


class Tab:
    """The page the agent works in: follows a tab the page opens, survives one closing."""

    def __init__(self, context: BrowserContext, page: Page) -> None:
        self.context = context
        self.page = page
        self.known = len(context.pages)

    async def current(self) -> Page:
        pages = [p for p in self.context.pages if not p.is_closed()]
        if len(pages) > self.known and pages[-1] is not self.page:
            self.page = pages[-1]  # a link or script opened a new tab: work there
            await prepare(self.page)
        elif self.page.is_closed():
            self.page = pages[-1] if pages else await self.context.new_page()
            await prepare(self.page)
        self.known = len(pages)
        return self.page


async def attach(playwright: Playwright, spec: AgentInput) -> tuple[Browser, Tab]:
    """Connect to the runner's Chromium, take its first tab (or open one), give it the
    input's viewport and open the start URL."""
    browser = await playwright.chromium.connect_over_cdp(spec.cdp_url)
    context = browser.contexts[0] if browser.contexts else await browser.new_context()
    pages = [p for p in context.pages if p.url.startswith(("http", "about:"))]
    page = pages[0] if pages else await context.new_page()
    await prepare(page)
    size = await page.evaluate("[innerWidth, innerHeight]")
    wanted = spec.viewport
    if [wanted.width, wanted.height] != size:
        await page.set_viewport_size({"width": wanted.width, "height": wanted.height})
    if page.url != spec.start_url:
        await page.goto(spec.start_url, wait_until="load", timeout=30_000)
    return browser, Tab(context, page)


def check_alive(browser: Browser) -> None:
    """A browser that went away ends the episode as the stand's failure (`infra`)."""
    if not browser.is_connected():
        raise ConnectionError("the browser is gone (crashed or closed)")


async def prepare(page: Page) -> None:
    page.set_default_timeout(ACTION_TIMEOUT_MS)
    # An alert or confirm would block the page; accept it as a user would.
    page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))


async def settle(page: Page, grace: float = 0.0) -> None:
    """Wait until the page's document has loaded; never fails. `grace` first gives a mouse
    or key action the time to start a navigation (Playwright's own clicks wait for that).
    The document's own state is polled: a page restored from the back-forward cache never
    reports a load event to `wait_for_load_state`."""
    if grace:
        await asyncio.sleep(grace)
    deadline = time.monotonic() + LOAD_TIMEOUT_MS / 1000
    while time.monotonic() < deadline and not page.is_closed():
        with contextlib.suppress(Exception):  # mid-navigation: no document to ask yet
            if await page.evaluate("document.readyState") == "complete":
                return
        await asyncio.sleep(0.05)


async def go_back(page: Page) -> bool:
    """Back in the tab's history; False when there was nowhere to go. (A page restored from
    the back-forward cache fires no load event and brings no response: compare URLs.)"""
    before = page.url
    response = await page.go_back(wait_until="commit", timeout=LOAD_TIMEOUT_MS)
    return response is not None or page.url != before


async def screenshot(page: Page) -> bytes | None:
    """The viewport as PNG; None when the page cannot be captured (mid-navigation)."""
    for _ in range(2):
        try:
            return await page.screenshot(type="png", timeout=LOAD_TIMEOUT_MS)
        except Exception:
            await asyncio.sleep(0.2)
    return None


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
