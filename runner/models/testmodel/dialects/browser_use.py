"""The browser-use dialect: one JSON object per request, as browser-use's `Agent` expects.

browser-use asks for structured output (`response_format` JSON schema named `agent_output`)
and reads the message content as `{"thinking", "evaluation_previous_goal", "memory",
"next_goal", "action": [{"<action name>": {...params}}]}`. Its page state sits in the newest
user message between `<browser_state>` tags: one line per indexed element,
`<tabs>[N]<tag attr=value ... />`, followed by that element's text on deeper-indented lines.
"""

from __future__ import annotations

import json
import re

from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.schema import ChatRequest, JsonObject, Reply, Step, member

SCHEMA_NAME = "agent_output"
# Phrases of browser-use's system prompt, for requests without a response_format.
PROMPT_MARKERS = ("<user_request>", "<agent_history>", "<browser_state>")
STATE = re.compile(r"<browser_state>(.*?)(?:</browser_state>|\Z)", re.S)
# An indexed element: tabs (depth), a shadow-host mark, `*` (new since the last step),
# `|scroll element[` or `[`, the index, the tag, its attributes.
ELEMENT = re.compile(
    r"^(?P<depth>\t*)(?:\|SHADOW\((?:open|closed)\)\|)?\*?(?:\|scroll element)?"
    r"\[(?P<index>\d+)\]<(?P<tag>[A-Za-z][\w:-]*)(?P<attrs>.*?)\s*/>"
)
ATTRIBUTE = re.compile(r"(?:^|\s)([a-z][a-z0-9_-]*)=")
# Where an element's name comes from, best first (an accessible name over its text).
NAME_ATTRIBUTES = ("aria-label",)
FALLBACK_ATTRIBUTES = ("placeholder", "title", "alt", "value")
# What each script step becomes; the first name the request's schema offers wins (older
# browser-use releases spelled some actions differently).
ACTION_NAMES = {
    "click": ("click", "click_element_by_index"),
    "input": ("input", "input_text"),
    "select": ("select_dropdown", "select_dropdown_option"),
    "navigate": ("navigate", "go_to_url"),
    "keys": ("send_keys",),
    "scroll": ("scroll",),
    "back": ("go_back",),
    "wait": ("wait",),
    "done": ("done",),
}


def parse_attributes(text: str) -> dict[str, str]:
    """`key=value key2=value with spaces` (browser-use writes values unquoted)."""
    marks = list(ATTRIBUTE.finditer(text))
    found: dict[str, str] = {}
    for number, mark in enumerate(marks):
        end = marks[number + 1].start() if number + 1 < len(marks) else len(text)
        value = text[mark.end() : end].strip()
        found[mark.group(1)] = "" if value == "''" else value
    return found


def parse_state(state: str) -> list[Element]:
    """The indexed elements of one `<browser_state>` block, in page order."""
    lines = state.splitlines()
    elements: list[Element] = []
    for number, line in enumerate(lines):
        match = ELEMENT.match(line)
        if not match:
            continue
        depth = len(match.group("depth"))
        words: list[str] = []
        nested: int | None = None  # depth of a nested indexed element whose text is its own
        for below in lines[number + 1 :]:
            level = len(below) - len(below.lstrip("\t"))
            if not below.strip() or level <= depth:
                break
            if nested is not None and level > nested:
                continue
            nested = None
            if ELEMENT.match(below):
                nested = level
                continue
            words.append(below.strip())
        attrs = parse_attributes(match.group("attrs"))
        text = " ".join(words)
        label = next((attrs[k] for k in NAME_ATTRIBUTES if attrs.get(k)), "") or text
        label = label or next((attrs[k] for k in FALLBACK_ATTRIBUTES if attrs.get(k)), "")
        elements.append(Element(ref=match.group("index"), label=label))
    return elements


Action = dict[str, JsonObject]  # {"<action name>": {...params}}


def schema_of(body: ChatRequest) -> JsonObject:
    fmt = body.response_format
    return fmt.json_schema.schema_ if fmt and fmt.json_schema else {}


def offered_actions(schema: JsonObject) -> dict[str, JsonObject]:
    """Action name → its parameter schema, from the request's `action` items."""
    items = member(member(member(schema, "properties"), "action"), "items")
    variants = items.get("anyOf") or items.get("oneOf")
    offered: dict[str, JsonObject] = {}
    for variant in variants if isinstance(variants, list) else [items]:
        for name, params in member(variant, "properties").items():
            offered[name] = params if isinstance(params, dict) else {}
    return offered


class BrowserUseDialect:
    name = "browser-use"

    def detect(self, body: ChatRequest) -> bool:
        fmt = body.response_format
        if fmt and fmt.json_schema and fmt.json_schema.name == SCHEMA_NAME:
            return True
        system = next((m for m in body.messages if m.role == "system"), None)
        text = system.text if system else ""
        return all(marker in text for marker in PROMPT_MARKERS)

    def elements(self, body: ChatRequest) -> list[Element] | None:
        for message in reversed(body.messages):
            if message.role != "user":
                continue
            states = STATE.findall(message.text)
            if states:
                return parse_state(states[-1])
        return None

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        offered = offered_actions(schema_of(body))
        actions = [self._action(step, target, offered)]
        if "type" in step and step.get("submit"):
            actions.append({pick("keys", offered): {"keys": "Enter"}})
        goal = next(iter(actions[0]))
        return Reply(content=self._content(body, f"Scripted step: {goal}.", actions))

    def observe(self, body: ChatRequest) -> Reply:
        offered = offered_actions(schema_of(body))
        action: Action = {pick("wait", offered): {"seconds": 1}}
        return Reply(content=self._content(body, "Waiting for the page to settle.", [action]))

    def _action(self, step: Step, target: Element | None, offered: dict[str, JsonObject]) -> Action:
        index = int(target.ref) if target is not None else None
        if "click" in step:
            point = step["click"]
            if not isinstance(point, str):
                name = pick("click", offered)
                if "coordinate_x" not in member(offered.get(name), "properties"):
                    raise ValueError("browser-use offers this model no click by coordinates")
                return {name: {"coordinate_x": int(point["x"]), "coordinate_y": int(point["y"])}}
            return {pick("click", offered): {"index": index}}
        if "type" in step:
            name = pick("input", offered)
            return {name: {"index": index, "text": str(step.get("text", "")), "clear": True}}
        if "select" in step:
            return {pick("select", offered): {"index": index, "text": str(step.get("option"))}}
        if "scroll" in step:
            down = str(step["scroll"]).lower() != "up"
            return {pick("scroll", offered): {"down": down, "pages": 1.0, "index": None}}
        if "back" in step:
            return {pick("back", offered): {"description": None}}
        if "navigate" in step:
            return {pick("navigate", offered): {"url": str(step["navigate"]), "new_tab": False}}
        if "wait" in step:
            return {pick("wait", offered): {"seconds": int(step["wait"])}}
        if "done" in step or step.get("report") in ("done", "gave_up"):
            text = str(step.get("done", step.get("message", "")))
            success = bool(step.get("success", True)) and step.get("report") != "gave_up"
            return {
                pick("done", offered): {"text": text, "success": success, "files_to_display": []}
            }
        if "report" in step:  # the harness's own action, for infeasible and needs_input
            if "report" not in offered:
                raise ValueError("browser-use offers this model no report action")
            return {"report": {"status": step["report"], "text": str(step.get("message", ""))}}
        raise ValueError(f"the browser-use dialect cannot perform step {step!r}")

    def _content(self, body: ChatRequest, goal: str, actions: list[Action]) -> str:
        output: dict[str, object] = {
            "thinking": "Following the test script.",
            "evaluation_previous_goal": "Previous step done.",
            "memory": "Test script in progress.",
            "next_goal": goal,
            "action": actions,
        }
        schema = schema_of(body)
        fields = member(schema, "properties")
        if fields:  # only the fields the schema has (flash mode drops most of them)
            output = {k: v for k, v in output.items() if k in fields}
        # A strict schema requires every field it lists (planning fields among them).
        required = schema.get("required")
        for key in required if isinstance(required, list) else []:
            output.setdefault(str(key), None)
        return json.dumps(output, ensure_ascii=False)


def pick(kind: str, offered: dict[str, JsonObject]) -> str:
    """The action name for `kind` that the request offers, else the current one."""
    names = ACTION_NAMES[kind]
    return next((n for n in names if n in offered), names[0])


DIALECT = BrowserUseDialect()
