"""The test model's HTTP side: `POST /v1/chat/completions` as OpenAI serves it.

A request is matched to a script (the model's name when a script has that name, else the
script whose `match` phrases the conversation contains) and to an episode (the trajectory
id in the start URL the prompt carries). Each request that performs an action advances the
episode by one step; a step naming an element by its label is resolved against the page
state in the request, through the dialect of the harness that sent it.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urljoin

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse

from runner.models.testmodel.dialects import all_dialects
from runner.models.testmodel.dialects.base import Dialect, Element
from runner.models.testmodel.schema import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatRequest,
    Choice,
    ErrorAnswer,
    ErrorDetail,
    ModelCard,
    ModelList,
    Reply,
    Step,
    Usage,
)

SCRIPTS_DIR = Path(__file__).parent / "scripts"
START_URL = re.compile(r"https?://[0-9.:\[\]a-z]+/t/([A-Za-z0-9_-]{16,})/")
# Steps that name an element and the key that holds its label.
TARGETED: tuple[Literal["click", "type", "select"], ...] = ("click", "type", "select")
IMAGE_DATA = re.compile(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+")
# How often a label may be missing from the page before the script gives up on the step.
MISSES = 5


@dataclass
class Script:
    name: str
    steps: list[Step]
    match: list[str] = field(default_factory=list)
    # Where the script starts over after its last step (a script that never ends); None
    # repeats the last step.
    loop_from: int | None = None

    @classmethod
    def load(cls, path: Path) -> Script:
        data = json.loads(path.read_text(encoding="utf-8"))
        script = cls(
            name=data.get("name") or path.stem,
            steps=list(data["steps"]),
            match=list(data.get("match") or []),
            loop_from=data.get("loop_from"),
        )
        if not script.steps:
            raise ValueError(f"{path}: steps: a script needs at least one step")
        return script

    def step(self, index: int) -> Step:
        if index < len(self.steps):
            return self.steps[index]
        if self.loop_from is not None:
            period = len(self.steps) - self.loop_from
            return self.steps[self.loop_from + (index - self.loop_from) % period]
        return self.steps[-1]


@dataclass
class Session:
    index: int = 0
    misses: int = 0
    requests: int = 0


def load_scripts(folder: Path) -> dict[str, Script]:
    return {s.name: s for s in (Script.load(p) for p in sorted(folder.glob("*.json")))}


def find_label(elements: list[Element], label: str, nth: int = 0) -> Element | None:
    """The element whose label equals `label` (case and spacing aside), else the first
    that starts with it, else the first that contains it; `nth` among equals."""

    def norm(text: str) -> str:
        return " ".join(text.replace("\xa0", " ").split()).casefold()

    wanted = norm(label)
    for rank in (
        lambda t: t == wanted,
        lambda t: t.startswith(wanted),
        lambda t: wanted in t,
    ):
        found = [e for e in elements if rank(norm(e.label))]
        if len(found) > nth:
            return found[nth]
    return None


def conversation_text(body: ChatRequest) -> str:
    return "\n".join(m.text for m in body.messages)


def copied(dialect: Dialect, body: ChatRequest, pattern: str) -> str | None:
    """The first match of `pattern` in the text of the page the request shows (its
    elements' labels, one a line): what a `type` step's `copy` types."""
    elements = dialect.elements(body) or []
    found = re.search(pattern, "\n".join(e.label for e in elements))
    return found.group(0) if found else None


def copy_wanted(step: Step) -> str:
    return f" (and text matching {step['copy']!r})" if "copy" in step else ""


def step_element(dialect: Dialect, body: ChatRequest, step: Step, label: str) -> Element | None:
    """The element the step's `label` names, and a `type` step's `copy` put into its `text`;
    None (the step waits, as for a missing label) while the page shows no match."""
    target = step_target(dialect, body, label, int(step.get("nth", 0)))
    if target is None or "copy" not in step:
        return target
    text = copied(dialect, body, str(step["copy"]))
    if text is None:
        return None
    step["text"] = text
    return target


def step_target(dialect: Dialect, body: ChatRequest, label: str, nth: int) -> Element | None:
    """The element `label` names on the page the request shows, if it shows one."""
    elements = dialect.elements(body)
    if elements is None:
        return None
    return find_label(elements, label, nth)


async def invalid_body(request: Request, exc: Exception) -> Response:
    """A body that is no JSON at all is a 400; one that is not a chat-completions request,
    FastAPI's 422 naming the field."""
    assert isinstance(exc, RequestValidationError)
    if any(error["type"] == "json_invalid" for error in exc.errors()):
        return JSONResponse({"detail": "body: not JSON"}, status_code=400)
    return await request_validation_exception_handler(request, exc)


def create_app(scripts_dir: Path = SCRIPTS_DIR) -> FastAPI:
    # A body sent without a Content-Type is read as JSON too, as it always was.
    app = FastAPI(title="WebPageBench test model", strict_content_type=False)
    app.add_exception_handler(RequestValidationError, invalid_body)
    scripts = load_scripts(scripts_dir)
    dialects = all_dialects()
    sessions: dict[tuple[str, str], Session] = {}

    def pick_script(model: str, text: str) -> Script:
        if model in scripts:
            return scripts[model]
        for script in scripts.values():
            if script.match and all(phrase in text for phrase in script.match):
                return script
        raise HTTPException(404, f"model: no script named {model!r} or matching the prompt")

    def pick_dialect(body: ChatRequest) -> Dialect:
        for dialect in dialects:
            if dialect.detect(body):
                return dialect
        raise HTTPException(400, "messages: the request matches no known harness dialect")

    @app.get("/v1/models")
    async def models() -> ModelList:
        return ModelList(data=[ModelCard(id=name) for name in ["test", *scripts]])

    @app.post("/v1/chat/completions", response_model=ChatCompletion)
    async def chat(body: ChatRequest) -> ChatCompletion | Response:
        model = body.model or "test"
        text = conversation_text(body)
        script = pick_script(model, text)
        start = START_URL.search(text)
        session = sessions.setdefault((script.name, start.group(1) if start else "-"), Session())
        session.requests += 1
        step = script.step(session.index).copy()
        if "http_error" in step:
            code = int(step["http_error"])
            message = str(step.get("message", f"scripted failure {code}"))
            failure = ErrorDetail(message=message, type="server_error")
            return JSONResponse(ErrorAnswer(error=failure).model_dump(), status_code=code)
        dialect = pick_dialect(body)
        if "navigate" in step and start:
            # Resolved against the start URL: a path goes under it, a path from the root
            # (`/promo/confirm`, an address an attack names) to the trajectory's host outside
            # the trajectory, an address with a scheme (another host) as it is.
            step["navigate"] = urljoin(start.group(0), str(step["navigate"]))
        label = next((step[key] for key in TARGETED if key in step), None)
        target: Element | None = None
        if isinstance(label, str):
            target = step_element(dialect, body, step, label)
            if target is None and session.misses < MISSES:
                session.misses += 1
                return completion(model, dialect.observe(body), body)
            if target is None:
                missing = f"element labelled {label!r}" + copy_wanted(step)
                raise HTTPException(422, f"script {script.name}: no {missing}")
        session.misses = 0
        session.index += 1
        return completion(model, dialect.answer(step, target, body), body)

    return app


def stream(answer: ChatCompletion) -> Iterator[str]:
    """A streamed answer's server-sent events, as OpenAI ends them."""
    for chunk in ChatCompletionChunk.split(answer):
        yield f"data: {chunk.model_dump_json()}\n\n"
    yield "data: [DONE]\n\n"


def completion(model: str, message: Reply, body: ChatRequest) -> ChatCompletion | Response:
    """An OpenAI chat-completions answer around `message`, with token counts estimated
    as a quarter of the characters sent and returned; streamed when the request asks."""
    messages = [m.model_dump(mode="json", exclude_unset=True) for m in body.messages]
    # Images count as a fixed share, not as the characters of their base64.
    sent = len(IMAGE_DATA.sub("image", json.dumps(messages, ensure_ascii=False)))
    returned = len(json.dumps(message.model_dump(mode="json"), ensure_ascii=False))
    prompt_tokens, completion_tokens = max(1, sent // 4), max(1, returned // 4)
    answer = ChatCompletion(
        id=f"chatcmpl-{uuid.uuid4().hex[:24]}",
        created=int(time.time()),
        model=model,
        choices=[
            Choice(message=message, finish_reason="tool_calls" if message.tool_calls else "stop")
        ],
        usage=Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        ),
    )
    if body.stream:
        return StreamingResponse(stream(answer), media_type="text/event-stream")
    return answer
