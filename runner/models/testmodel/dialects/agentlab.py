"""AgentLab's generic agent's dialect (runner/agents/agentlab_agent.py): no tools; its prompt
carries BrowserGym's accessibility tree, one element a line, tab-indented, each element
that can be acted on led by its bid, its accessible name as a Python string:

    [16] link 'Продукты', clickable, url='http://…/grocery/'
    [127] button 'В корзину: Чай чёрный «Крупяной ряд» в пакетиках', visible, clickable
    [22] paragraph ''
        StaticText 'Выберите раздел вверху или на карточке ниже.'

An element's label is its name, else the text of the lines under it. The answer is text in
the agent's tags, one BrowserGym action by bid:

    <think>…</think>
    <action>
    click('127')
    </action>

Its prompt holds only the newest tree (the history holds past actions, not past pages).
"""

from __future__ import annotations

import ast
import re

from fastapi import HTTPException

from runner.agents.protocol import tagged
from runner.models.testmodel.dialects.base import Element
from runner.models.testmodel.schema import ChatRequest, Reply, Step

# What every generic-agent prompt says (AgentLab's dynamic_prompting), and no other
# harness's.
MARKERS = ("# Action space:", "[bid] is the unique alpha-numeric identifier")
TREE_HEADER = re.compile(r"^#+ AXTree:$", re.MULTILINE)
QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
LINE = re.compile(
    rf"^(?P<indent>\t*)(?:\[(?P<bid>[^\]\s]+)\] )?(?P<role>\w+)(?: (?P<name>{QUOTED}))?"
)
# A scroll this far, in CSS pixels, is one script `scroll` step.
SCROLL_PX = 500
# BrowserGym's infeasible subset says `infeasible`; a message to the user says any other
# report, tagged as REPORT_HINT asks (`done` untagged).
INFEASIBLE = "report_infeasible"


def python_string(text: str | None) -> str:
    """The value of a Python string literal as BrowserGym prints names (`repr`)."""
    if not text:
        return ""
    value = ast.literal_eval(text)
    return value if isinstance(value, str) else ""


def tree_text(message: str) -> str | None:
    """The accessibility tree a prompt carries: after its header, up to the next header."""
    header = TREE_HEADER.search(message)
    if header is None:
        return None
    rest = message[header.end() :]
    following = re.search(r"^#", rest, re.MULTILINE)
    return rest[: following.start()] if following else rest


def parse_tree(text: str) -> list[Element]:
    """Every element with a bid, in document order."""
    lines = [(LINE.match(line), line) for line in text.splitlines()]
    found: list[Element] = []
    for number, (match, _) in enumerate(lines):
        if not match or not match.group("bid"):
            continue
        label = python_string(match.group("name")).strip()
        if not label:
            depth = len(match.group("indent"))
            texts = []
            for below, _ in lines[number + 1 :]:
                if below is None or len(below.group("indent")) <= depth:
                    break
                if below.group("role") == "StaticText":
                    texts.append(python_string(below.group("name")).strip())
            label = " ".join(t for t in texts if t)[:200]
        found.append(Element(ref=match.group("bid"), label=label))
    return found


def reply(thought: str, action: str) -> Reply:
    return Reply(content=f"<think>\n{thought}\n</think>\n<action>\n{action}\n</action>\n")


class AgentLabDialect:
    name = "agentlab"

    def detect(self, body: ChatRequest) -> bool:
        text = "\n".join(m.text for m in body.messages if m.role == "user")
        return all(marker in text for marker in MARKERS)

    def elements(self, body: ChatRequest) -> list[Element] | None:
        for message in reversed(body.messages):
            tree = tree_text(message.text) if message.role == "user" else None
            if tree is not None:
                return parse_tree(tree)
        return None

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        bid = target.ref if target else ""
        if "done" in step:
            said = "send_msg_to_user" if step.get("success", True) else "report_infeasible"
            return reply("The task is finished.", f"{said}({str(step['done'])!r})")
        if "report" in step:
            status, message = step["report"], str(step.get("message", ""))
            if status == "infeasible":
                return reply("The task ends here.", f"{INFEASIBLE}({message!r})")
            return reply("The task ends here.", f"send_msg_to_user({tagged(status, message)!r})")
        if "click" in step:
            if not target:
                raise HTTPException(422, "the agentlab dialect clicks bids, not points")
            return reply(f"I click {target.label!r}.", f"click({bid!r})")
        if "type" in step:
            if step.get("submit"):
                raise HTTPException(
                    422, "the agentlab dialect types without submitting: one action"
                )
            return reply("I fill the field.", f"fill({bid!r}, {str(step.get('text', ''))!r})")
        if "select" in step:
            option = str(step.get("option", ""))
            return reply("I choose the option.", f"select_option({bid!r}, {option!r})")
        if "scroll" in step:
            delta = -SCROLL_PX if step["scroll"] == "up" else SCROLL_PX
            return reply("I scroll.", f"scroll(0, {delta})")
        if "back" in step:
            return reply("I go back.", "go_back()")
        if "navigate" in step:
            return reply("I open the address.", f"goto({str(step['navigate'])!r})")
        if "wait" in step:
            return self.observe(body)
        raise HTTPException(422, f"the agentlab dialect cannot play the step {step!r}")

    def observe(self, body: ChatRequest) -> Reply:
        """Scrolling by nothing leaves the page as it is and brings a fresh tree."""
        return reply("I look at the page again.", "scroll(0, 0)")


DIALECT = AgentLabDialect()
