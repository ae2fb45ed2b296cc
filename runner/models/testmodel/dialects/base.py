"""What every dialect shares: the page state's elements and the dialect protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from runner.agents.protocol import tagged
from runner.models.testmodel.schema import ChatRequest, Reply, Step


@dataclass
class Element:
    """One element of the page state a request carries."""

    ref: str  # what the dialect writes back: "12" (an index), "e12" (a reference)
    label: str  # its visible text, accessible name, placeholder or value
    box: tuple[float, float, float, float] | None = None  # x, y, width, height in CSS px


def final_words(step: Step) -> str | None:
    """The final answer's text a `done` or `report` step makes, for a harness whose agent
    reports in words (the leading tag of `REPORT_HINT`); None for any other step."""
    if "done" in step:
        return str(step["done"])
    if "report" in step:
        return tagged(step["report"], str(step.get("message", "")))
    return None


class Dialect(Protocol):
    name: str

    def detect(self, body: ChatRequest) -> bool:
        """Whether a chat-completions request comes from this harness."""

    def elements(self, body: ChatRequest) -> list[Element] | None:
        """The newest page state in the request; None when the request carries none."""

    def answer(self, step: Step, target: Element | None, body: ChatRequest) -> Reply:
        """The assistant message (`content`, `tool_calls`) that performs one script step;
        `target` is the element the step's label resolved to (None for steps without one)."""

    def observe(self, body: ChatRequest) -> Reply:
        """An assistant message that takes no script step but gets a (fresh) page state."""
