"""The Inspect dialect: Inspect AI's ReAct agent with the browser tools of WebPageBench's
Inspect task (integrations/inspect), which bear the names and arguments of Inspect's own
`web_browser()`: `web_browser_click(element_id)`, `web_browser_type_submit(element_id,
text)`, …, and `submit(answer)` to end.

The page reaches the model as a tool's result: the URL, then Playwright's accessibility
snapshot with each element's id in brackets (`- button "В корзину" [12]`), read with the
`dom` dialect's parser. An element id is a number; only the newest tree counts.
"""

from __future__ import annotations

import re

from fastapi import HTTPException

from runner.models.testmodel.dialects.base import Element, final_words
from runner.models.testmodel.dialects.dom import parse_tree
from runner.models.testmodel.schema import ChatRequest, JsonObject, Reply, Step, ToolCall

SIGNATURE = {"web_browser_go", "web_browser_click", "submit"}
ELEMENT_ID = re.compile(r"\[(\d+)\](?=[\s:]|$)", re.MULTILINE)
TREE = re.compile(r"^\s*- .*\[\d+\]", re.MULTILINE)
SCROLLS = ("down", "up")


class InspectDialect:
    name = "inspect"

    def detect(self, body: ChatRequest) -> bool:
        return {tool.tool_name for tool in body.tools} >= SIGNATURE

    def elements(self, body: ChatRequest) -> list[Element] | None:
        for message in reversed(body.messages):
            if message.role == "tool" and TREE.search(message.text):
                return parse_tree(ELEMENT_ID.sub(r"[ref=\1]", message.text))
        return None

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        words = final_words(step)
        if words is not None:
            return Reply(tool_calls=[ToolCall.of("submit", {"answer": words})])
        if "click" in step:
            call = ToolCall.of("web_browser_click", self._element(step, target))
        elif "type" in step:
            name = "web_browser_type_submit" if step.get("submit") else "web_browser_type"
            call = ToolCall.of(name, {**self._element(step, target), "text": str(step["text"])})
        elif "scroll" in step:
            if step["scroll"] not in SCROLLS:
                raise HTTPException(422, f"scroll: Inspect's browser scrolls only {SCROLLS}")
            call = ToolCall.of("web_browser_scroll", {"direction": str(step["scroll"])})
        elif "back" in step:
            call = ToolCall.of("web_browser_back", {})
        elif "navigate" in step:
            call = ToolCall.of("web_browser_go", {"url": str(step["navigate"])})
        else:
            raise HTTPException(422, f"step {step!r}: not an action of Inspect's browser tools")
        return Reply(tool_calls=[call])

    def observe(self, body: ChatRequest) -> Reply:
        return Reply(tool_calls=[ToolCall.of("web_browser_refresh", {})])

    @staticmethod
    def _element(step: Step, target: Element | None) -> JsonObject:
        if target is None:
            raise HTTPException(422, f"step {step!r}: Inspect's browser acts on element ids")
        return {"element_id": int(target.ref)}


DIALECT = InspectDialect()
