"""The runner's proxy in front of the model endpoint: every request an agent makes is
forwarded as it is, and each model call (a completion; not a framework's probe of
`/models`) is recorded in the episode's `calls.jsonl` as it returns (its status, latency,
the server's token usage, the raw answer), whether or not the agent's framework took a
step from it. An episode killed at its limit keeps what the model said and what it
cost, and the record's tokens and calls are the server's, not the agent's own count.

One proxy per run on a loopback port; each episode gets a base URL of its own
(`http://127.0.0.1:PORT/<key>`), which the agent's input names instead of the endpoint.
A request the endpoint refuses as unsupported (images sent to a text-only model) is a
configuration error of the run (`runner.errors.ModelRefused`), not an infrastructure
failure to retry.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import socket
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
from aiohttp import web
from pydantic import JsonValue

from services.core.models.run import CALLS, ModelCall, Usage

# The answer kept per call: enough for a page-long completion, not a runaway one.
ANSWER_CHARS = 20_000
# Headers that belong to one connection, or that the proxy's own framing replaces.
HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "content-length",
        "content-encoding",
        "host",
        "accept-encoding",
        "upgrade",
        "proxy-authorization",
        "te",
        "trailer",
    }
)
# The paths of model calls (others, a framework's probes of `/models`, pass unrecorded).
GENERATION = ("/chat/completions", "/completions", "/responses", "/messages")
# A request the endpoint never answered: the agent gets a 502 saying why.
UNANSWERED = (aiohttp.ClientError, OSError, TimeoutError)
# What an endpoint says when the request asks for what the model cannot do.
UNSUPPORTED = re.compile(r"not supported|unsupported|does not support|cannot (read|process) image")


def refusal(call: ModelCall) -> str | None:
    """Why the endpoint refused `call` as unsupported, or None."""
    if 400 <= call.status < 600 and call.error and UNSUPPORTED.search(call.error.lower()):
        return call.error
    return None


def usage_of(calls: list[ModelCall]) -> dict[str, Usage]:
    """Tokens and calls per model, as the endpoint counted them."""
    usage: dict[str, Usage] = {}
    for call in calls:
        entry = usage.setdefault(call.model, Usage())
        entry.input_tokens += call.input_tokens
        entry.output_tokens += call.output_tokens
        entry.calls += 1
    return usage


def _error_message(data: JsonValue) -> str | None:
    if not isinstance(data, dict):
        return None
    error = data.get("error", data.get("detail", data.get("message")))
    if isinstance(error, dict):
        error = error.get("message")
    return str(error) if error else None


def _summary(data: JsonValue) -> tuple[int, int, str | None]:
    """Prompt and completion tokens and the finish reason of an answer (or stream chunk)."""
    if not isinstance(data, dict):
        return 0, 0, None
    usage = data.get("usage")
    tokens_in = tokens_out = 0
    if isinstance(usage, dict):
        prompt = usage.get("prompt_tokens", usage.get("input_tokens"))
        completion = usage.get("completion_tokens", usage.get("output_tokens"))
        tokens_in = prompt if isinstance(prompt, int) else 0
        tokens_out = completion if isinstance(completion, int) else 0
    timings = data.get("timings")
    if not isinstance(usage, dict) and isinstance(timings, dict):
        # llama.cpp's stream carries no usage unless asked (`stream_options`), its timings
        # always: the prompt's tokens (those from its cache too) and the generated ones.
        counts = [timings.get(k) for k in ("cache_n", "prompt_n", "predicted_n")]
        cached, prompt, predicted = (n if isinstance(n, int) else 0 for n in counts)
        tokens_in, tokens_out = cached + prompt, predicted
    finish = None
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        reason = choices[0].get("finish_reason")
        finish = reason if isinstance(reason, str) else None
    return tokens_in, tokens_out, finish


def _decoded(body: bytes) -> JsonValue:
    try:
        value: JsonValue = json.loads(body)
    except ValueError:
        return None
    return value


def _read_answer(body: bytes, streamed: bool) -> tuple[int, int, str | None, str | None]:
    """Tokens in and out, the finish reason and the error message of an answer body: one
    JSON document, or server-sent events whose chunks carry them."""
    if not streamed:
        data = _decoded(body)
        return (*_summary(data), _error_message(data))
    tokens_in = tokens_out = 0
    finish = error = None
    for line in body.splitlines():
        if not line.startswith(b"data:"):
            continue
        data = _decoded(line[5:].strip())
        chunk_in, chunk_out, chunk_finish = _summary(data)
        tokens_in, tokens_out = chunk_in or tokens_in, chunk_out or tokens_out
        finish = chunk_finish or finish
        error = _error_message(data) or error
    return tokens_in, tokens_out, finish, error


class EpisodeCalls:
    """One episode's `calls.jsonl`, a line per call as it returns."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / CALLS
        self.count = 0

    def write(self, call: ModelCall) -> None:
        with self.path.open("a", encoding="utf-8") as sink:
            sink.write(call.dumps(None) + "\n")


class ModelProxy:
    """Forwards `/<episode key>/<path>` to `upstream/<path>` and records each call. Started
    on the first episode that asks for it; `close()` ends it."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self._episodes: dict[str, EpisodeCalls] = {}
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._port = 0

    async def _start(self) -> None:
        app = web.Application(client_max_size=256 * 1024 * 1024)
        app.router.add_route("*", "/{episode}/{path:.*}", self._forward)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        listening = socket.socket()
        listening.bind(("127.0.0.1", 0))
        self._port = listening.getsockname()[1]
        await web.SockSite(runner, listening).start()
        # No timeout of the proxy's own: the agent's client decides how long it waits.
        self._session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None), auto_decompress=True
        )
        self._runner = runner

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()
        self._runner = self._session = None

    @contextlib.asynccontextmanager
    async def episode(self, folder: Path) -> AsyncIterator[str]:
        """The base URL an episode's agent calls; its calls go to `folder`'s calls.jsonl."""
        if self._runner is None:
            await self._start()
        key = secrets.token_hex(8)
        folder.mkdir(parents=True, exist_ok=True)
        self._episodes[key] = EpisodeCalls(folder)
        try:
            yield f"http://127.0.0.1:{self._port}/{key}"
        finally:
            del self._episodes[key]

    def _unanswered(self, exc: BaseException) -> str:
        return f"model endpoint {self.upstream} did not answer: {type(exc).__name__}: {exc}"

    async def _pass(
        self, method: str, url: str, body: bytes, headers: dict[str, str]
    ) -> web.Response:
        """A request that is no model call, forwarded unrecorded."""
        assert self._session is not None
        try:
            async with self._session.request(method, url, data=body, headers=headers) as answer:
                kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP}
                return web.Response(body=await answer.read(), status=answer.status, headers=kept)
        except UNANSWERED as exc:
            return web.json_response({"error": {"message": self._unanswered(exc)}}, status=502)

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        calls = self._episodes.get(request.match_info["episode"])
        if calls is None or self._session is None:
            return web.json_response({"error": {"message": "no such episode"}}, status=404)
        body = await request.read()
        sent = _decoded(body)
        model = sent.get("model") if isinstance(sent, dict) else None
        path = "/" + request.match_info["path"]
        url = self.upstream + path + (f"?{request.query_string}" if request.query_string else "")
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        if not path.endswith(GENERATION):
            return await self._pass(request.method, url, body, headers)
        started = time.monotonic()
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds")
        calls.count += 1
        number = calls.count
        recorded = False
        reply: web.StreamResponse | None = None

        def record(status: int, answer: bytes, streamed: bool, error: str | None = None) -> None:
            nonlocal recorded
            recorded = True
            tokens_in, tokens_out, finish, message = _read_answer(answer, streamed)
            calls.write(
                ModelCall(
                    call=number,
                    time=stamp,
                    path=path,
                    model=model if isinstance(model, str) else "",
                    status=status,
                    latency_s=round(time.monotonic() - started, 4),
                    input_tokens=tokens_in,
                    output_tokens=tokens_out,
                    finish_reason=finish,
                    answer=answer[:ANSWER_CHARS].decode("utf-8", "replace"),
                    error=error or (message if status >= 400 else None),
                )
            )

        try:
            async with self._session.request(
                request.method, url, data=body, headers=headers
            ) as answer:
                kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP}
                streamed = answer.content_type == "text/event-stream"
                if not streamed:
                    data = await answer.read()
                    record(answer.status, data, streamed)
                    return web.Response(body=data, status=answer.status, headers=kept)
                reply = web.StreamResponse(status=answer.status, headers=kept)
                await reply.prepare(request)
                seen = bytearray()
                try:
                    async for chunk in answer.content.iter_any():
                        seen += chunk
                        await reply.write(chunk)
                finally:  # also when the agent hung up mid-stream: what came is recorded
                    record(answer.status, bytes(seen), streamed)
                await reply.write_eof()
                return reply
        except UNANSWERED as exc:
            why = self._unanswered(exc)
            if not recorded:
                record(0, b"", False, why)
            if reply is not None:  # a stream cut short: its status is sent already
                return reply
            return web.json_response({"error": {"message": why}}, status=502)
