"""The `dom` agent's dialect: detecting its requests, reading the newest accessibility tree
it sends, and answering with the agent's own tools. No browser: request bodies are built
as the agent builds them, from a tree Playwright wrote for the grocery page."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi import HTTPException

from runner.agents import dom_agent
from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.dialects.dom import DIALECT, parse_tree
from runner.models.testmodel.schema import ChatRequest, Reply, Step
from runner.models.testmodel.server import find_label

TID = "0123456789abcdef0123456789abcdef"
HUB_TREE = f"""- generic [active] [ref=e1]:
  - navigation "Разделы" [ref=e2]:
    - link "Маркет" [ref=e3] [cursor=pointer]:
      - /url: /t/{TID}/shop/
    - link "Продукты" [ref=e5] [cursor=pointer]:
      - /url: /t/{TID}/grocery/
  - main [ref=e9]:
    - heading "Все сервисы в одном месте" [level=1] [ref=e10]
    - generic [ref=e12]:
      - link [ref=e17] [cursor=pointer]:
        - /url: /t/{TID}/grocery/
        - strong [ref=e18]: Продукты"""


def card(ref: int, title: str, price: str) -> str:
    return f"""      - article [ref=f1e{ref}]:
        - heading "{title}" [level=3] [ref=f1e{ref + 1}]
        - paragraph [ref=f1e{ref + 2}]: {price}
        - button "В корзину" [ref=f1e{ref + 6}] [cursor=pointer]"""


GROCERY_TREE = "\n".join(
    [
        "- generic [active] [ref=f1e1]:",
        "  - main [ref=f1e9]:",
        '    - link "Корзина 0" [ref=f1e18] [cursor=pointer]:',
        f"      - /url: /t/{TID}/grocery/cart",
        '      - generic [ref=f1e19]: "0"',
        '    - heading "Хиты недели" [level=2] [ref=f1e23]',
        "    - generic [ref=f1e24]:",
        card(25, "Масло сливочное «Ольхов луг» 82,5%", "209 ₽"),
        card(32, "Креветки «Студёная губа» варёно-мороженые 90/120", "729 ₽"),
        card(39, "Морковь мытая «Огород Ефимыча»", "79 ₽"),
        card(46, "Сок яблочный «Ладная кладовая» прямого отжима", "209 ₽"),
        card(53, "Чай чёрный «Крупяной ряд» в пакетиках", "149 ₽"),
        '    - searchbox "Поиск по \\"Продуктам\\"" [ref=f1e90]',
        '    - combobox "Город" [ref=f1e91]: Москва',
    ]
)


def state(step: int, url: str, tree: str) -> dict[str, Any]:
    """The user message the agent ends each request with."""
    seen = dom_agent.Observation(url, "Продукты", tree, None)
    spec = SimpleNamespace(limits=SimpleNamespace(max_steps=20))
    return dom_agent.state_message(spec, step, seen)  # type: ignore[arg-type]


def body(*messages: dict[str, Any]) -> ChatRequest:
    return ChatRequest.model_validate(
        {
            "model": "test",
            "messages": [
                {"role": "system", "content": dom_agent.SYSTEM},
                {"role": "user", "content": f"Task: положи чай в корзину\nStart page: /t/{TID}/"},
                *messages,
            ],
            "tools": dom_agent.TOOLS,
            "tool_choice": "auto",
            "temperature": 0,
        }
    )


def arguments(message: Reply) -> tuple[str, dict[str, Any]]:
    (call,) = message.tool_calls or []
    return call.function.name, json.loads(call.function.arguments)


def test_detects_the_dom_agents_tools_only() -> None:
    assert DIALECT.detect(body(state(1, "/", HUB_TREE)))
    openhands = [{"type": "function", "function": {"name": "browser_click", "parameters": {}}}]
    assert not DIALECT.detect(ChatRequest.model_validate({"messages": [], "tools": openhands}))
    index_click = {"name": "click", "parameters": {"properties": {"index": {}}}}
    tools = [{"function": index_click}]
    assert not DIALECT.detect(ChatRequest.model_validate({"messages": [], "tools": tools}))
    assert not DIALECT.detect(ChatRequest.model_validate({"messages": []}))


def test_labels_are_names_then_inline_text_then_the_text_inside() -> None:
    labels = {e.ref: e.label for e in parse_tree(HUB_TREE + "\n" + GROCERY_TREE)}
    assert labels["e5"] == "Продукты" and labels["e10"] == "Все сервисы в одном месте"
    assert labels["e17"] == "Продукты"  # an unnamed link: its text
    assert labels["e1"] == labels["e12"] == ""  # containers never take their content
    assert labels["f1e27"] == "209 ₽" and labels["f1e19"] == "0"
    assert labels["f1e90"] == 'Поиск по "Продуктам"'
    assert labels["f1e91"] == "Город"


def test_the_newest_tree_counts_and_the_tea_button_is_the_fifth() -> None:
    request = body(
        state(1, f"/t/{TID}/", HUB_TREE),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "click", "arguments": '{"ref": "e5"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "OK: clicked"},
        state(2, f"/t/{TID}/grocery/", GROCERY_TREE),
    )
    elements = DIALECT.elements(request)
    assert elements is not None and all(e.ref.startswith("f1e") for e in elements)
    tea = find_label(elements, "В корзину", nth=4)
    assert tea is not None and tea.ref == "f1e59"
    name, args = arguments(DIALECT.answer({"click": "В корзину", "nth": 4}, tea, request))
    assert (name, args) == ("click", {"ref": "f1e59"})
    assert dom_agent.describe(GROCERY_TREE, "f1e59") == 'button "В корзину"'


def test_a_request_without_a_tree_has_no_elements() -> None:
    request = body()
    assert DIALECT.elements(request) is None
    tool_error = {"role": "tool", "tool_call_id": "c", "content": "Error: no element [ref=e9]"}
    assert DIALECT.elements(body(tool_error)) is None


def test_every_step_is_one_of_the_agents_tools_with_its_required_arguments() -> None:
    request = body(state(1, "/", GROCERY_TREE))
    elements = DIALECT.elements(request) or []
    search = find_label(elements, "Поиск")
    city = find_label(elements, "Город")
    cases: list[tuple[Step, Element | None, dict[str, Any]]] = [
        ({"type": "Поиск", "text": "чай", "submit": True}, search,
         {"ref": "f1e90", "text": "чай", "submit": True}),
        ({"select": "Город", "option": "Казань"}, city, {"ref": "f1e91", "option": "Казань"}),
        ({"scroll": "up"}, None, {"direction": "up"}),
        ({"back": True}, None, {}),
        ({"navigate": f"http://127.0.0.1:8000/t/{TID}/grocery/"}, None,
         {"url": f"http://127.0.0.1:8000/t/{TID}/grocery/"}),
        ({"done": "Готово", "success": False}, None, {"message": "Готово", "success": False}),
        ({"report": "needs_input", "message": "Какой чай?"}, None,
         {"status": "needs_input", "message": "Какой чай?"}),
        ({"report": "done", "message": "Готово"}, None, {"message": "Готово", "success": True}),
    ]  # fmt: skip
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in dom_agent.TOOLS}
    for step, target, expected in cases:
        name, args = arguments(DIALECT.answer(step, target, request))
        assert args == expected, step
        assert set(tools[name]["required"]) <= set(args) <= set(tools[name]["properties"])


def test_observing_and_waiting_scroll_by_nothing() -> None:
    request = body(state(1, "/", GROCERY_TREE))
    for message in (DIALECT.observe(request), DIALECT.answer({"wait": 1}, None, request)):
        assert arguments(message) == ("scroll", {"direction": "down", "amount": 0})


def test_a_point_cannot_be_clicked_through_references() -> None:
    with pytest.raises(HTTPException) as error:
        DIALECT.answer({"click": {"x": 10, "y": 20}}, None, body(state(1, "/", HUB_TREE)))
    assert error.value.status_code == 422


def test_entries_yaml_quotes_for_a_colon_in_the_name() -> None:
    tree = (
        "- 'button \"В корзину: Чай чёрный «Крупяной ряд»\" [ref=e59] [cursor=pointer]': "
        "В корзину\n- 'link \"It''s: x\" [ref=e61]'"
    )
    assert [(e.ref, e.label) for e in parse_tree(tree)] == [
        ("e59", "В корзину: Чай чёрный «Крупяной ряд»"),
        ("e61", "It's: x"),
    ]
