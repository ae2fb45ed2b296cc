"""The OpenHands dialect: finding OpenHands SDK requests, reading the element list its
`browser_get_state` tool returns, and answering with its browser tool calls. Request
bodies are trimmed copies of what openhands-sdk 1.58 sent for the hub and grocery pages."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi import HTTPException

from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.dialects.openhands import DIALECT, parse_elements
from runner.models.testmodel.schema import ChatCompletion, ChatRequest, Reply, Step
from runner.models.testmodel.server import find_label

TID = "fedcba9876543210fedcba9876543210"
BASE = f"http://127.0.0.1:8000/t/{TID}/"
PROMPT = (
    f"Открой {BASE}, раздел «Продукты». На главной странице в хитах недели есть чёрный чай "
    "«Крупяной ряд» в пакетиках — положи одну пачку в корзину."
)
TOOLS = [
    "browser_navigate",
    "browser_click",
    "browser_get_state",
    "browser_get_content",
    "browser_type",
    "browser_scroll",
    "browser_go_back",
    "browser_list_tabs",
    "finish",
    "think",
]


def state(url: str, elements: list[dict[str, Any]]) -> str:
    """A `browser_get_state` result as the tool writes it (indented, ASCII-escaped)."""
    page = {
        "url": url,
        "title": url.removeprefix("http://"),
        "tabs": [{"url": url, "title": url.removeprefix("http://")}],
        "interactive_elements": elements,
        "viewport": {"width": 1280, "height": 800},
        "page": {"width": 1280, "height": 2200},
        "scroll": {"x": 0, "y": 0},
    }
    return json.dumps(page, indent=2)


def link(index: int, text: str, path: str) -> dict[str, Any]:
    return {"index": index, "tag": "a", "text": text, "href": f"/t/{TID}/{path}"}


HUB = state(
    BASE,
    [
        link(29, "Маркет", "shop/"),
        link(32, "Книги", "books/"),
        link(35, "Продукты", "grocery/"),
        link(38, "Поезда", "rail/"),
        link(70, "Продукты", "grocery/"),
    ],
)
BUY = [271, 316, 361, 406, 451, 496]
GROCERY = state(
    BASE + "grocery/",
    [
        link(195, "Продукты", "grocery/"),
        link(217, "Овощи и фрукты", "grocery/c/produce"),
        link(233, "Корзина \n0", "grocery/cart"),
        {"index": 240, "tag": "input", "text": "", "placeholder": "Найти продукты"},
        *({"index": i, "tag": "button", "text": "В корзину"} for i in BUY),
    ],
)


def tool_schema(name: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} (trimmed)",
            "parameters": {"type": "object", "properties": {}, "required": []},
        },
    }


def body(*turns: tuple[str, dict[str, Any], str], model: str = "test") -> dict[str, Any]:
    """A chat request after `turns`: (tool name, its arguments, its result text)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": [{"type": "text", "text": "<SOUL>You are OpenHands…"}]},
        {"role": "user", "content": [{"type": "text", "text": PROMPT}]},
    ]
    for number, (name, arguments, result) in enumerate(turns):
        call_id = f"call_{number:04d}"
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                ],
            }
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "name": name,
                "content": [{"type": "text", "text": result}],
            }
        )
    return {
        "model": model,
        "messages": messages,
        "tools": [tool_schema(n) for n in TOOLS],
        "reasoning_effort": "high",
    }


GET_STATE = ("browser_get_state", {"include_screenshot": False})


def request(*turns: tuple[str, dict[str, Any], str]) -> ChatRequest:
    """`body(*turns)` as the test model reads it."""
    return ChatRequest.model_validate(body(*turns))


def calls(message: Reply) -> list[tuple[str, Any]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


def test_detects_openhands_requests_only() -> None:
    assert DIALECT.detect(request())
    without_tools = body()
    del without_tools["tools"]
    assert not DIALECT.detect(ChatRequest.model_validate(without_tools))
    other = body()
    other["tools"] = [tool_schema("click"), tool_schema("done")]
    assert not DIALECT.detect(ChatRequest.model_validate(other))


def test_reads_the_element_list_of_browser_get_state() -> None:
    elements = DIALECT.elements(request((*GET_STATE, GROCERY)))
    assert elements is not None
    assert [e.ref for e in elements[:3]] == ["195", "217", "233"]
    assert elements[2].label == "Корзина \n0"
    # An input without text is known by its placeholder.
    assert find_label(elements, "Найти продукты") == Element(ref="240", label="Найти продукты")
    tea = find_label(elements, "В корзину", nth=4)
    assert tea is not None and tea.ref == "451"


def test_the_state_is_stale_once_an_action_followed_it() -> None:
    assert DIALECT.elements(request()) is None
    after_click = request((*GET_STATE, HUB), ("browser_click", {"index": 35}, "Clicked element 35"))
    assert DIALECT.elements(after_click) is None
    fresh = request(
        (*GET_STATE, HUB),
        ("browser_click", {"index": 35}, "Clicked element 35"),
        (*GET_STATE, GROCERY),
    )
    elements = DIALECT.elements(fresh)
    assert elements is not None and elements[0].ref == "195"


def test_a_clipped_result_still_yields_its_whole_elements() -> None:
    clipped = GROCERY[: GROCERY.index('"index": 406')] + "<response clipped>"
    elements = parse_elements(clipped)
    assert elements is not None
    assert [e.ref for e in elements][-3:] == ["271", "316", "361"]
    assert parse_elements("Clicked element 35") is None


def test_answers_every_step_kind_as_a_tool_call() -> None:
    grocery = request((*GET_STATE, GROCERY))
    target = Element(ref="240", label="Найти продукты")

    def act(step: Step, element: Element | None = None) -> list[tuple[str, Any]]:
        return calls(DIALECT.answer(step, element, grocery))

    assert act({"click": "В корзину"}, Element(ref="451", label="В корзину")) == [
        ("browser_click", {"index": 451})
    ]
    assert act({"type": "Найти", "text": "чай", "submit": True}, target) == [
        ("browser_type", {"index": 240, "text": "чай\n"})
    ]
    assert act({"type": "Найти", "text": "чай"}, target) == [
        ("browser_type", {"index": 240, "text": "чай"})
    ]
    assert act({"select": "Город", "option": "Москва"}, target) == [
        ("browser_type", {"index": 240, "text": "Москва"})
    ]
    assert act({"scroll": "down"}) == [("browser_scroll", {"direction": "down"})]
    assert act({"back": True}) == [("browser_go_back", {})]
    assert act({"navigate": BASE + "grocery/"}) == [
        ("browser_navigate", {"url": BASE + "grocery/"})
    ]
    assert act({"wait": 1}) == [("browser_get_state", {"include_screenshot": False})]
    assert act({"done": "Готово", "success": True}) == [("finish", {"message": "Готово"})]
    assert act({"report": "infeasible", "message": "Чая нет"}) == [
        ("finish", {"message": "[infeasible] Чая нет"})
    ]
    assert calls(DIALECT.observe(grocery)) == [("browser_get_state", {"include_screenshot": False})]


def test_steps_it_cannot_express_are_refused() -> None:
    grocery = request((*GET_STATE, GROCERY))
    with pytest.raises(HTTPException) as refused:
        DIALECT.answer({"click": {"x": 640, "y": 120}}, None, grocery)
    assert refused.value.status_code == 422
    with pytest.raises(HTTPException):
        DIALECT.answer({"scroll": "left"}, None, grocery)


def test_the_server_runs_the_tea_script_through_this_dialect(testmodel: str) -> None:
    """The shipped grocery script, request by request, as an OpenHands agent sends them."""
    with httpx.Client(base_url=testmodel) as client:

        def ask(*turns: tuple[str, dict[str, Any], str]) -> list[tuple[str, Any]]:
            answer = client.post("/chat/completions", json=body(*turns))
            assert answer.status_code == 200, answer.text
            data = ChatCompletion.model_validate(answer.json())
            assert data.choices[0].finish_reason == "tool_calls"
            return calls(data.choices[0].message)

        # No page state yet: the model reads it first (no script step taken).
        assert ask() == [GET_STATE]
        hub = (*GET_STATE, HUB)
        assert ask(hub) == [("browser_click", {"index": 35})]
        clicked = ("browser_click", {"index": 35}, "Clicked element 35")
        assert ask(hub, clicked) == [GET_STATE]
        grocery = (*GET_STATE, GROCERY)
        assert ask(hub, clicked, grocery) == [("browser_click", {"index": 451})]
        bought = ("browser_click", {"index": 451}, "Clicked element 451")
        (name, arguments), *_ = ask(hub, clicked, grocery, bought)
        assert name == "finish" and "Крупяной ряд" in arguments["message"]
