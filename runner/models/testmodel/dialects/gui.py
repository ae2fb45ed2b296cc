"""The `gui` agent's dialect (runner/agents/gui_agent.py). A screenshot says nothing a
script can search, so the agent, when told to (`page_geometry`), adds a top-level
`wpb_page` to each request: `{"family", "frame", "viewport", "image_size", "elements":
[{"label", "box": [x, y, w, h]}]}` (viewport CSS px). The answer is written in the
family's own format (UI-TARS text, Qwen3-VL, Fara, EvoCUA or Jedi `<tool_call>` JSON,
OpenCUA pyautogui code), pointing at the centre of the element the step names, or at a
script's `{"x", "y"}` (viewport px), converted into the family's coordinate frame.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException

from runner.agents.gui_families import FAMILIES, TERMINATE_STATUSES, smart_resize
from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.schema import ChatRequest, JsonObject, PageGeometry, Reply, Step


def page_of(body: ChatRequest) -> PageGeometry:
    if body.wpb_page is None:
        raise HTTPException(422, "wpb_page: the gui dialect needs the page geometry")
    return body.wpb_page


def to_frame(page: PageGeometry, x: float, y: float) -> tuple[float, float]:
    """A viewport point in the frame the family points in."""
    family = FAMILIES.get(page.family)
    frame = page.frame or (family.frame if family else "pixels")
    vw, vh = page.viewport.width, page.viewport.height
    image = page.image_size or page.viewport
    iw, ih = image.width, image.height
    if frame == "pixels":
        return round(x * iw / vw), round(y * ih / vh)
    if frame == "resized":
        rw, rh = smart_resize(int(iw), int(ih))
        return round(x * rw / vw), round(y * rh / vh)
    if frame == "0..1":
        return round(x / vw, 4), round(y / vh, 4)
    if frame in ("0..999", "0..1000"):
        top = 999 if frame == "0..999" else 1000
        return min(round(x / vw * 1000), top), min(round(y / vh * 1000), top)
    raise HTTPException(422, f"wpb_page.frame: unknown frame {frame!r}")


# The agent's report -> a terminate's status.
TERMINATE = {report: said for said, report in TERMINATE_STATUSES.items()}


def quoted(text: str) -> str:
    """A Python string literal in single quotes, as UI-TARS and pyautogui code write them."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    return f"'{escaped}'"


def num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def tool_calls(*calls: JsonObject) -> str:
    """Calls of the computer_use function, as Qwen3-VL, Fara, EvoCUA and Jedi write them."""
    return "\n".join(
        "<tool_call>\n"
        + json.dumps({"name": "computer_use", "arguments": call}, ensure_ascii=False)
        + "\n</tool_call>"
        for call in calls
    )


def render(family: str, kind: str, thought: str, **a: Any) -> str:
    """One step in the family's format. `a` holds the point (`x`, `y`, already in the
    family's frame), `text`, `submit`, `direction`, `status` (a `done`'s report), `url`."""
    formats = {
        "uitars": render_uitars,
        "qwen3vl": render_computer_use,
        "fara": render_computer_use,
        "evocua": render_computer_use,
        "jedi": render_computer_use,
        "opencua": render_opencua,
    }
    if family not in formats:
        raise HTTPException(422, f"wpb_page.family: unknown family {family!r}")
    return formats[family](family, kind, thought, **a)


def render_uitars(family: str, kind: str, thought: str, **a: Any) -> str:
    x, y = num(a.get("x", 0)), num(a.get("y", 0))
    text, submit = str(a.get("text", "")), bool(a.get("submit"))
    box = f"start_box='({x},{y})'"
    typed = quoted(text + "\n" if submit else text)
    status = a.get("status", "done")
    done = {
        "done": f"finished(content={quoted(text)})",
        "needs_input": f"call_user(content={quoted(text)})",
    }.get(status, f"report(status='{status}', content={quoted(text)})")
    action = {
        "click": f"click({box})",
        "type": f"click({box})\n\ntype(content={typed})",
        "scroll": f"scroll(start_box='(500,500)', direction='{a.get('direction')}')",
        "back": "hotkey(key='alt left')",
        "wait": "wait()",
        "done": done,
    }.get(kind)
    if action is None:
        raise HTTPException(422, f"UI-TARS has no action for a {kind!r} step")
    return f"Thought: {thought}\nAction: {action}"


def render_computer_use(family: str, kind: str, thought: str, **a: Any) -> str:
    """Qwen3-VL, Fara, EvoCUA and Jedi: `computer_use` calls; Fara types at a point and has
    its own back and URL; Fara, EvoCUA and Jedi end with a bare terminate after their final
    words, which EvoCUA and Jedi write, like every step's, as an `Action:` line. A type step
    clicks and types in one reply, where EvoCUA and Jedi would take a turn per call."""
    point = [a.get("x", 0), a.get("y", 0)]
    text, submit = str(a.get("text", "")), bool(a.get("submit"))
    status = TERMINATE[a.get("status", "done")]
    fara = family == "fara"
    spoken = family in ("fara", "evocua", "jedi")
    prefix = "Action: " if family in ("evocua", "jedi") else ""
    plain: dict[str, list[JsonObject] | None] = {
        "click": [{"action": "left_click", "coordinate": point}],
        "scroll": [{"action": "scroll", "pixels": 500 * (1 if a.get("direction") == "up" else -1)}],
        "wait": [{"action": "wait", "time": 1}],
        "back": [{"action": "history_back"}]
        if fara
        else [{"action": "key", "keys": ["alt", "left"]}],
        "navigate": [{"action": "visit_url", "url": a.get("url", "")}] if fara else None,
    }
    calls = plain.get(kind)
    if kind == "type" and fara:
        calls = [{"action": "type", "coordinate": point, "text": text, "press_enter": submit}]
    elif kind == "type":
        calls = [{"action": "left_click", "coordinate": point}, {"action": "type", "text": text}]
        calls += [{"action": "key", "keys": ["enter"]}] if submit else []
    elif kind == "done" and spoken:  # the final words stand before the terminate call
        calls, thought = [{"action": "terminate", "status": status}], text
    elif kind == "done":
        calls = [{"action": "answer", "text": text}, {"action": "terminate", "status": status}]
    if calls is None:
        raise HTTPException(422, f"{family} has no action for a {kind!r} step")
    return f"{prefix}{thought}\n{tool_calls(*calls)}"


def render_opencua(family: str, kind: str, thought: str, **a: Any) -> str:
    x, y = num(a.get("x", 0)), num(a.get("y", 0))
    text, submit = str(a.get("text", "")), bool(a.get("submit"))
    status = TERMINATE[a.get("status", "done")]
    sign = 1 if a.get("direction") == "up" else -1
    xy = f"x={x}, y={y}"
    enter = "\npyautogui.press('enter')" if submit else ""
    code = {
        "click": f"pyautogui.click({xy})",
        "type": f"pyautogui.click({xy})\npyautogui.write({quoted(text)}){enter}",
        "scroll": f"pyautogui.scroll({5 * sign})",
        "back": "pyautogui.hotkey('alt', 'left')",
        "wait": "computer.wait()",
        "done": f"computer.terminate(status='{status}', answer={quoted(text)})",
    }.get(kind)
    if code is None:
        raise HTTPException(422, f"OpenCUA has no action for a {kind!r} step")
    fence = "code" if code.startswith("computer.") else "python"
    return f"## Thought\n{thought}\n## Action\n{thought}\n## Code\n```{fence}\n{code}\n```"


class GuiDialect:
    name = "gui"

    def detect(self, body: ChatRequest) -> bool:
        return body.wpb_page is not None

    def elements(self, body: ChatRequest) -> list[Element] | None:
        items = page_of(body).elements
        if items is None:
            return None
        return [Element(ref=str(n), label=item.label, box=item.box) for n, item in enumerate(items)]

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        page = page_of(body)
        args: dict[str, float | str | bool] = {}
        if target is not None and target.box:
            x, y, w, h = target.box
            args["x"], args["y"] = to_frame(page, x + w / 2, y + h / 2)
        label = f"«{target.label}»" if target else ""
        if "done" in step:
            kind, thought = "done", "The task is done."
            status = "done" if step.get("success", True) else "gave_up"
            args.update(text=str(step["done"]), status=status)
        elif "report" in step:
            kind, thought = "done", f"The task ends here: {step['report']}."
            args.update(text=str(step.get("message", "")), status=step["report"])
        elif "click" in step:
            kind, thought = "click", f"Click {label}."
            point = step["click"]
            if not isinstance(point, str):
                args["x"], args["y"] = to_frame(page, float(point["x"]), float(point["y"]))
                thought = "Click the point."
        elif "type" in step:
            kind, thought = "type", f"Type into {label}."
            args.update(text=str(step.get("text", "")), submit=bool(step.get("submit")))
        elif "select" in step:
            # A native list takes its option from the keyboard once it has the focus.
            kind, thought = "type", f"Choose {step.get('option')} in {label}."
            args.update(text=str(step.get("option", "")), submit=True)
        elif "scroll" in step:
            kind, thought = "scroll", "Scroll."
            args["direction"] = "up" if step["scroll"] == "up" else "down"
        elif "back" in step:
            kind, thought = "back", "Go back."
        elif "navigate" in step:
            kind, thought = "navigate", "Open the page."
            args["url"] = str(step["navigate"])
        elif "wait" in step:
            return self.observe(body)
        else:
            raise HTTPException(422, f"the gui dialect cannot play the step {step!r}")
        return Reply(content=render(page.family, kind, thought, **args))

    def observe(self, body: ChatRequest) -> Reply:
        """Waiting changes nothing and brings a new screenshot."""
        return Reply(content=render(page_of(body).family, "wait", "Wait for the page."))


DIALECT = GuiDialect()
