"""The deepagents dialect: finding the requests of deepagents with Playwright's MCP tools,
reading the snapshot the newest `browser_snapshot` result carries, and answering with the
MCP tools' calls. Request bodies are trimmed copies of what deepagents 0.7.32 sent
(langchain-openai, `@playwright/mcp` 0.0.83) for the hub and grocery pages."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastapi import HTTPException

from runner.models.testmodel.dialects import all_dialects
from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.dialects.deepagents import DIALECT
from runner.models.testmodel.schema import ChatCompletion, ChatRequest, Reply, Step
from runner.models.testmodel.server import find_label

TID = "00112233445566778899aabbccddeeff"
BASE = f"http://127.0.0.1:8000/t/{TID}/"
PROMPT = (
    f"Открой {BASE}, раздел «Продукты». На главной странице в хитах недели есть чёрный чай "
    "«Крупяной ряд» в пакетиках — положи одну пачку в корзину."
)
TOOLS = [
    "ls",
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "grep",
    "task",
    "browser_navigate",
    "browser_navigate_back",
    "browser_snapshot",
    "browser_click",
    "browser_type",
    "browser_select_option",
    "browser_press_key",
    "browser_wait_for",
    "browser_take_screenshot",
]


def snapshot(url: str, tree: str) -> str:
    """A `browser_snapshot` result as the MCP server writes it."""
    return f"### Page\n- Page URL: {url}\n### Snapshot\n```yaml\n{tree}\n```"


def acted(url: str, code: str) -> str:
    """An action's result: the code it ran, the page, its snapshot left in a file."""
    return (
        f"### Ran Playwright code\n```js\n{code}\n```\n### Page\n- Page URL: {url}\n"
        "### Snapshot\n- [Snapshot](./page-2026-12-02T01-42-26-934Z.yml)"
    )


HUB = snapshot(
    BASE,
    f"""- generic [active] [ref=e1]:
  - navigation "Разделы" [ref=e2]:
    - link "Маркет" [ref=e3] [cursor=pointer]:
      - /url: /t/{TID}/shop/
    - link "Продукты" [ref=e5] [cursor=pointer]:
      - /url: /t/{TID}/grocery/
  - 'heading "Все сервисы: в одном месте" [level=1] [ref=e10]'""",
)
TEAS = ["Масло сливочное", "Креветки", "Морковь мытая", "Сок яблочный", "Чай чёрный"]
GROCERY = snapshot(
    BASE + "grocery/",
    "\n".join(
        [
            "- generic [active] [ref=f1e1]:",
            '  - textbox "Найти продукты" [ref=f1e20]',
            '  - combobox "Город" [ref=f1e21]:',
            '    - option "Москва" [selected]',
            *(
                f"  - 'button \"В корзину: {title}\" [ref=f1e{30 + n}] [cursor=pointer]'"
                for n, title in enumerate(TEAS)
            ),
        ]
    ),
)
CLICKED = acted(BASE + "grocery/", "await page.getByRole('link', { name: 'Продукты' }).click();")


def body(*turns: tuple[str, dict[str, Any], str], model: str = "test") -> dict[str, Any]:
    """A chat request after `turns`: (tool name, its arguments, its result text), the
    result as langchain-openai sends an MCP tool's content (a list of text parts)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": ""},
        {"role": "user", "content": PROMPT},
    ]
    for number, (name, arguments, result) in enumerate(turns):
        call_id = f"call_{number:016x}"
        call = {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}
        messages += [
            {
                "content": None,
                "role": "assistant",
                "tool_calls": [{"type": "function", "id": call_id, "function": call}],
            },
            {
                "content": [{"type": "text", "text": result}],
                "role": "tool",
                "tool_call_id": call_id,
            },
        ]
    tools = [
        {"type": "function", "function": {"name": n, "description": n, "parameters": {}}}
        for n in TOOLS
    ]
    return {
        "model": model,
        "stream": False,
        "messages": messages,
        "temperature": 0.0,
        "tools": tools,
    }


SNAPSHOT: tuple[str, dict[str, Any]] = ("browser_snapshot", {})


def request(*turns: tuple[str, dict[str, Any], str]) -> ChatRequest:
    return ChatRequest.model_validate(body(*turns))


def calls(message: Reply) -> list[tuple[str, Any]]:
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


def test_detects_deepagents_requests_only() -> None:
    assert DIALECT.detect(request())
    assert [d.name for d in all_dialects() if d.detect(request())] == ["deepagents"]
    without_subagents = body()
    without_subagents["tools"] = [
        t for t in without_subagents["tools"] if t["function"]["name"] != "task"
    ]
    assert not DIALECT.detect(ChatRequest.model_validate(without_subagents))


def test_reads_the_snapshot_of_browser_snapshot() -> None:
    elements = DIALECT.elements(request((*SNAPSHOT, GROCERY)))
    assert elements is not None
    assert find_label(elements, "Найти продукты") == Element(ref="f1e20", label="Найти продукты")
    tea = find_label(elements, "В корзину", nth=4)
    assert tea == Element(ref="f1e34", label="В корзину: Чай чёрный")
    hub = DIALECT.elements(request((*SNAPSHOT, HUB)))
    assert hub is not None and find_label(hub, "Продукты") == Element(ref="e5", label="Продукты")
    # YAML quotes an entry whose name holds ": ".
    assert find_label(hub, "Все сервисы") is not None


def test_the_snapshot_is_stale_once_a_browser_action_followed_it() -> None:
    assert DIALECT.elements(request()) is None
    after_click = request((*SNAPSHOT, HUB), ("browser_click", {"target": "e5"}, CLICKED))
    assert DIALECT.elements(after_click) is None
    fresh = request(
        (*SNAPSHOT, HUB), ("browser_click", {"target": "e5"}, CLICKED), (*SNAPSHOT, GROCERY)
    )
    elements = DIALECT.elements(fresh)
    assert elements is not None and elements[0].ref == "f1e1"
    # deepagents' own tools leave the page alone: the snapshot before them still holds.
    listed = request((*SNAPSHOT, GROCERY), ("ls", {"path": "/"}, "[]"))
    assert DIALECT.elements(listed) == elements


def test_answers_every_step_kind_as_a_tool_call() -> None:
    grocery = request((*SNAPSHOT, GROCERY))
    search = Element(ref="f1e20", label="Найти продукты")

    def act(step: Step, element: Element | None = None) -> list[tuple[str, Any]]:
        return calls(DIALECT.answer(step, element, grocery))

    tea = Element(ref="f1e34", label="В корзину: Чай чёрный")
    assert act({"click": "В корзину", "nth": 4}, tea) == [
        ("browser_click", {"element": "В корзину: Чай чёрный", "target": "f1e34"})
    ]
    assert act({"type": "Найти", "text": "чай", "submit": True}, search) == [
        (
            "browser_type",
            {"element": "Найти продукты", "target": "f1e20", "text": "чай", "submit": True},
        )
    ]
    city = Element(ref="f1e21", label="Город")
    assert act({"select": "Город", "option": "Москва"}, city) == [
        ("browser_select_option", {"element": "Город", "target": "f1e21", "values": ["Москва"]})
    ]
    assert act({"scroll": "down"}) == [("browser_press_key", {"key": "PageDown"})]
    assert act({"scroll": "up"}) == [("browser_press_key", {"key": "PageUp"})]
    assert act({"back": True}) == [("browser_navigate_back", {})]
    assert act({"navigate": BASE + "grocery/"}) == [
        ("browser_navigate", {"url": BASE + "grocery/"})
    ]
    assert act({"wait": 1}) == [("browser_wait_for", {"time": 1.0})]
    done = DIALECT.answer({"done": "Готово", "success": True}, None, grocery)
    assert done.content == "Готово" and not done.tool_calls
    asked = DIALECT.answer({"report": "needs_input", "message": "Какой?"}, None, grocery)
    assert asked.content == "[needs_input] Какой?" and not asked.tool_calls
    assert calls(DIALECT.observe(grocery)) == [SNAPSHOT]


def test_steps_it_cannot_express_are_refused() -> None:
    grocery = request((*SNAPSHOT, GROCERY))
    with pytest.raises(HTTPException) as refused:
        DIALECT.answer({"click": {"x": 640, "y": 120}}, None, grocery)
    assert refused.value.status_code == 422
    with pytest.raises(HTTPException):
        DIALECT.answer({"scroll": "left"}, None, grocery)


def test_the_server_runs_the_tea_script_through_this_dialect(testmodel: str) -> None:
    """The shipped grocery script, request by request, as deepagents sends them."""
    with httpx.Client(base_url=testmodel) as client:

        def ask(*turns: tuple[str, dict[str, Any], str]) -> ChatCompletion:
            answer = client.post("/chat/completions", json=body(*turns))
            assert answer.status_code == 200, answer.text
            return ChatCompletion.model_validate(answer.json())

        # No snapshot yet: the model takes one first (no script step taken).
        assert calls(ask().choices[0].message) == [SNAPSHOT]
        hub = (*SNAPSHOT, HUB)
        link = {"element": "Продукты", "target": "e5"}
        assert calls(ask(hub).choices[0].message) == [("browser_click", link)]
        clicked = ("browser_click", link, CLICKED)
        assert calls(ask(hub, clicked).choices[0].message) == [SNAPSHOT]
        grocery = (*SNAPSHOT, GROCERY)
        buy = {"element": "В корзину: Чай чёрный", "target": "f1e34"}
        assert calls(ask(hub, clicked, grocery).choices[0].message) == [("browser_click", buy)]
        bought = ("browser_click", buy, acted(BASE + "grocery/", "await page.click();"))
        final = ask(hub, clicked, grocery, bought).choices[0]
        assert final.finish_reason == "stop" and not final.message.tool_calls
        assert "Крупяной ряд" in (final.message.content or "")
