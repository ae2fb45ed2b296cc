"""`dom`: the compact baseline agent. It reads the page as Playwright's accessibility
snapshot with element references (`- button "В корзину" [ref=e59]`), and acts through
tools that name those references. Any OpenAI-compatible chat model with tool calls.

Each step sends the system prompt, the task, the earlier steps (the model's tool calls and
short results) and only the newest tree, so the context stays bounded.

    python -m runner.agents.dom_agent input.json
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from functools import partial
from typing import cast
from urllib.parse import urljoin

from playwright.async_api import Locator, Page, async_playwright
from pydantic import JsonValue

from runner.agents import browser as shared
from runner.agents.chat import (
    Arguments,
    FunctionCall,
    JsonSchema,
    Message,
    ToolDefinition,
    UserMessage,
)
from runner.agents.protocol import ModelAnswer, Recorder, main
from services.core.models.protocol import AgentInput
from services.core.models.run import ReportStatus

# Tree characters sent per step (about 10k tokens); the rest is cut with a note.
MAX_TREE_CHARS = 40_000
# Earlier steps kept in the conversation.
HISTORY_STEPS = 30
REF = re.compile(r"\[ref=([A-Za-z0-9_-]+)\]")

SYSTEM = """You operate a web browser for a user. The sites are in Russian: read labels as \
they are written and type Russian text in Russian.

Every turn you get the current URL, the page title and the page's accessibility tree. Each \
line of the tree is one element: its role, its accessible name in quotes, and a reference \
such as [ref=e12]. Refer to elements only by references from the newest tree; they change \
after every action. "/url:" under a link is where it leads.

Call exactly one tool per turn. After each action you get its result and a fresh tree. \
If an action fails, read the error and try another way. Scroll only when what you need is \
not in the tree. Do what the task asks and nothing more: do not buy, pay or confirm \
anything the task does not ask for.

When the task is complete, call done with a short answer in Russian (success=true). If \
you tried and could not complete it, call done with success=false and say why. If the task \
cannot be done as asked, do nothing else and call report: status "infeasible" when what it \
asks does not exist or cannot be had, "needs_input" when it is ambiguous or needs the \
user's decision (ask the question in the message)."""


def tool(name: str, description: str, **params: JsonSchema) -> ToolDefinition:
    required: list[JsonValue] = [k for k, spec in params.items() if not spec.pop("optional", False)]
    properties: JsonSchema = {**params}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def _ref() -> JsonSchema:
    return {"type": "string", "description": "The element's reference, e.g. e12."}


TOOLS = [
    tool("click", "Click an element.", ref=_ref()),
    tool(
        "type",
        "Replace the text of an input field with new text.",
        ref=_ref(),
        text={"type": "string"},
        submit={"type": "boolean", "description": "Press Enter afterwards.", "optional": True},
    ),
    tool(
        "select",
        "Choose an option of a drop-down list (<select>) by its visible text.",
        ref=_ref(),
        option={"type": "string"},
    ),
    tool(
        "scroll",
        "Scroll the page.",
        direction={"type": "string", "enum": ["up", "down"]},
        amount={
            "type": "integer",
            "description": "Pixels; a screen's height when left out.",
            "optional": True,
        },
    ),
    tool("go_back", "Go back to the previous page."),
    tool(
        "navigate",
        "Open a URL (absolute, or relative to the current page).",
        url={"type": "string"},
    ),
    tool(
        "done",
        "Finish the task.",
        message={"type": "string", "description": "The answer or a short report."},
        success={"type": "boolean"},
    ),
    tool(
        "report",
        "Stop without doing the task, and say why.",
        status={"type": "string", "enum": ["infeasible", "needs_input", "gave_up"]},
        message={"type": "string", "description": "Why, or the question for the user."},
    ),
]
# The tools that end the episode.
FINAL = ("done", "report")


class StepError(Exception):
    """An action that failed on the page: reported to the model, the episode goes on."""


@dataclass
class Observation:
    url: str
    title: str
    tree: str
    screenshot: bytes | None


async def observe(page: Page, limit: int) -> Observation:
    try:
        tree = await page.aria_snapshot(mode="ai", timeout=shared.LOAD_TIMEOUT_MS)
    except Exception as exc:
        tree = f"(the tree could not be read: {shared.short(str(exc), 200)})"
    if len(tree) > limit:
        kept = tree[:limit].rsplit("\n", 1)[0]
        cut = tree.count("\n") - kept.count("\n")
        tree = f"{kept}\n… ({cut} more lines not shown; scroll or follow a link to narrow it)"
    try:
        title = await page.title()
    except Exception:
        title = ""
    return Observation(page.url, title, tree, await shared.screenshot(page))


def describe(tree: str, ref: str) -> str:
    """The tree line of an element without its reference and attributes: `button "В корзину"`."""
    for line in tree.splitlines():
        if f"[ref={ref}]" in line:
            text = REF.split(line.strip().lstrip("- "), maxsplit=1)[0]
            return shared.short(text.strip().rstrip(":"), 120)
    return ""


async def perform(page: Page, name: str, args: Arguments, tree: str) -> str:
    """Do one tool call on the page; the short result the model reads next."""

    def element(key: str = "ref") -> Locator:
        ref = str(args.get(key, "")).strip().strip("[]").removeprefix("ref=")
        if not ref or f"[ref={ref}]" not in tree:
            raise StepError(f"no element [ref={ref}] in the newest tree")
        return page.locator(f"aria-ref={ref}")

    if name == "click":
        await element().click()
        return "clicked"
    if name == "type":
        target = element()
        text = str(args.get("text", ""))
        try:
            await target.fill(text)
        except Exception:
            await target.click()  # not a form field: type where the click put the focus
            await page.keyboard.type(text)
        if args.get("submit"):
            await target.press("Enter")
        return "typed" + (" and pressed Enter" if args.get("submit") else "")
    if name == "select":
        target, option = element(), str(args.get("option", ""))
        if await target.evaluate("e => e.tagName") != "SELECT":
            raise StepError("not a <select>: click it, then click the option")
        try:
            await target.select_option(label=option)
        except Exception:
            await target.select_option(value=option)
        return f"selected {option!r}"
    if name == "scroll":
        return await scroll(page, args)
    if name == "go_back":
        if not await shared.go_back(page):
            raise StepError("there is no previous page")
        return "went back"
    if name == "navigate":
        url = urljoin(page.url, str(args.get("url", "")).strip())
        if not url.startswith(("http://", "https://")):
            raise StepError(f"not a web address: {url!r}")
        await page.goto(url, wait_until="load", timeout=shared.LOAD_TIMEOUT_MS * 3)
        return "opened the page"
    raise StepError(
        f"unknown tool {name!r}; the tools are " + ", ".join(t["function"]["name"] for t in TOOLS)
    )


async def scroll(page: Page, args: Arguments) -> str:
    height = await page.evaluate("innerHeight")
    amount = args.get("amount")
    if not isinstance(amount, int | float | str | None):
        raise StepError("amount: a number of pixels")
    pixels = int(height * 0.8) if amount is None else int(amount)
    pixels = -abs(pixels) if args.get("direction") == "up" else abs(pixels)
    await page.evaluate("dy => window.scrollBy(0, dy)", pixels)
    return f"scrolled {abs(pixels)} px {'up' if pixels < 0 else 'down'}"


def state_message(spec: AgentInput, step: int, seen: Observation) -> UserMessage:
    text = (
        f"Step {step} of {spec.limits.max_steps}.\nURL: {seen.url}\nTitle: {seen.title}\n"
        f"Accessibility tree:\n{seen.tree}"
    )
    return {"role": "user", "content": text}


def final_status(name: str, args: Arguments) -> ReportStatus:
    """The report of a final tool call: `done` by success, or `report`'s status."""
    if name == "done":
        return "done" if args.get("success", True) is not False else "gave_up"
    status = args.get("status")
    if status not in ("infeasible", "needs_input", "gave_up"):
        raise StepError(f"report: status {status!r}: one of infeasible, needs_input, gave_up")
    return cast(ReportStatus, status)


def arguments(function: FunctionCall) -> Arguments:
    raw = function.arguments or "{}"
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise StepError(f"the tool arguments are not JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise StepError("the tool arguments must be a JSON object")
    return parsed


async def run(spec: AgentInput, recorder: Recorder) -> None:
    limit = int(spec.options.get("max_tree_chars", MAX_TREE_CHARS))
    keep = int(spec.options.get("history_steps", HISTORY_STEPS))
    started = time.monotonic()
    task: UserMessage = {
        "role": "user",
        "content": f"Task: {spec.prompt}\nStart page: {spec.start_url}",
    }
    turns: list[list[Message]] = []
    chat = shared.Chat(spec)
    async with async_playwright() as playwright:
        browser, tab = await shared.attach(playwright, spec)
        try:
            for step in range(1, spec.limits.max_steps + 1):
                if time.monotonic() - started > spec.limits.time_limit_s:
                    break
                shared.check_alive(browser)
                page = await tab.current()
                seen = await observe(page, limit)
                messages: list[Message] = [
                    {"role": "system", "content": SYSTEM},
                    task,
                    *[m for turn in turns[-keep:] for m in turn],
                    state_message(spec, step, seen),
                ]
                reply = await chat.complete(messages, tools=TOOLS)
                recorder.add_usage(chat.model, reply.input_tokens, reply.output_tokens)
                record = partial(recorder.step, url=seen.url, screenshot=seen.screenshot)
                answered = partial(
                    ModelAnswer,
                    input_tokens=reply.input_tokens,
                    output_tokens=reply.output_tokens,
                    latency_s=reply.latency_s,
                )
                if not reply.tool_calls:
                    why, told = "the answer called no tool", "Error: call exactly one of the tools."
                    if reply.cut:
                        why += f" and was cut at the length limit ({reply.output_tokens} tokens)"
                        told = (
                            "Error: the answer was cut at the length limit. Call exactly one "
                            "of the tools, with no text before it."
                        )
                    record({"name": "none"}, answer=answered(reply.content), error=why)
                    turns.append(
                        [
                            {"role": "assistant", "content": reply.content or "…"},
                            {"role": "user", "content": told},
                        ]
                    )
                    continue
                first = reply.tool_calls[0]
                call = first.param(first.id or f"call_{step}")
                name = first.function.name
                output = json.dumps(
                    {"content": reply.content, "tool_calls": [call]}, ensure_ascii=False
                )
                error: str | None = None
                result = ""
                action: Arguments = {"name": name}
                try:
                    args = arguments(first.function)
                    action = {**args, "name": name}
                    if "ref" in args:
                        action["target"] = describe(seen.tree, str(args["ref"]))
                    if name in FINAL:
                        status = final_status(name, args)
                        record(action, answer=answered(output))
                        recorder.finish(status, str(args.get("message", "")))
                        return
                    result = await perform(page, name, args, seen.tree)
                    await shared.settle(page)
                except StepError as exc:
                    error = str(exc)
                except Exception as exc:  # a Playwright failure: a step error, not a crash
                    error = shared.short(f"{type(exc).__name__}: {exc}", 400)
                record(action, answer=answered(output), error=error)
                note = f"Error: {error}" if error else f"OK: {result}"
                if len(reply.tool_calls) > 1:
                    note += f" (only the first of {len(reply.tool_calls)} tool calls was done)"
                turns.append(
                    [
                        {
                            "role": "assistant",
                            "content": reply.content or None,
                            "tool_calls": [call],
                        },
                        {"role": "tool", "tool_call_id": call["id"], "content": note},
                    ]
                )
        finally:
            await chat.close()
    recorder.finish(None, "")


if __name__ == "__main__":
    main(run)
