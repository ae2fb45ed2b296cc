"""What the `gui` agent records of the actions a family parsed, and the computer_use
arguments read into their model: numbers are text where text is due, a wrong field is
named. No browser."""

from __future__ import annotations

import pytest

from runner.agents.gui_agent import steps_action
from runner.agents.gui_families import Action, ParseError, parse_qwen3vl


def call(arguments: str) -> str:
    return f'<tool_call>{{"name": "computer_use", "arguments": {arguments}}}</tool_call>'


def test_records_hold_only_what_is_set() -> None:
    scroll = Action("scroll", point=(0.0, 0.0), direction="down", notes=["a note"])
    assert scroll.record() == {
        "name": "scroll",
        "point": [0.0, 0.0],
        "direction": "down",
        "note": "a note",
    }
    typed = Action("type", text="чай", submit=True).record()
    assert typed == {"name": "type", "text": "чай", "submit": True}
    done = Action("done", status="gave_up").record()
    assert done == {"name": "done", "status": "gave_up"}
    assert steps_action([typed]) == typed
    assert steps_action([typed, done]) == {"name": "sequence", "actions": [typed, done]}


def test_computer_use_arguments() -> None:
    (typed,) = parse_qwen3vl(call('{"action": "type", "text": 149}'), [])
    assert typed.text == "149"
    (wait,) = parse_qwen3vl(call('{"action": "wait", "time": "3"}'), [])
    assert wait.seconds == 3.0
    with pytest.raises(ParseError, match=r"^computer_use coordinate"):
        parse_qwen3vl(call('{"action": "left_click", "coordinate": {"x": 1}}'), [])
    with pytest.raises(ParseError, match=r"^computer_use action: "):
        parse_qwen3vl(call('{"coordinate": [1, 2]}'), [])
