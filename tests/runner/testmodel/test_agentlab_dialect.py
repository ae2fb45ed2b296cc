"""AgentLab's generic agent's dialect: detecting its requests, reading the accessibility tree
with bids its prompt carries, and answering with one BrowserGym action in its tags. No
browser: the bodies hold a tree in the form BrowserGym prints for the grocery page."""

from __future__ import annotations

import ast
import re
from typing import Any

import pytest
from fastapi import HTTPException

from runner.models.testmodel.dialects import all_dialects
from runner.models.testmodel.dialects.agentlab import DIALECT, parse_tree
from runner.models.testmodel.schema import ChatRequest, Step
from runner.models.testmodel.server import find_label

TID = "0123456789abcdef0123456789abcdef"
URL = f"http://127.0.0.1:8000/t/{TID}/"
TEA = "Чай чёрный «Крупяной ряд» в пакетиках"
TREE = "\n".join(
    [
        f"RootWebArea 'Продукты', focused, url='{URL}grocery/'",
        "\t[13] navigation 'Разделы'",
        f"\t\t[16] link 'Продукты', clickable, url='{URL}grocery/'",
        "\t\t\tStaticText 'Продукты'",
        "\t[22] paragraph ''",
        "\t\tStaticText 'Хиты недели'",
        "\t\t\tInlineTextBox 'Хиты недели'",
        "\t[47] button 'В корзину: Масло сливочное «Ольхов луг» 82,5%', visible, clickable",
        f"\t[118] article {TEA!r}",
        f"\t\t[127] button {'В корзину: ' + TEA!r}, visible, clickable",
        "\t[130] link \"Кофе 'Утро'\", clickable",
        "\t[131] textbox 'Поиск', value='чай\\nчёрный'",
    ]
)


def prompt(tree: str) -> str:
    """The user message of a generic-agent step: the goal, the page, the action space."""
    return (
        f"# Instructions\n\n## Goal:\nОткрой {URL}, раздел «Продукты», положи чай в корзину.\n\n"
        f"# Observation of current step:\n\n## AXTree:\nNote: [bid] is the unique "
        f"alpha-numeric identifier of each element.\n\n{tree}\n\n## Focused element:\n"
        "bid='16'\n\n# History of interaction with the task:\n\n# Action space:\n"
        "click(bid: str)\nfill(bid: str, value: str)\n"
    )


def body(*user: str) -> ChatRequest:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You browse the web."}]
    for text in user:
        messages.append({"role": "user", "content": [{"type": "text", "text": text}]})
    return ChatRequest.model_validate({"model": "test", "messages": messages})


def action(content: str | None) -> str:
    """The action in an answer's `<action>` tag, checked to be one Python call."""
    found = re.search(r"<action>\n(.*)\n</action>", content or "", re.DOTALL)
    assert found and "<think>" in (content or ""), content
    call = ast.parse(found.group(1), mode="eval").body
    assert isinstance(call, ast.Call), found.group(1)
    return found.group(1)


def test_it_detects_the_generic_agents_requests_and_no_other_dialect_does():
    request = body(prompt(TREE))
    assert [d.name for d in all_dialects() if d.detect(request)] == ["agentlab"]
    assert not DIALECT.detect(body("Открой сайт и положи чай в корзину."))


def test_every_element_with_a_bid_is_read_with_its_name_or_its_text():
    elements = {e.ref: e.label for e in parse_tree(TREE)}
    assert list(elements) == ["13", "16", "22", "47", "118", "127", "130", "131"]
    assert elements["16"] == "Продукты" and elements["127"] == f"В корзину: {TEA}"
    assert elements["22"] == "Хиты недели"  # an unnamed element: the text under it
    assert elements["130"] == "Кофе 'Утро'"  # repr's double quotes around a single quote


def test_labels_resolve_against_the_newest_tree():
    old = TREE.replace("[127]", "[999]")
    request = body(prompt(old), "Error: no action found. Try again.", prompt(TREE))
    elements = DIALECT.elements(request)
    assert elements is not None
    assert find_label(elements, "Продукты").ref == "16"  # type: ignore[union-attr]
    assert find_label(elements, "В корзину", nth=1).ref == "127"  # type: ignore[union-attr]
    assert DIALECT.elements(body("no page here")) is None


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ({"click": "В корзину"}, "click('127')"),
        ({"type": "Поиск", "text": "чай «Крупяной»"}, "fill('127', 'чай «Крупяной»')"),
        ({"select": "Город", "option": "Москва"}, "select_option('127', 'Москва')"),
        ({"scroll": "up"}, "scroll(0, -500)"),
        ({"scroll": "down"}, "scroll(0, 500)"),
        ({"back": True}, "go_back()"),
        ({"navigate": f"{URL}grocery/"}, f"goto('{URL}grocery/')"),
        ({"wait": 1}, "scroll(0, 0)"),
        ({"done": "Чай в корзине", "success": True}, "send_msg_to_user('Чай в корзине')"),
        ({"done": "Чая нет", "success": False}, "report_infeasible('Чая нет')"),
        ({"report": "infeasible", "message": "Чая нет"}, "report_infeasible('Чая нет')"),
        ({"report": "done", "message": "Готово"}, "send_msg_to_user('Готово')"),
    ],
)
def test_each_step_is_one_browsergym_action_by_bid(step: Step, expected: str):
    target = parse_tree(TREE)[5]  # [127]
    assert action(DIALECT.answer(step, target, body(prompt(TREE))).content) == expected


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("infeasible", "report_infeasible('Какой?')"),
        ("needs_input", "send_msg_to_user('[needs_input] Какой?')"),
        ("gave_up", "send_msg_to_user('[gave_up] Какой?')"),
    ],
)
def test_every_report_is_an_action_browsergym_has(status: str, expected: str):
    """BrowserGym says `infeasible` itself; any other report is a message to the user with
    the tag REPORT_HINT asks for (issue 37, S-2), which the agentlab harness reads."""
    step: Step = {"report": status, "message": "Какой?"}
    assert action(DIALECT.answer(step, None, body(prompt(TREE))).content) == expected


def test_an_answer_quotes_what_it_types_as_python_does():
    step: Step = {"type": "Поиск", "text": 'it\'s "чай"\n'}
    answer = action(DIALECT.answer(step, parse_tree(TREE)[-1], body(prompt(TREE))).content)
    assert ast.literal_eval(answer.split(", ", 1)[1][:-1]) == 'it\'s "чай"\n'


@pytest.mark.parametrize(
    "step",
    [{"click": {"x": 10, "y": 20}}, {"type": "Поиск", "text": "чай", "submit": True}],
    ids=["a point", "typing with submit"],
)
def test_what_one_bid_action_cannot_do_is_refused(step: Step):
    with pytest.raises(HTTPException) as refused:
        DIALECT.answer(step, None if "click" in step else parse_tree(TREE)[-1], body(prompt(TREE)))
    assert refused.value.status_code == 422
