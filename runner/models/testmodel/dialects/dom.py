"""The `dom` agent's dialect (runner/agents/dom_agent.py): tools that name elements by
reference (`click(ref)`, `type(ref, text, submit)`, …) over Playwright's accessibility
snapshot, one line per element:

    - link "Продукты" [ref=e5] [cursor=pointer]:
    - button "В корзину" [ref=f1e59] [cursor=pointer]
    - paragraph [ref=e27]: 180 г

An element's label is its accessible name (in quotes), else the text after the colon, else
the text of the lines under it
(for links, buttons and the like). Only the newest tree in the request counts: references
change after every action.
"""

from __future__ import annotations

import re

from fastapi import HTTPException

from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.schema import ChatRequest, JsonObject, Reply, Step, ToolCall, member

LINE = re.compile(
    r'^(?P<indent>\s*)- (?P<role>[\w-]+)(?: "(?P<name>(?:[^"\\]|\\.)*)")?'
    r"(?P<attrs>[^:\n]*?)(?::\s*(?P<text>.*))?$"
)
REF = re.compile(r"\[ref=([A-Za-z0-9_-]+)\]")
TREE = re.compile(r"^\s*- .*\[ref=[A-Za-z0-9_-]+\]", re.MULTILINE)
# Roles whose accessible name comes from their content: an unnamed one takes its text.
NAMED_BY_CONTENT = {
    "link",
    "button",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "checkbox",
    "radio",
    "switch",
    "treeitem",
    "cell",
    "gridcell",
    "listitem",
    "heading",
}
# A descendant's text that names an element without a name of its own.
CHILD_TEXT = re.compile(
    r'^(?P<indent>\s*)- (?:text|[\w-]+(?: "(?P<name>[^"]*)")?[^:]*): (?P<t>.+)$'
)


def unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('\\"', '"')
    return text


# YAML quotes a whole entry in '…' when its name holds ": " («В корзину: Чай…»).
QUOTED_ENTRY = re.compile(r"^(?P<indent>\s*)- '(?P<entry>(?:[^']|'')*)'(?P<rest>:.*)?$")


def plain_entry(line: str) -> str:
    quoted = QUOTED_ENTRY.match(line)
    if not quoted:
        return line
    entry = quoted.group("entry").replace("''", "'")
    return f"{quoted.group('indent')}- {entry}{quoted.group('rest') or ''}"


def parse_tree(text: str) -> list[Element]:
    """Every element with a reference, in document order."""
    lines = [plain_entry(line) for line in text.splitlines()]
    found: list[Element] = []
    for number, line in enumerate(lines):
        match = LINE.match(line)
        ref = REF.search(match.group("attrs") or "") if match else None
        if not match or not ref:
            continue
        label = (match.group("name") or "").replace('\\"', '"')
        if not label and match.group("text"):
            label = unquote(match.group("text"))
        if not label and match.group("role") in NAMED_BY_CONTENT:
            label = descendant_text(lines, number, len(match.group("indent")))
        found.append(Element(ref=ref.group(1), label=label))
    return found


def descendant_text(lines: list[str], start: int, indent: int) -> str:
    parts: list[str] = []
    for line in lines[start + 1 :]:
        if len(line) - len(line.lstrip()) <= indent:
            break
        if line.lstrip().startswith("- /"):  # /url:, /placeholder: are properties
            continue
        name = re.search(r'- [\w-]+ "([^"]+)"', line)
        text = CHILD_TEXT.match(line)
        if name:
            parts.append(name.group(1))
        elif text:
            parts.append(unquote(text.group("t")))
    return " ".join(parts)[:200]


def tool_parameters(body: ChatRequest) -> dict[str, JsonObject]:
    """Each offered function's name → its parameters' JSON schema."""
    return {t.function.name: t.function.parameters for t in body.tools if t.function}


class DomDialect:
    name = "dom"

    def detect(self, body: ChatRequest) -> bool:
        return "ref" in member(tool_parameters(body).get("click"), "properties")

    def elements(self, body: ChatRequest) -> list[Element] | None:
        for message in reversed(body.messages):
            if TREE.search(message.text):
                return parse_tree(message.text)
        return None

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        ref = target.ref if target else ""
        if "done" in step:
            args: JsonObject = {
                "message": str(step["done"]),
                "success": bool(step.get("success", True)),
            }
            call = ToolCall.of("done", args)
        elif "report" in step and step["report"] == "done":
            call = ToolCall.of("done", {"message": str(step.get("message", "")), "success": True})
        elif "report" in step:
            args = {"status": step["report"], "message": str(step.get("message", ""))}
            call = ToolCall.of("report", args)
        elif "click" in step:
            if not target:
                raise HTTPException(422, "the dom dialect clicks elements, not points")
            call = ToolCall.of("click", {"ref": ref})
        elif "type" in step:
            args = {"ref": ref, "text": str(step.get("text", ""))}
            call = ToolCall.of("type", {**args, "submit": bool(step.get("submit", False))})
        elif "select" in step:
            call = ToolCall.of("select", {"ref": ref, "option": str(step.get("option", ""))})
        elif "scroll" in step:
            direction = "up" if step["scroll"] == "up" else "down"
            call = ToolCall.of("scroll", {"direction": direction})
        elif "back" in step:
            call = ToolCall.of("go_back", {})
        elif "navigate" in step:
            call = ToolCall.of("navigate", {"url": str(step["navigate"])})
        elif "wait" in step:
            return self.observe(body)
        else:
            raise HTTPException(422, f"the dom dialect cannot play the step {step!r}")
        return Reply(tool_calls=[call])

    def observe(self, body: ChatRequest) -> Reply:
        """Scrolling by nothing leaves the page as it is and brings a fresh tree."""
        return Reply(tool_calls=[ToolCall.of("scroll", {"direction": "down", "amount": 0})])


DIALECT = DomDialect()
