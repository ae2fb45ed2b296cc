"""How each harness talks to a model: where its page state sits in a request, and how an
action must be written back. One module per dialect; `DIALECTS` in detection order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass
class Element:
    """One element of the page state a request carries."""

    ref: str  # what the dialect writes back: "12" (an index), "e12" (a reference)
    label: str  # its visible text, accessible name, placeholder or value
    box: tuple[float, float, float, float] | None = None  # x, y, width, height in CSS px


class Dialect(Protocol):
    name: str

    def detect(self, body: dict[str, Any]) -> bool:
        """Whether a chat-completions request comes from this harness."""

    def elements(self, body: dict[str, Any]) -> list[Element] | None:
        """The newest page state in the request; None when the request carries none."""

    def answer(self, step: dict[str, Any], target: Element | None, body: dict[str, Any]) -> dict:
        """The assistant message (`content`, `tool_calls`) that performs one script step;
        `target` is the element the step's label resolved to (None for steps without one)."""

    def observe(self, body: dict[str, Any]) -> dict:
        """An assistant message that takes no script step but gets a (fresh) page state."""


def all_dialects() -> list[Dialect]:
    from runner.testmodel.dialects import browser_use, dom, gui, openhands

    return [browser_use.DIALECT, openhands.DIALECT, gui.DIALECT, dom.DIALECT]


def text_of(message: dict[str, Any]) -> str:
    """A chat message's text, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""
