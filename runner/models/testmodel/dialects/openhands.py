"""The OpenHands SDK dialect: native tool calls to its browser tool set.

An OpenHands agent offers the model tools named `browser_navigate`, `browser_click`,
`browser_get_state`, `finish` and so on. Page state reaches the model only as the result
of `browser_get_state`: a JSON object whose `interactive_elements` are
`{"index": 12, "tag": "button", "text": "В корзину", "placeholder"?, "href"?}`. Indices
stay valid only until the next action, so elements are read from the newest tool result
alone: when that result came from an action, the state is stale and the core asks for a
fresh one (`observe` calls `browser_get_state`, as the tool descriptions tell agents to).
"""

from __future__ import annotations

import json
import re

from fastapi import HTTPException

from runner.models.testmodel.dialects.base import Element, final_words
from runner.models.testmodel.schema import ChatRequest, Reply, Step, ToolCall

# Tools only an OpenHands browser tool set offers (browser-use's own MCP names overlap,
# but browser-use agents send no `tools`).
SIGNATURE = {"browser_get_state", "browser_click", "finish"}
ELEMENT_START = re.compile(r'\{\s*"index"\s*:\s*\d+')
SCROLLS = {"down", "up"}


def parse_elements(text: str) -> list[Element] | None:
    """The indexed elements of one `browser_get_state` result; None when `text` is not
    one. A result the SDK clipped in the middle still yields every whole element."""
    if '"interactive_elements"' not in text:
        return None
    decoder = json.JSONDecoder()
    found: list[Element] = []
    for match in ELEMENT_START.finditer(text):
        try:
            item, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if not isinstance(item, dict) or not isinstance(item.get("index"), int):
            continue
        label = str(item.get("text") or "").strip() or str(item.get("placeholder") or "")
        found.append(Element(ref=str(item["index"]), label=label))
    return found


class OpenHandsDialect:
    name = "openhands"

    def detect(self, body: ChatRequest) -> bool:
        return {tool.tool_name for tool in body.tools} >= SIGNATURE

    def elements(self, body: ChatRequest) -> list[Element] | None:
        for message in reversed(body.messages):
            if message.role == "tool":
                return parse_elements(message.text)
        return None

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        words = final_words(step)
        if words is not None:
            call = ToolCall.of("finish", {"message": words})
        elif "click" in step:
            call = ToolCall.of("browser_click", {"index": self._index(step, target)})
        elif "type" in step:
            # No key tool exists: a newline typed at the end submits the field's form.
            text = str(step.get("text", "")) + ("\n" if step.get("submit") else "")
            call = ToolCall.of("browser_type", {"index": self._index(step, target), "text": text})
        elif "select" in step:
            # The tool set has no option picker; typing the option into a <select>
            # is how an OpenHands agent would have to try it.
            call = ToolCall.of(
                "browser_type",
                {"index": self._index(step, target), "text": str(step.get("option", ""))},
            )
        elif "scroll" in step:
            direction = str(step["scroll"])
            if direction not in SCROLLS:
                raise HTTPException(422, f"scroll: OpenHands scrolls only {sorted(SCROLLS)}")
            call = ToolCall.of("browser_scroll", {"direction": direction})
        elif "back" in step:
            call = ToolCall.of("browser_go_back", {})
        elif "navigate" in step:
            call = ToolCall.of("browser_navigate", {"url": str(step["navigate"])})
        elif "wait" in step:
            # Nothing waits; reading the state takes about as long and changes nothing.
            call = ToolCall.of("browser_get_state", {"include_screenshot": False})
        else:
            raise HTTPException(422, f"step {step!r}: not an OpenHands action")
        return Reply(tool_calls=[call])

    def observe(self, body: ChatRequest) -> Reply:
        return Reply(tool_calls=[ToolCall.of("browser_get_state", {"include_screenshot": False})])

    @staticmethod
    def _index(step: Step, target: Element | None) -> int:
        if target is None:
            raise HTTPException(
                422, f"step {step!r}: OpenHands acts on element indices, not coordinates"
            )
        return int(target.ref)


DIALECT = OpenHandsDialect()
