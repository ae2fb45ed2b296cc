"""The deepagents dialect: LangChain's deepagents with Playwright's MCP server's tools
(runner/agents/deepagents_agent.py), native tool calls.

Its requests offer the MCP server's browser tools (`browser_navigate`, `browser_snapshot`,
`browser_click`, `browser_type`, …) beside deepagents' own (`ls`, `read_file`, `task`, …).
The page reaches the model as the result of `browser_snapshot`: Playwright's ARIA snapshot,
the tree the `dom` agent sends too (`- button "В корзину" [ref=e59]`), read with the `dom`
dialect's parser. An action's result names the page but leaves its snapshot in a file
(`@playwright/mcp` 0.0.83), so elements are read from the newest browser tool's result
alone: when that is an action's, the core asks for a fresh snapshot (`observe`). A tool
names an element by its ref (`target`) and its description (`element`: the label). The agent
ends with an answer that calls no tool.
"""

from __future__ import annotations

from fastapi import HTTPException

from runner.models.testmodel.dialects.base import Element, final_words
from runner.models.testmodel.dialects.dom import TREE, parse_tree
from runner.models.testmodel.schema import ChatRequest, JsonObject, Reply, Step, ToolCall

# Playwright's MCP tools together with deepagents' subagent tool: no other harness offers both.
SIGNATURE = {"browser_snapshot", "browser_click", "task"}
BROWSER_TOOL = "browser_"
KEYS = {"down": "PageDown", "up": "PageUp"}


def tool_names(body: ChatRequest) -> dict[str, str]:
    """Each tool call id of the conversation → the tool it called."""
    return {
        call.id: call.function.name
        for message in body.messages
        for call in message.tool_calls or []
    }


class DeepAgentsDialect:
    name = "deepagents"

    def detect(self, body: ChatRequest) -> bool:
        return {tool.tool_name for tool in body.tools} >= SIGNATURE

    def elements(self, body: ChatRequest) -> list[Element] | None:
        names = tool_names(body)
        for message in reversed(body.messages):
            name = names.get(message.tool_call_id or "") or message.name or ""
            if message.role == "tool" and name.startswith(BROWSER_TOOL):
                text = message.text
                return parse_tree(text) if TREE.search(text) else None
        return None

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        words = final_words(step)
        if words is not None:
            return Reply(content=words)
        if "click" in step:
            call = ToolCall.of("browser_click", self._element(step, target))
        elif "type" in step:
            args: JsonObject = {**self._element(step, target), "text": str(step.get("text", ""))}
            call = ToolCall.of("browser_type", {**args, "submit": bool(step.get("submit"))})
        elif "select" in step:
            values: JsonObject = {"values": [str(step.get("option", ""))]}
            call = ToolCall.of("browser_select_option", {**self._element(step, target), **values})
        elif "scroll" in step:
            key = KEYS.get(str(step["scroll"]))
            if key is None:
                raise HTTPException(
                    422, f"scroll: Playwright's MCP tools scroll only {sorted(KEYS)}"
                )
            call = ToolCall.of("browser_press_key", {"key": key})
        elif "back" in step:
            call = ToolCall.of("browser_navigate_back", {})
        elif "navigate" in step:
            call = ToolCall.of("browser_navigate", {"url": str(step["navigate"])})
        elif "wait" in step:
            call = ToolCall.of("browser_wait_for", {"time": float(step["wait"])})
        else:
            raise HTTPException(422, f"step {step!r}: not a Playwright MCP action")
        return Reply(tool_calls=[call])

    def observe(self, body: ChatRequest) -> Reply:
        return Reply(tool_calls=[ToolCall.of("browser_snapshot", {})])

    @staticmethod
    def _element(step: Step, target: Element | None) -> JsonObject:
        if target is None:
            raise HTTPException(
                422, f"step {step!r}: Playwright's MCP tools act on element refs, not points"
            )
        return {"element": target.label, "target": target.ref}


DIALECT = DeepAgentsDialect()
