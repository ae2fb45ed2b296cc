"""The chat-completions shapes of the `dom` and `gui` agents: an answer is read into its
models, one in another shape is refused naming the field (an agent error, not the stand's),
and a tool call goes back to the endpoint as it came."""

from __future__ import annotations

import json
import re

import pytest

from runner.agents.chat import ChatAnswer, ToolCall
from runner.agents.protocol import AGENT, error_kind

CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "click", "arguments": '{"ref": "e12"}'},
}


def answer(message: object, **extra: object) -> bytes:
    return json.dumps(
        {"id": "chatcmpl-1", "choices": [{"index": 0, "message": message}], **extra}
    ).encode()


def test_an_answer_with_text_parts_tool_calls_and_usage() -> None:
    read = ChatAnswer.parse(
        answer(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "Жму "}, {"text": "e12"}],
                "tool_calls": [CALL],
            },
            usage={"prompt_tokens": 120, "completion_tokens": 7, "total_tokens": 127},
        ),
        "the answer",
    )
    message = read.choices[0].message
    assert message.text == "Жму e12"
    assert message.tool_calls is not None and message.tool_calls[0].function.name == "click"
    assert read.usage is not None and (read.usage.prompt_tokens, read.usage.completion_tokens) == (
        120,
        7,
    )
    plain = ChatAnswer.parse(answer({"content": None, "tool_calls": None}), "the answer")
    assert plain.choices[0].message.text == "" and plain.usage is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"object": "chat.completion", "choices": []}', "choices"),
        (b'{"error": {"message": "overloaded"}}', "choices"),
        (answer("not a message"), "choices.0.message"),
        (
            answer({"tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}),
            "choices.0.message.tool_calls.0.function.name",
        ),
        (answer({"content": 5}), "choices.0.message.content"),
        (b"<html>502</html>", "(the whole value)"),
    ],
)
def test_an_answer_in_another_shape_names_the_field(body: bytes, field: str) -> None:
    with pytest.raises(ValueError, match=rf"^the answer: {re.escape(field)}(\.\w+)*: ") as caught:
        ChatAnswer.parse(body, "the answer")
    assert error_kind(caught.value) == AGENT


def test_a_tool_call_goes_back_as_it_came() -> None:
    call = ToolCall.model_validate(CALL)
    assert call.param("call_1") == CALL
    unnamed = ToolCall.model_validate({"function": {"name": "go_back"}})
    assert unnamed.id is None
    assert unnamed.param("call_3") == {
        "id": "call_3",
        "type": "function",
        "function": {"name": "go_back", "arguments": "{}"},
    }
