"""The `gui` agent's families and the test model's `gui` dialect: coordinate frames, each
family's parser on answers written as the models write them, downgrades, refusals, and the
round trip dialect -> family parser -> viewport for every family and frame. No browser."""

from __future__ import annotations

from typing import Any

import pytest

from runner.agents.chat import ToolCall
from runner.agents.gui_agent import Turn, conversation
from runner.agents.gui_families import (
    FAMILIES,
    FRAMES,
    Action,
    ParseError,
    Screen,
    executable,
    parse_evocua,
    parse_fara,
    parse_jedi,
    parse_pyautogui,
    parse_qwen3vl,
    parse_uitars,
    smart_resize,
)
from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.dialects.gui import DIALECT
from runner.models.testmodel.schema import ChatRequest, Step
from runner.models.testmodel.server import find_label

VIEWPORT = (1280, 800)
TEA = {"label": "В корзину", "box": [1002, 529, 109, 32]}  # centre (1056.5, 545)
ELEMENTS = [
    {"label": "Продукты", "box": [187, 8, 118, 36]},
    {"label": "Поиск по каталогу", "box": [400, 60, 300, 32]},
    *[{"label": "В корзину", "box": [68 + 233 * i, 514, 109, 32]} for i in range(4)],
    TEA,
]


def one(actions: list[Action]) -> Action:
    (action,) = actions
    return action


def test_smart_resize_is_qwens() -> None:
    assert smart_resize(1280, 800) == (1288, 812)
    assert smart_resize(2560, 1600) == (2548, 1596)
    w, h = smart_resize(8000, 6000)
    assert w % 28 == h % 28 == 0 and w * h <= 28 * 28 * 16384


@pytest.mark.parametrize(
    ("frame", "image", "point", "expected"),
    [
        ("pixels", (1280, 800), (640, 400), (640, 400)),
        ("pixels", (2560, 1600), (640, 400), (320, 200)),  # a device-pixel-ratio 2 image
        ("resized", (1280, 800), (644, 406), (640, 400)),
        ("resized", (1280, 800), (0.5, 0.25), (640, 200)),  # fractions where pixels are due
        ("0..1", (1280, 800), (0.5, 0.25), (640, 200)),
        ("0..999", (1280, 800), (500, 500), (640, 400)),
        ("0..1000", (1280, 800), (250, 1000), (320, 799)),  # clamped to the last pixel
        ("0..1000", (1280, 800), (-20, 2000), (0, 799)),
    ],
)
def test_frames_scale_to_the_viewport_and_clamp(frame, image, point, expected) -> None:
    assert Screen(VIEWPORT, image, frame).to_viewport(*point) == pytest.approx(expected)


def test_prompts_describe_each_familys_action_space_and_frame() -> None:
    screen = Screen(VIEWPORT, VIEWPORT, "resized")
    uitars = FAMILIES["uitars"].prompt(Screen(VIEWPORT, VIEWPORT, "0..1000"))
    assert "Action:" in uitars and "click(start_box='(x,y)')" in uitars and "1000" in uitars
    qwen = FAMILIES["qwen3vl"].prompt(Screen(VIEWPORT, VIEWPORT, "0..999"))
    assert "<tools>" in qwen and "<tool_call>" in qwen and "triple_click" in qwen and "999" in qwen
    fara = FAMILIES["fara"].prompt(screen)
    assert "visit_url" in fara and "history_back" in fara and "1288x812" in fara
    opencua = FAMILIES["opencua"].prompt(screen)
    assert "## Code" in opencua and "pyautogui.click" in opencua and "1288x812" in opencua
    evocua = FAMILIES["evocua"].prompt(Screen(VIEWPORT, VIEWPORT, "0..999"))
    assert "<tool_call>" in evocua and "key_down" in evocua and "'Action:'" in evocua
    assert "1000x1000" in evocua and "999" in evocua
    jedi = FAMILIES["jedi"].prompt(screen)
    assert "<tool_call>" in jedi and "left_click_drag" in jedi and "1288x812" in jedi
    assert "triple_click" not in jedi and "hscroll" not in jedi
    assert {f.frame for f in FAMILIES.values()} <= set(FRAMES)


def test_uitars_answers() -> None:
    click = one(parse_uitars("Thought: жму\nAction: click(start_box='(512,300)')", []))
    assert (click.name, click.point) == ("click", (512, 300))
    tokens = "Action: left_double(start_box='<|box_start|>(10,20)<|box_end|>')"
    assert one(parse_uitars(tokens, [])).point == (10, 20)
    assert one(parse_uitars("Action: click(point='<point>7 9</point>')", [])).point == (7, 9)
    box = one(parse_uitars("Action: click(start_box='[100, 200, 300, 400]')", []))
    assert box.point == (200, 300)  # a box: its centre
    both = parse_uitars(
        "Thought: ищу\nAction: click(start_box='(5,5)')\n\ntype(content='чай\\n')", []
    )
    assert [a.name for a in both] == ["click", "type"]
    assert (both[1].text, both[1].submit) == ("чай", True)
    quoted = one(parse_uitars("Action: type(content='it\\'s\nfine')", []))
    assert quoted.text == "it's\nfine"  # a raw line break: read by pattern, not by Python
    keys = one(parse_uitars("Action: hotkey(key='ctrl a')", []))
    assert keys.keys == ("Control", "a")
    scroll = one(parse_uitars("Action: scroll(start_box='(500,500)', direction='up')", []))
    assert (scroll.direction, scroll.point) == ("up", (500, 500))
    drag = one(parse_uitars("Action: drag(start_box='(1,2)', end_box='(3,4)')", []))
    assert (drag.point, drag.end) == ((1, 2), (3, 4))
    done = one(parse_uitars("Thought: всё\nAction: finished(content='Чай в корзине')", []))
    assert (done.name, done.text, done.status) == ("done", "Чай в корзине", "done")
    asked = one(parse_uitars("Action: call_user(content='Какой чай?')", []))
    assert (asked.text, asked.status) == ("Какой чай?", "needs_input")
    none = one(parse_uitars("Action: report(status='infeasible', content='Такого чая нет')", []))
    assert (none.name, none.text, none.status) == ("done", "Такого чая нет", "infeasible")
    with pytest.raises(ParseError, match="report status 'later'"):
        parse_uitars("Action: report(status='later', content='…')", [])
    for bad in ("Я нажму на кнопку", "Action: fly(start_box='(1,2)')", "Action: click('x')"):
        with pytest.raises(ParseError):
            parse_uitars(bad, [])


def test_qwen3vl_answers_in_text_or_parsed_by_the_server() -> None:
    text = (
        "Нажму кнопку.\n<tool_call>\n"
        '{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [500, 300]}}'
        "\n</tool_call>"
    )
    assert one(parse_qwen3vl(text, [])).point == (500, 300)
    native = [
        ToolCall.model_validate(
            {
                "id": "c",
                "type": "function",
                "function": {
                    "name": "computer_use",
                    "arguments": '{"action": "scroll", "pixels": -5, "coordinate": [10, 10]}',
                },
            }
        )
    ]
    scroll = one(parse_qwen3vl("", native))
    assert (scroll.direction, scroll.amount) == ("down", 500)  # small numbers are notches
    key_call = '{"name": "computer_use", "arguments": {"action": "key", "keys": ["alt", "left"]}}'
    key = one(parse_qwen3vl(f"<tool_call>{key_call}</tool_call>", []))
    assert key.keys == ("Alt", "ArrowLeft")
    end = parse_qwen3vl(
        '<tool_call>{"name": "computer_use", "arguments": {"action": "answer", "text": "149 ₽"}}'
        '</tool_call><tool_call>{"name": "computer_use", "arguments": {"action": "terminate", '
        '"status": "failure"}}</tool_call>',
        [],
    )
    assert [(a.name, a.text, a.status) for a in end] == [
        ("answer", "149 ₽", "done"),
        ("done", "", "gave_up"),
    ]

    def terminate(status: str) -> str:
        arguments = f'{{"action": "terminate", "status": "{status}"}}'
        return f'<tool_call>{{"name": "computer_use", "arguments": {arguments}}}</tool_call>'

    for status in ("infeasible", "needs_input"):  # the statuses the prompt adds
        assert one(parse_qwen3vl(terminate(status), [])).status == status
    with pytest.raises(ParseError, match="terminate status 'maybe'"):
        parse_qwen3vl(terminate("maybe"), [])
    triple = executable(
        one(
            parse_qwen3vl(
                '<tool_call>{"name": "computer_use", "arguments": '
                '{"action": "triple_click", "coordinate": [1, 2]}}</tool_call>',
                [],
            )
        )
    )
    assert (triple.name, triple.notes) == ("click", ["triple_click done as click"])
    for bad in (
        "no call at all",
        "<tool_call>{not json}</tool_call>",
        '<tool_call>{"name": "browser", "arguments": {"action": "left_click"}}</tool_call>',
        '<tool_call>{"name": "computer_use", "arguments": {"action": "visit_url"}}</tool_call>',
    ):
        with pytest.raises(ParseError):
            parse_qwen3vl(bad, [])


def test_fara_answers() -> None:
    def call(args: str) -> str:
        return f'<tool_call>\n{{"name": "computer_use", "arguments": {args}}}\n</tool_call>'

    typed = parse_fara(
        call('{"action": "type", "coordinate": [40, 50], "text": "чай", "press_enter": true}'), []
    )
    assert [(a.name, a.point) for a in typed] == [("click", (40, 50)), ("type", None)]
    assert typed[1].submit and typed[1].text == "чай"
    visit = one(parse_fara(call('{"action": "visit_url", "url": "example.org"}'), []))
    assert (visit.name, visit.text) == ("navigate", "example.org")
    assert one(parse_fara(call('{"action": "history_back"}'), [])).name == "back"
    assert one(parse_fara(call('{"action": "refresh"}'), [])).name == "reload"
    done = one(
        parse_fara("Чай в корзине.\n" + call('{"action": "terminate", "status": "success"}'), [])
    )
    assert (done.name, done.text) == ("done", "Чай в корзине.")  # its last words
    with pytest.raises(ParseError):  # no web from the stand
        parse_fara(call('{"action": "web_search", "query": "чай"}'), [])
    code = one(parse_fara("```python\npyautogui.click(x=3, y=4)\n```", []))
    assert code.point == (3, 4)  # pyautogui code is read as well


def computer_use(arguments: str, said: str = "") -> str:
    """A reply as EvoCUA and Jedi write one: a line of words, then one call."""
    call = f'{{"name": "computer_use", "arguments": {arguments}}}'
    return f"{said}\n<tool_call>\n{call}\n</tool_call>".lstrip()


def test_evocua_answers() -> None:
    click = one(
        parse_evocua(
            computer_use('{"action": "left_click", "coordinate": [187, 33]}', "Action: Open it."),
            [],
        )
    )
    assert (click.name, click.point) == ("click", (187, 33))
    grid = Screen(VIEWPORT, VIEWPORT, FAMILIES["evocua"].frame)
    assert grid.to_viewport(*click.point) == pytest.approx((239.36, 26.4))  # type: ignore[misc]
    held = one(parse_evocua(computer_use('{"action": "key_down", "keys": ["shift"]}'), []))
    assert (held.keys, held.notes) == (("Shift",), ["key_down done as a key press"])
    released = one(parse_evocua(computer_use('{"action": "key_up", "keys": "ctrl"}'), []))
    assert released.keys == ("Control",)
    wheel = one(parse_evocua(computer_use('{"action": "scroll", "pixels": -3}'), []))
    assert (wheel.direction, wheel.amount) == ("down", 300)
    triple = executable(
        one(parse_evocua(computer_use('{"action": "triple_click", "coordinate": [5, 6]}'), []))
    )
    assert (triple.name, triple.notes) == ("click", ["triple_click done as click"])
    ended = one(
        parse_evocua(
            computer_use(
                '{"action": "terminate", "status": "success"}',
                "Чай на полке.\nAction: Чай «Крупяной ряд» в корзине.",
            ),
            [],
        )
    )
    assert (ended.name, ended.status) == ("done", "done")
    assert ended.text == "Чай «Крупяной ряд» в корзине."  # the Action line, not the rest
    failure = computer_use('{"action": "terminate", "status": "failure"}', "Нет в наличии.")
    gave_up = one(parse_evocua(failure, []))
    assert (gave_up.text, gave_up.status) == ("Нет в наличии.", "gave_up")  # no Action line
    for bad in (
        "Action: Click the cart.",
        computer_use('{"action": "history_back"}'),
        computer_use('{"action": "answer", "text": "149 ₽"}'),  # the Action line says it
        computer_use('{"action": "key_down"}'),
    ):
        with pytest.raises(ParseError):
            parse_evocua(bad, [])


def test_jedi_answers() -> None:
    click = one(
        parse_jedi(
            computer_use(
                '{"action": "left_click", "coordinate": [966, 203]}', "Action: Click the search."
            ),
            [],
        )
    )
    pixels = Screen(VIEWPORT, VIEWPORT, FAMILIES["jedi"].frame)
    assert pixels.to_viewport(*click.point) == pytest.approx((960, 200))  # type: ignore[misc]
    native = ToolCall.model_validate(
        {
            "id": "j",
            "type": "function",
            "function": {
                "name": "computer_use",
                "arguments": '{"action": "left_click_drag", "coordinate": [300, 200]}',
            },
        }
    )
    drag = one(parse_jedi("", [native]))
    assert (drag.name, drag.point, drag.end) == ("drag", None, (300, 200))  # from the pointer
    typed = one(parse_jedi(computer_use('{"action": "type", "text": "зелёный чай\\n"}'), []))
    assert (typed.text, typed.submit) == ("зелёный чай", True)
    ended = one(
        parse_jedi(
            computer_use(
                '{"action": "terminate", "status": "failure"}', "Action: The tea is sold out."
            ),
            [],
        )
    )
    assert (ended.name, ended.text, ended.status) == ("done", "The tea is sold out.", "gave_up")
    for bad in (  # Qwen2.5-VL's tool has neither
        computer_use('{"action": "triple_click", "coordinate": [1, 2]}'),
        computer_use('{"action": "answer", "text": "149 ₽"}'),
    ):
        with pytest.raises(ParseError, match="unknown action"):
            parse_jedi(bad, [])


def test_opencua_pyautogui_code() -> None:
    answer = """## Thought
Поле поиска вверху.
## Action
Ввести «чай» и нажать Enter.
## Code
```python
pyautogui.click(x=0.31, y=0.08)
pyautogui.write('чай')
pyautogui.press('enter')
```"""
    actions = parse_pyautogui(answer, [])
    assert [a.name for a in actions] == ["click", "type", "key"]
    assert actions[0].point == (0.31, 0.08) and actions[2].keys == ("Enter",)
    double = one(parse_pyautogui("```python\npyautogui.click(10, 20, clicks=2)\n```", []))
    assert (double.name, double.point) == ("double_click", (10, 20))
    right = executable(one(parse_pyautogui("```python\npyautogui.rightClick(1, 2)\n```", [])))
    assert (right.name, right.notes) == ("click", ["right_click done as click"])
    scroll = one(parse_pyautogui("```python\npyautogui.scroll(-5)\n```", []))
    assert (scroll.direction, scroll.amount) == ("down", 500)
    assert one(parse_pyautogui("```python\npyautogui.hotkey('ctrl', 'a')\n```", [])).keys == (
        "Control",
        "a",
    )
    assert len(parse_pyautogui("```python\npyautogui.press('tab', presses=3)\n```", [])) == 3
    end = one(
        parse_pyautogui("```code\ncomputer.terminate(status='success', answer='ok')\n```", [])
    )
    assert (end.name, end.text, end.status) == ("done", "ok", "done")
    assert one(parse_pyautogui("```code\ncomputer.wait()\n```", [])).name == "wait"


@pytest.mark.parametrize(
    "code",
    [
        "pyautogui.click(x=__import__('os').system('true'), y=1)",  # arguments are literals only
        "import os\nos.system('true')",
        "x = 1",
        "pyautogui.mouseDown()",
        "pyautogui.click(",
    ],
)
def test_pyautogui_code_is_read_never_run(code: str) -> None:
    with pytest.raises(ParseError):
        parse_pyautogui(f"```python\n{code}\n```", [])


def page(family: str, frame: str | None = None, image: tuple[int, int] = VIEWPORT) -> ChatRequest:
    wpb: dict[str, Any] = {
        "family": family,
        "viewport": {"width": VIEWPORT[0], "height": VIEWPORT[1]},
        "image_size": {"width": image[0], "height": image[1]},
        "elements": ELEMENTS,
    }
    if frame:
        wpb["frame"] = frame
    return ChatRequest.model_validate(
        {"model": "test", "messages": [{"role": "user", "content": "x"}], "wpb_page": wpb}
    )


def played(body: ChatRequest, step: Step, target: Element | None) -> list[Action]:
    """The dialect's answer, read back by the family's parser, as the agent would do it."""
    family = FAMILIES[body.wpb_page.family]  # type: ignore[union-attr]
    message = DIALECT.answer(step, target, body)
    return [executable(a) for a in family.parse(message.content or "", [])]


CASES = [(name, None) for name in FAMILIES] + [
    (name, frame) for name in ("uitars", "opencua") for frame in FRAMES
]


@pytest.mark.parametrize(("family", "frame"), CASES)
@pytest.mark.parametrize("image", [VIEWPORT, (2560, 1600)])
def test_the_dialect_points_where_the_agent_clicks(family, frame, image) -> None:
    body = page(family, frame, image)
    assert DIALECT.detect(body) and not DIALECT.detect(ChatRequest(messages=[]))
    elements = DIALECT.elements(body)
    assert elements is not None
    tea = find_label(elements, "В корзину", nth=4)
    assert tea is not None and tea.box == (1002, 529, 109, 32)
    screen = Screen(VIEWPORT, image, frame or FAMILIES[family].frame)
    click = one(played(body, {"click": "В корзину", "nth": 4}, tea))
    assert click.name == "click" and click.point is not None
    assert screen.to_viewport(*click.point) == pytest.approx((1056.5, 545), abs=1.0)
    point = one(played(body, {"click": {"x": 640, "y": 120}}, None))
    assert screen.to_viewport(*point.point) == pytest.approx((640, 120), abs=1.0)  # type: ignore[misc]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_script_step_in_every_family(family: str) -> None:
    body = page(family)
    elements = DIALECT.elements(body) or []
    search = find_label(elements, "Поиск")
    typed = played(body, {"type": "Поиск", "text": "чай «Крупяной ряд»", "submit": True}, search)
    assert typed[0].name == "click"
    text = next(a for a in typed if a.name == "type")
    assert text.text == "чай «Крупяной ряд»"
    assert text.submit or typed[-1].keys == ("Enter",)
    down = one(played(body, {"scroll": "down"}, None))
    assert (down.name, down.direction) == ("scroll", "down")
    back = one(played(body, {"back": True}, None))
    assert back.name == "back" or back.keys == ("Alt", "ArrowLeft")
    waited = one(played(body, {"wait": 1}, None))
    assert waited.name == "wait"
    assert one(FAMILIES[family].parse(DIALECT.observe(body).content or "", [])).name == "wait"
    end = [a for a in played(body, {"done": "Чай в корзине", "success": True}, None)]
    assert end[-1].name == "done" and end[-1].status == "done"
    assert "Чай в корзине" in (end[-1].text or end[0].text)
    for status in ("infeasible", "needs_input", "gave_up", "done"):
        said = played(body, {"report": status, "message": "Такого чая нет"}, None)
        assert (said[-1].name, said[-1].status) == ("done", status), family
        assert "Такого чая нет" in (said[-1].text or said[0].text)


def test_the_conversation_keeps_only_the_newest_screenshots() -> None:
    png = b"\x89PNG fake"
    turns = [Turn(f"http://h/{i}", png, f"Action: wait() {i}", "waited") for i in range(3)]
    now = Turn("http://h/3", png, "", "")

    def images(messages: list[dict[str, Any]]) -> int:
        return sum(
            1
            for m in messages
            if isinstance(m["content"], list)
            for p in m["content"]
            if p["type"] == "image_url"
        )

    messages = conversation("system", "task", turns, now, 1)
    assert images(messages) == 1 and messages[-1]["content"][1]["type"] == "image_url"
    assert [m["role"] for m in messages] == ["system", "user"] + ["user", "assistant"] * 3 + [
        "user"
    ]
    assert "Previous action: waited" in messages[-1]["content"][0]["text"]
    assert images(conversation("system", "task", turns, now, 3)) == 3
