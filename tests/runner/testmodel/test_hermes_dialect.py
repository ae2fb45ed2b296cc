"""The hermes dialect: finding the Hermes planner's requests, delegating the task to its
`browser_task` tool, ending with the script's `done`, and the streamed answers Hermes asks
for. Request bodies are trimmed copies of what hermes-agent 0.19 sent."""

from __future__ import annotations

import copy
import json
import uuid
from typing import Any

import httpx
import pytest
from fastapi import HTTPException

from runner.models.testmodel.dialects import all_dialects
from runner.models.testmodel.dialects.hermes import DIALECT, TOOL
from runner.models.testmodel.schema import ChatCompletion, ChatCompletionChunk, ChatRequest

# A trajectory of its own: the session-wide test model keeps a script's place per start URL.
TID = uuid.uuid4().hex
PROMPT = (
    f"Открой http://127.0.0.1:8000/t/{TID}/, раздел «Продукты». На главной странице в хитах "
    "недели есть чёрный чай «Крупяной ряд» в пакетиках — положи одну пачку в корзину."
)
SYSTEM = "You are Hermes Agent, an intelligent AI assistant created by Nous Research. …"
BROWSER_TASK = {
    "type": "function",
    "function": {
        "name": TOOL,
        "description": "Carry out one step of the task in the web browser…",
        "parameters": {
            "type": "object",
            "properties": {"task": {"type": "string"}},
            "required": ["task"],
        },
    },
}


def body(*history: dict[str, Any], model: str = "test", stream: bool = True) -> dict[str, Any]:
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": PROMPT},
            *history,
        ],
        "tools": [copy.deepcopy(BROWSER_TASK)],
        "stream": stream,
        "stream_options": {"include_usage": True},
    }


def returned(result: str) -> list[dict[str, Any]]:
    """The executor's report as Hermes hands it back: the call, then its result."""
    call = {"id": "call_1", "type": "function", "function": {"name": TOOL, "arguments": "{}"}}
    return [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


def test_detects_the_planner_only_by_its_tool() -> None:
    request = ChatRequest.model_validate(body())
    assert [d.name for d in all_dialects() if d.detect(request)] == ["hermes"]
    other = body()
    other["tools"][0]["function"]["name"] = "browser_click"
    assert not DIALECT.detect(ChatRequest.model_validate(other))


def test_delegates_the_request_and_ends_with_the_scripts_done() -> None:
    request = ChatRequest.model_validate(body())
    assert DIALECT.elements(request) is None  # the planner never sees the page
    (call,) = DIALECT.observe(request).tool_calls or []
    assert call.function.name == TOOL
    assert json.loads(call.function.arguments) == {"task": PROMPT}
    done = DIALECT.answer({"done": "Чай в корзине", "success": True}, None, request)
    assert done.content == "Чай в корзине" and done.tool_calls is None
    said = DIALECT.answer({"report": "gave_up", "message": "Не вышло"}, None, request)
    assert said.content == "[gave_up] Не вышло" and said.tool_calls is None
    with pytest.raises(HTTPException, match="delegates"):
        DIALECT.answer({"navigate": "grocery/"}, None, request)


def read_stream(answer: httpx.Response) -> list[ChatCompletionChunk]:
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/event-stream")
    events = [line.removeprefix("data: ") for line in answer.text.split("\n\n") if line]
    assert events[-1] == "[DONE]"
    return [ChatCompletionChunk.model_validate_json(event) for event in events[:-1]]


def test_the_server_streams_the_tea_script_to_the_planner(testmodel: str) -> None:
    with httpx.Client(base_url=testmodel) as client:
        # «Продукты» is the script's first step: the planner delegates and takes no step.
        for _ in range(2):
            first, finish, usage = read_stream(client.post("/chat/completions", json=body()))
            (call,) = first.choices[0].delta.tool_calls or []
            assert call.index == 0 and call.function.name == TOOL
            assert finish.choices[0].finish_reason == "tool_calls"
            assert not usage.choices and usage.usage and usage.usage.prompt_tokens > 0
        # Unstreamed, the same answer is one completion.
        plain = client.post("/chat/completions", json=body(stream=False))
        message = ChatCompletion.model_validate(plain.json()).choices[0].message
        assert message.tool_calls and message.tool_calls[0].function.name == TOOL
        # A script whose step is `done`: the planner's final answer, as text.
        ended = body(*returned('{"done": true}'), model="done-at-once")
        first, finish, _ = read_stream(client.post("/chat/completions", json=ended))
        assert first.choices[0].delta.content == "Готово"
        assert first.choices[0].delta.tool_calls is None
        assert finish.choices[0].finish_reason == "stop"
