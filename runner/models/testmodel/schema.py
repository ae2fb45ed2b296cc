"""The test model's shapes: its HTTP API, OpenAI's chat completions as far as the dialects
read a request and as the clients parse an answer (the OpenAI SDK in browser-use, litellm
in OpenHands, httpx in the dom and gui agents), and a script's step. Pydantic, the standard
library and the core's models only: the test model's image runs the server without the
runner."""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from services.core.models.run import ReportStatus

JsonObject = dict[str, JsonValue]  # free-form JSON: a tool's arguments, a JSON schema


def member(value: JsonValue, key: str) -> JsonObject:
    """The object at `key` of a JSON object; empty where either is no object."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


class Shape(BaseModel):
    """A request's or an answer's part. Fields a client sends and no dialect reads are
    ignored."""

    model_config = ConfigDict(extra="ignore")


class Sent(Shape):
    """A part of the conversation a client sends: what no dialect reads is kept as well, as
    the prompt's size counts every character of it."""

    model_config = ConfigDict(extra="allow")


class Function(Sent):
    name: str
    arguments: str  # a JSON object's text, as OpenAI writes it


class ToolCall(Sent):
    id: str
    type: Literal["function"] = "function"
    function: Function

    @classmethod
    def of(cls, name: str, arguments: JsonObject) -> ToolCall:
        """A new call of the tool `name`, for dialects that act through tools."""
        text = json.dumps(arguments, ensure_ascii=False)
        return cls(id=f"call_{uuid.uuid4().hex[:16]}", function=Function(name=name, arguments=text))


class TextPart(Sent):
    type: Literal["text"]
    text: str


class ImageUrl(Sent):
    url: str


class ImagePart(Sent):
    type: Literal["image_url"]
    image_url: ImageUrl


Part = Annotated[TextPart | ImagePart, Field(discriminator="type")]


class Message(Sent):
    """One message of the conversation a request carries."""

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[Part] | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None

    @property
    def text(self) -> str:
        """The message's text, whether its content is a string or a list of parts."""
        if isinstance(self.content, list):
            return "\n".join(p.text if isinstance(p, TextPart) else "" for p in self.content)
        return self.content or ""


class ToolFunction(Shape):
    name: str = ""
    parameters: JsonObject = Field(default_factory=dict)  # a JSON schema


class Tool(Shape):
    """A tool a request offers: OpenAI's `{"type": "function", "function": {…}}`, or the
    flat `{"name": …}` of newer APIs."""

    type: str = "function"
    function: ToolFunction | None = None
    name: str = ""

    @property
    def tool_name(self) -> str:
        return (self.function.name if self.function else "") or self.name


class JsonSchemaFormat(Shape):
    name: str = ""
    schema_: JsonObject = Field(default_factory=dict, alias="schema")


class ResponseFormat(Shape):
    """Structured output: browser-use names its schema `agent_output`."""

    type: str
    json_schema: JsonSchemaFormat | None = None


class Size(Shape):
    width: float
    height: float


class PageElement(Shape):
    label: str = ""
    box: tuple[float, float, float, float]  # x, y, width, height in viewport CSS px


class PageGeometry(Shape):
    """`wpb_page`, which the gui agent adds when told to (`page_geometry`): what its
    screenshot shows, for a script to name by label."""

    family: str
    frame: str | None = None  # the family's own by default
    viewport: Size
    image_size: Size | None = None  # the viewport's by default
    elements: list[PageElement] | None = None


class ChatRequest(Shape):
    """`POST /v1/chat/completions`: what the dialects read of it."""

    model: str = ""  # a script's name; "test" or empty: the script the prompt matches
    messages: list[Message]
    tools: list[Tool] = Field(default_factory=list)
    tool_choice: JsonValue = None
    response_format: ResponseFormat | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    stream: bool = False  # the answer as server-sent chunks (Hermes asks so)
    wpb_page: PageGeometry | None = None


class Reply(Shape):
    """The assistant message of an answer: text, or tool calls (its `content` null)."""

    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: list[ToolCall] | None = Field(default=None, exclude_if=lambda v: v is None)


class Choice(Shape):
    index: int = 0
    message: Reply
    finish_reason: Literal["stop", "tool_calls"]


class Usage(Shape):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(Shape):
    """The answer to a chat-completions request."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


class DeltaToolCall(ToolCall):
    index: int


class Delta(Shape):
    """What a chunk adds to the message (the test model sends it whole, in one chunk)."""

    role: Literal["assistant"] | None = Field(default=None, exclude_if=lambda v: v is None)
    content: str | None = Field(default=None, exclude_if=lambda v: v is None)
    tool_calls: list[DeltaToolCall] | None = Field(default=None, exclude_if=lambda v: v is None)


class ChunkChoice(Shape):
    index: int = 0
    delta: Delta
    finish_reason: Literal["stop", "tool_calls"] | None = None


class ChatCompletionChunk(Shape):
    """One server-sent event of a streamed answer."""

    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: Usage | None = Field(default=None, exclude_if=lambda v: v is None)

    @classmethod
    def split(cls, answer: ChatCompletion) -> list[ChatCompletionChunk]:
        """`answer` as a stream: the message, its finish reason, then the usage."""
        (choice,) = answer.choices
        message = choice.message
        calls = [
            DeltaToolCall(index=number, **call.model_dump())
            for number, call in enumerate(message.tool_calls or [])
        ]
        delta = Delta(role="assistant", content=message.content, tool_calls=calls or None)

        def chunk(choices: list[ChunkChoice], usage: Usage | None = None) -> ChatCompletionChunk:
            return cls(
                id=answer.id,
                created=answer.created,
                model=answer.model,
                choices=choices,
                usage=usage,
            )

        return [
            chunk([ChunkChoice(delta=delta)]),
            chunk([ChunkChoice(delta=Delta(), finish_reason=choice.finish_reason)]),
            chunk([], answer.usage),
        ]


class ErrorDetail(Shape):
    message: str
    type: str


class ErrorAnswer(Shape):
    """A failure as OpenAI answers it (a script's `http_error`)."""

    error: ErrorDetail


class ModelCard(Shape):
    id: str
    object: Literal["model"] = "model"


class ModelList(Shape):
    """`GET /v1/models`: "test" and every script's name."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


class Point(TypedDict):
    x: float
    y: float


class Step(TypedDict, total=False):
    """One step of a script (scripts/*.json, docs/harnesses.md): its kind's key, the label
    it names or its value, and the kind's options."""

    click: str | Point
    type: str
    text: str
    copy: str  # with type: a regex; the text typed is its first match in the page's text
    submit: bool
    select: str
    option: str
    nth: int
    scroll: str
    back: bool
    navigate: str
    wait: float
    done: str
    success: bool
    report: ReportStatus  # the agent's report, as its harness says it; `message` its text
    http_error: int
    message: str  # with http_error: the error's message; with report: the report's text
