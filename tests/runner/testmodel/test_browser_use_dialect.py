"""The browser-use dialect: finding its requests, reading the page state browser-use sends,
and answering with the JSON its `AgentOutput` parses. Request bodies are trimmed copies of
what browser-use 0.13 sent for the grocery page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import runner.models.testmodel.server as server
from runner.models.testmodel.dialects.browser_use import DIALECT, parse_attributes, parse_state
from runner.models.testmodel.schema import ChatCompletion, ChatRequest, Reply, Step
from runner.models.testmodel.server import find_label

TID = "0123456789abcdef0123456789abcdef"
SYSTEM = (
    "You are an AI agent designed to operate in an iterative loop to automate browser tasks. "
    "Your ultimate goal is accomplishing the task provided in <user_request>.\n<input>\n"
    "1. <user_request>: Your ultimate objective.\n2. <agent_history>: ...\n"
    "4. <browser_state>: Current URL, open tabs, interactive elements indexed for actions.\n"
    "</input>"
)
HUB_STATE = """<page_stats>12 links, 12 interactive, 0 iframes, 39 total elements</page_stats>
Current tab: D420
Interactive elements:
[Start of page]
[29]<a />
\tМаркет
[35]<a />
\tПродукты
Все сервисы в одном месте
[70]<a />
\tПродукты
[End of page]"""
GROCERY_STATE = """<page_stats>13 links, 25 interactive, 0 iframes, 185 total elements</page_stats>
Interactive elements:
[Start of page]
*[1685]<a />
\tПродукты
*[1702]<a />
\tПродукты
*[1723]<a />
\tКорзина
*[1740]<input type=search name=q placeholder=Найти продукты />
Хиты недели
Масло сливочное «Ольхов луг» 82,5%
*[1761]<button type=submit />
\tВ корзину
Креветки «Студёная губа» варёно-мороженые 90/120
*[1806]<button type=submit />
\tВ корзину
*[1851]<button type=submit />
\tВ корзину
*[1896]<button type=submit />
\tВ корзину
Чай чёрный «Крупяной ряд» в пакетиках
149 ₽
*[1941]<button type=submit />
\tВ корзину
[1950]<button aria-label=Добавить ещё одну />
\t+
|scroll element[1960]<div role=listbox /> (scroll: 0.0 pages above, 2.0 pages below)
\t[1961]<div role=option />
\t\tМосква
\tВыберите город
|SHADOW(open)|[1970]<select name=city value=Казань />
\tКазань
[End of page]"""


def action(name: str, params: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "properties": {
            name: {
                "properties": {key: {} for key in params},
                "required": required,
                "type": "object",
                "additionalProperties": False,
            }
        },
        "required": [name],
        "type": "object",
        "additionalProperties": False,
    }


ACTIONS = [
    action("done", {"text": 0, "success": 0, "files_to_display": 0}, ["text", "success"]),
    action("navigate", {"url": 0, "new_tab": 0}, ["url", "new_tab"]),
    action("go_back", {"description": 0}, ["description"]),
    action("wait", {"seconds": 0}, ["seconds"]),
    action("click", {"index": 0}, ["index"]),
    action("input", {"index": 0, "text": 0, "clear": 0}, ["index", "text", "clear"]),
    action("scroll", {"down": 0, "pages": 0, "index": 0}, ["down", "pages", "index"]),
    action("send_keys", {"keys": 0}, ["keys"]),
    action("select_dropdown", {"index": 0, "text": 0}, ["index", "text"]),
]
FIELDS = [
    "thinking",
    "evaluation_previous_goal",
    "memory",
    "next_goal",
    "current_plan_item",
    "plan_update",
    "action",
]


def user_message(state: str, history: str = "Agent initialized") -> str:
    return (
        f"<user_request>\nОткрой http://127.0.0.1:8000/t/{TID}/, раздел «Продукты». На главной "
        "странице в хитах недели есть чёрный чай «Крупяной ряд» в пакетиках — положи одну пачку "
        f"в корзину.\n</user_request>\n\n<agent_history>\n{history}\n</agent_history>\n"
        f"<browser_state>\n{state}\n</browser_state>\n<step_info>Step1 maximum:20</step_info>\n"
    )


def body(state: str | None = GROCERY_STATE, actions: list | None = None, **extra: Any) -> dict:
    schema = {
        "properties": {name: {} for name in FIELDS}
        | {"action": {"items": {"anyOf": actions or ACTIONS}, "type": "array"}},
        "required": FIELDS,
        "type": "object",
        "additionalProperties": False,
    }
    user = user_message(state) if state is not None else "<user_request>x</user_request>"
    return {
        "model": "test",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "agent_output", "strict": True, "schema": schema},
        },
        "temperature": 0,
    } | extra


def output(message: Reply) -> dict[str, Any]:
    assert message.content and not message.tool_calls
    parsed = json.loads(message.content)
    assert set(parsed) == set(FIELDS)  # the strict schema's every field, nothing else
    return parsed


def test_detects_browser_use_requests_only() -> None:
    assert DIALECT.detect(ChatRequest.model_validate(body()))
    # Without structured output (dont_force_structured_output): its system prompt.
    plain = body()
    del plain["response_format"]
    assert DIALECT.detect(ChatRequest.model_validate(plain))
    tools = {
        "model": "test",
        "messages": [{"role": "system", "content": "You are a browser agent."}],
        "tools": [{"type": "function", "function": {"name": "browser_click"}}],
    }
    assert not DIALECT.detect(ChatRequest.model_validate(tools))
    other = body()
    other["response_format"]["json_schema"]["name"] = "answer"
    other["messages"][0]["content"] = "Answer in JSON."
    assert not DIALECT.detect(ChatRequest.model_validate(other))


def test_detection_holds_with_a_system_message_extended() -> None:
    """The openmanus harness appends OpenManus's system prompt to browser-use's: its
    requests are still browser-use's, with structured output and without."""
    extended = body()
    extended["messages"][0]["content"] += "\nAnother agent's system prompt, appended."
    assert DIALECT.detect(ChatRequest.model_validate(extended))
    del extended["response_format"]
    assert DIALECT.detect(ChatRequest.model_validate(extended))


def test_reads_indexed_elements_and_their_labels() -> None:
    found = {e.ref: e.label for e in parse_state(GROCERY_STATE)}
    assert found["1685"] == "Продукты" and found["1723"] == "Корзина"
    assert found["1740"] == "Найти продукты"  # no text: its placeholder
    assert found["1941"] == "В корзину"
    assert found["1950"] == "Добавить ещё одну"  # aria-label over its text «+»
    assert found["1960"] == "Выберите город"  # the nested option's text is its own
    assert found["1961"] == "Москва"
    assert found["1970"] == "Казань"
    elements = DIALECT.elements(ChatRequest.model_validate(body()))
    assert elements is not None and [e.ref for e in elements][:3] == ["1685", "1702", "1723"]
    # The tea card's button is the fifth «В корзину» of the showcase.
    assert find_label(elements, "В корзину", nth=4).ref == "1941"  # type: ignore[union-attr]
    assert find_label(elements, "Продукты").ref == "1685"  # type: ignore[union-attr]


def test_attributes_keep_values_with_spaces() -> None:
    assert parse_attributes(" type=search aria-label=Найти в каталоге value=''") == {
        "type": "search",
        "aria-label": "Найти в каталоге",
        "value": "",
    }


def test_uses_the_newest_page_state_and_none_without_one() -> None:
    request = body(HUB_STATE)
    request["messages"].append({"role": "assistant", "content": "{}"})
    request["messages"].append({"role": "user", "content": user_message(GROCERY_STATE)})
    elements = DIALECT.elements(ChatRequest.model_validate(request))
    assert elements is not None and elements[0].ref == "1685"
    # The system prompt names <browser_state> too; it is not a page state.
    assert DIALECT.elements(ChatRequest.model_validate(body(None))) is None
    # With vision the user message is a list of parts.
    vision = body()
    text = vision["messages"][1]["content"]
    vision["messages"][1]["content"] = [
        {"type": "text", "text": text},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
    ]
    vision_request = ChatRequest.model_validate(vision)
    assert len(DIALECT.elements(vision_request) or []) == len(parse_state(GROCERY_STATE))


def test_answers_every_step_kind_as_browser_use_actions() -> None:
    request = ChatRequest.model_validate(body())
    elements = DIALECT.elements(request) or []
    tea = find_label(elements, "В корзину", nth=4)
    city = find_label(elements, "Казань")
    search = find_label(elements, "Найти продукты")

    def act(step: Step, target: Any = None) -> list[dict[str, Any]]:
        return output(DIALECT.answer(step, target, request))["action"]

    assert act({"click": "В корзину", "nth": 4}, tea) == [{"click": {"index": 1941}}]
    assert act({"type": "Найти продукты", "text": "чай", "submit": True}, search) == [
        {"input": {"index": 1740, "text": "чай", "clear": True}},
        {"send_keys": {"keys": "Enter"}},
    ]
    assert act({"type": "Найти продукты", "text": "чай"}, search) == [
        {"input": {"index": 1740, "text": "чай", "clear": True}}
    ]
    assert act({"select": "Казань", "option": "Москва"}, city) == [
        {"select_dropdown": {"index": 1970, "text": "Москва"}}
    ]
    assert act({"scroll": "down"}) == [{"scroll": {"down": True, "pages": 1.0, "index": None}}]
    assert act({"scroll": "up"})[0]["scroll"]["down"] is False
    assert act({"back": True}) == [{"go_back": {"description": None}}]
    url = f"http://127.0.0.1:8000/t/{TID}/grocery/"
    assert act({"navigate": url}) == [{"navigate": {"url": url, "new_tab": False}}]
    assert act({"wait": 2}) == [{"wait": {"seconds": 2}}]
    assert act({"done": "Готово", "success": False}) == [
        {"done": {"text": "Готово", "success": False, "files_to_display": []}}
    ]
    assert act({"report": "gave_up", "message": "Не вышло"}) == [
        {"done": {"text": "Не вышло", "success": False, "files_to_display": []}}
    ]
    with pytest.raises(ValueError, match="no report action"):  # not offered by this request
        act({"report": "infeasible", "message": "Чая нет"})
    offered = ChatRequest.model_validate(
        body(actions=[*ACTIONS, action("report", {"status": 0, "text": 0}, ["status", "text"])])
    )
    said = output(DIALECT.answer({"report": "infeasible", "message": "Чая нет"}, None, offered))
    assert said["action"] == [{"report": {"status": "infeasible", "text": "Чая нет"}}]
    observed = output(DIALECT.observe(request))
    assert observed["action"] == [{"wait": {"seconds": 1}}]
    assert observed["current_plan_item"] is None and observed["next_goal"]


def test_coordinates_only_where_the_schema_offers_them() -> None:
    with pytest.raises(ValueError, match="coordinates"):
        DIALECT.answer({"click": {"x": 640, "y": 120}}, None, ChatRequest.model_validate(body()))
    with_points = [
        action("click", {"index": 0, "coordinate_x": 0, "coordinate_y": 0}, ["index"]),
        *(a for a in ACTIONS if "click" not in a["properties"]),
    ]
    request = ChatRequest.model_validate(body(actions=with_points))
    answer = output(DIALECT.answer({"click": {"x": 640, "y": 120}}, None, request))
    assert answer["action"] == [{"click": {"coordinate_x": 640, "coordinate_y": 120}}]


def test_older_action_names_when_the_schema_has_them() -> None:
    older = [
        action("go_to_url", {"url": 0, "new_tab": 0}, ["url"]),
        action("click_element_by_index", {"index": 0}, ["index"]),
        *ACTIONS[:1],
    ]
    request = ChatRequest.model_validate(body(actions=older))
    assert output(DIALECT.answer({"navigate": "http://x/"}, None, request))["action"] == [
        {"go_to_url": {"url": "http://x/", "new_tab": False}}
    ]
    target = (DIALECT.elements(request) or [])[0]
    assert output(DIALECT.answer({"click": "Продукты"}, target, request))["action"] == [
        {"click_element_by_index": {"index": 1685}}
    ]


def test_the_server_runs_the_tea_script_through_this_dialect(testmodel: str) -> None:
    """The shipped grocery script, step by step, as browser-use would ask for it."""
    with httpx.Client(base_url=testmodel) as client:

        def ask(state: str) -> list[dict[str, Any]]:
            answer = client.post("/chat/completions", json=body(state))
            assert answer.status_code == 200, answer.text
            data = ChatCompletion.model_validate(answer.json())
            assert data.usage.prompt_tokens > 0
            return output(data.choices[0].message)["action"]

        assert ask(HUB_STATE) == [{"click": {"index": 35}}]
        # «В корзину» is not on the hub: the model waits for a fresh state, no step taken.
        assert ask(HUB_STATE) == [{"wait": {"seconds": 1}}]
        assert ask(GROCERY_STATE) == [{"click": {"index": 1941}}]
        assert next(iter((ask(GROCERY_STATE))[0])) == "done"


def test_shipped_scripts_for_this_harness() -> None:
    scripts = server.load_scripts(Path(server.SCRIPTS_DIR))
    assert scripts["done-at-once"].steps == [{"done": "Готово", "success": True}]
    assert scripts["server-error"].steps == [{"http_error": 500}]
    assert scripts["never-ends"].loop_from == 0
    assert scripts["grocery_showcase_tea"].match
