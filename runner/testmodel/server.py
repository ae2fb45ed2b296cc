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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse

from runner.testmodel.dialects import all_dialects
from runner.testmodel.dialects.base import Dialect, Element, text_of

SCRIPTS_DIR = Path(__file__).parent / "scripts"
START_URL = re.compile(r"https?://[0-9.:\[\]a-z]+/t/([A-Za-z0-9_-]{16,})/")
# Steps that name an element and the key that holds its label.
TARGETED = ("click", "type", "select")
IMAGE_DATA = re.compile(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+")
# How often a label may be missing from the page before the script gives up on the step.
MISSES = 5


@dataclass
class Script:
    name: str
    steps: list[dict[str, Any]]
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

    def step(self, index: int) -> dict[str, Any]:
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


def conversation_text(body: dict[str, Any]) -> str:
    return "\n".join(text_of(m) for m in body.get("messages") or [] if isinstance(m, dict))


async def chat_body(request: Request) -> dict[str, Any]:
    """The request's JSON, a chat-completions body with a list of messages."""
    try:
        body = await request.json()
    except ValueError:
        raise HTTPException(400, "body: not JSON") from None
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise HTTPException(422, "messages: a list of chat messages is required")
    return body


def step_target(
    dialect: Dialect, body: dict[str, Any], step: dict[str, Any], action: str
) -> Element | None:
    """The element a step's label names on the page the request shows, if it shows one."""
    elements = dialect.elements(body)
    if elements is None:
        return None
    return find_label(elements, step[action], int(step.get("nth", 0)))


def create_app(scripts_dir: Path = SCRIPTS_DIR) -> FastAPI:
    app = FastAPI(title="WebPageBench test model")
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

    def pick_dialect(body: dict[str, Any]) -> Dialect:
        for dialect in dialects:
            if dialect.detect(body):
                return dialect
        raise HTTPException(400, "messages: the request matches no known harness dialect")

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        names = ["test", *scripts]
        return {"object": "list", "data": [{"id": n, "object": "model"} for n in names]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> JSONResponse:
        body = await chat_body(request)
        model = str(body.get("model") or "test")
        text = conversation_text(body)
        script = pick_script(model, text)
        start = START_URL.search(text)
        session = sessions.setdefault((script.name, start.group(1) if start else "-"), Session())
        session.requests += 1
        step = dict(script.step(session.index))
        if "http_error" in step:
            code = int(step["http_error"])
            return JSONResponse(
                {"error": {"message": f"scripted failure {code}", "type": "server_error"}},
                status_code=code,
            )
        dialect = pick_dialect(body)
        if "navigate" in step and start:
            step["navigate"] = start.group(0) + str(step["navigate"]).lstrip("/")
        action = next((key for key in TARGETED if key in step), None)
        target: Element | None = None
        if action and isinstance(step[action], str):
            target = step_target(dialect, body, step, action)
            if target is None and session.misses < MISSES:
                session.misses += 1
                return completion(model, dialect.observe(body), body)
            if target is None:
                raise HTTPException(
                    422, f"script {script.name}: no element labelled {step[action]!r}"
                )
        session.misses = 0
        session.index += 1
        return completion(model, dialect.answer(step, target, body), body)

    return app


def completion(model: str, message: dict[str, Any], body: dict[str, Any]) -> JSONResponse:
    """An OpenAI chat-completions answer around `message`, with token counts estimated
    as a quarter of the characters sent and returned."""
    message = {"role": "assistant", "content": None, **message}
    # Images count as a fixed share, not as the characters of their base64.
    sent = len(IMAGE_DATA.sub("image", json.dumps(body.get("messages"), ensure_ascii=False)))
    returned = len(json.dumps(message, ensure_ascii=False))
    prompt_tokens, completion_tokens = max(1, sent // 4), max(1, returned // 4)
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return JSONResponse(
        {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )
