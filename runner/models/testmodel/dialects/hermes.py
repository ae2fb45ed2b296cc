"""The hermes dialect: the planner's requests of the `hermes` harness.

Hermes Agent asks the model with its own system prompt and the one tool the harness gives
it, `browser_task` (a step for the browser-use executor, whose requests are browser-use's
dialect). The planner never sees the page: a step that names an element is delegated (the
core finds no element and asks for an observation, which here is a `browser_task` call with
the user's request), so the executor's requests take the script's steps; once the executor
is back, the script's `done` is the planner's final answer, as text without tool calls.
"""

from __future__ import annotations

from fastapi import HTTPException

from runner.models.testmodel.dialects.base import Element, final_words
from runner.models.testmodel.schema import ChatRequest, Reply, Step, ToolCall

TOOL = "browser_task"


class HermesDialect:
    name = "hermes"

    def detect(self, body: ChatRequest) -> bool:
        return any(tool.tool_name == TOOL for tool in body.tools)

    def elements(self, body: ChatRequest) -> list[Element] | None:
        return None

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        words = final_words(step)
        if words is not None:
            return Reply(content=words)
        raise HTTPException(
            422, f"step {step!r}: the hermes planner only delegates steps that name an element"
        )

    def observe(self, body: ChatRequest) -> Reply:
        request = next((m.text for m in body.messages if m.role == "user"), "")
        return Reply(tool_calls=[ToolCall.of(TOOL, {"task": request})])


DIALECT = HermesDialect()
