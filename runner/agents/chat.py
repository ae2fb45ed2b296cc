"""The chat-completions endpoint as the `dom` and `gui` agents speak to it. What a request
sends (messages with text and image parts, tool definitions, the body) is a TypedDict:
httpx sends it as the JSON it is. What an answer holds (choices, the message, its tool
calls, the token usage) is a model: an answer in another shape is refused, naming the
field. Only what our agents send or read is here; an answer's other fields are ignored.
Pydantic and the core's models only: the test model's image imports it with the gui
families."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from pydantic import Field, JsonValue

from services.core.models.base import Boundary

# Free-form JSON: a tool's JSON Schema parameters; a tool call's arguments as the model
# wrote them (checked by the agent that reads them).
JsonSchema = dict[str, JsonValue]
Arguments = dict[str, JsonValue]

# -- what a request sends ------------------------------------------------------------------


class TextPart(TypedDict):
    type: Literal["text"]
    text: str


class ImageUrl(TypedDict):
    url: str  # a data: URL


class ImagePart(TypedDict):
    type: Literal["image_url"]
    image_url: ImageUrl


ContentPart = TextPart | ImagePart


class SystemMessage(TypedDict):
    role: Literal["system"]
    content: str


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[ContentPart]


class FunctionParam(TypedDict):
    name: str
    arguments: str | Arguments


class ToolCallParam(TypedDict):
    """A tool call the model made, sent back with its assistant message."""

    id: str
    type: Literal["function"]
    function: FunctionParam


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: str | None
    tool_calls: NotRequired[list[ToolCallParam]]


class ToolMessage(TypedDict):
    """A tool call's result."""

    role: Literal["tool"]
    tool_call_id: str
    content: str


Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage


class FunctionDefinition(TypedDict):
    name: str
    description: str
    parameters: JsonSchema


class ToolDefinition(TypedDict):
    type: Literal["function"]
    function: FunctionDefinition


class Size(TypedDict):
    width: int
    height: int


class PageElement(TypedDict):
    label: str
    box: list[float]  # x, y, width, height in CSS px


class PageGeometry(TypedDict):
    """`wpb_page`, the visible interactive elements' labels and boxes (the gui agent's
    `page_geometry`): only the test model reads it, to point at a label."""

    family: str
    frame: str
    viewport: Size
    image_size: Size
    elements: list[PageElement]


class ChatRequest(TypedDict):
    model: str
    messages: list[Message]
    temperature: float
    max_tokens: NotRequired[int]
    tools: NotRequired[list[ToolDefinition]]
    tool_choice: NotRequired[Literal["auto"]]
    wpb_page: NotRequired[PageGeometry]


# -- what an answer holds ------------------------------------------------------------------


class FunctionCall(Boundary):
    name: str
    # A JSON text as OpenAI sends it; some servers send the object itself.
    arguments: str | Arguments = "{}"


class ToolCall(Boundary):
    id: str | None = None
    type: str = "function"
    function: FunctionCall

    def param(self, id: str) -> ToolCallParam:
        """The call as the assistant message that follows sends it back, under `id`."""
        function: FunctionParam = {"name": self.function.name, "arguments": self.function.arguments}
        return {"id": id, "type": "function", "function": function}


class AnswerPart(Boundary):
    text: str = ""


class AnswerMessage(Boundary):
    content: str | list[AnswerPart] | None = None
    tool_calls: list[ToolCall] | None = None

    @property
    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(part.text for part in self.content)
        return self.content or ""


class Choice(Boundary):
    message: AnswerMessage
    # `length`: the answer was cut at the completion limit.
    finish_reason: str | None = None


class TokenUsage(Boundary):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatAnswer(Boundary):
    """A chat-completions answer: its first choice is the model's."""

    choices: list[Choice] = Field(min_length=1)
    usage: TokenUsage | None = None
