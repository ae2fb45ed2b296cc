"""What every dialect shares: the page state's elements, the dialect protocol, a message's
text and one tool call."""

from __future__ import annotations

import json
import uuid
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


def text_of(message: dict[str, Any]) -> str:
    """A chat message's text, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One OpenAI tool call, for dialects that act through tools."""
    return {
        "id": f"call_{uuid.uuid4().hex[:16]}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }
