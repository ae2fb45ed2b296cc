"""The agent side of the harness protocol. Every agent program imports it from its own
environment (a browser-use venv, an OpenHands venv on Python 3.12, a container), with the
repository root on PYTHONPATH; it needs pydantic and the core's protocol models
(`services/core/models/protocol.py`), the ones the runner writes and reads with.

The runner writes `input.json` and starts the agent's command with its path as the last
argument (also in `WPB_AGENT_INPUT`). The agent attaches to the Chromium at `cdp_url`,
works on `prompt` starting from `start_url`, appends one line per step to
`<output_dir>/steps.jsonl` as it goes (a killed agent keeps the steps it made), and ends
by writing `<output_dir>/output.json`. docs/harnesses.md is the specification.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time
import traceback
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from services.core.models.protocol import (
    OUTPUT,
    STEPS,
    AgentError,
    AgentInput,
    AgentOutput,
    ErrorKind,
    Step,
)
from services.core.models.run import ReportStatus, Usage

# An error the runner treats as the stand's, not the model's: retried, never scored.
INFRA: ErrorKind = "infra"
# The agent program itself broke (a bug, a framework crash): scored as the agent's failure.
AGENT: ErrorKind = "agent"
# The run's settings cannot work with this harness (its framework refuses the model): the
# runner stops the run, no task of it scored.
CONFIG: ErrorKind = "config"
# HTTP answers of a model endpoint that say the endpoint, not the model, failed.
INFRA_STATUSES = {401, 403, 404, 408, 409, 429} | set(range(500, 600))
INFRA_NAMES = (
    "APIConnectionError",
    "APITimeoutError",
    "ConnectError",
    "ConnectTimeout",
    "ReadTimeout",
    "RemoteProtocolError",
    "InternalServerError",
    "ServiceUnavailableError",
    "RateLimitError",
    "AuthenticationError",
    "NotFoundError",
    "Timeout",
    "TargetClosedError",
)


# For frameworks whose final answer is only text (OpenHands' finish, deepagents' and
# Hermes's answer): how the harness asks the model to say that it did not do the task, and
# how it reads that back (`read_report`).
REPORT_HINT = (
    "If the task cannot be done as asked, do not do anything else: end with a final message "
    "that starts with one of these tags and says why. [infeasible]: what the task asks does "
    "not exist or cannot be had. [needs_input]: the task is ambiguous or needs the user's "
    "decision; ask the question. [gave_up]: you could not finish it. A task you did needs no tag."
)
REPORT_TAG = re.compile(r"^\s*\[(infeasible|needs_input|gave_up|done)\]\s*", re.IGNORECASE)


def tagged(status: ReportStatus, message: str) -> str:
    """A final answer that reports `status` as `REPORT_HINT` asks (`done` needs no tag)."""
    return message if status == "done" else f"[{status}] {message}"


def read_report(text: str) -> tuple[ReportStatus, str]:
    """The status a final answer's leading tag (`REPORT_HINT`) names, `done` without one,
    and the message without the tag."""
    tag = REPORT_TAG.match(text)
    if tag is None:
        return "done", text
    return cast(ReportStatus, tag.group(1).lower()), text[tag.end() :]


@dataclass(frozen=True)
class ModelAnswer:
    """The model's answer a step came from: its raw text, its tokens and how long it took
    (its cost goes with the first step it asked for)."""

    output: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0


class Recorder:
    """Steps, screenshots, token usage and the final answer of one episode."""

    def __init__(self, spec: AgentInput) -> None:
        self.spec = spec
        self.dir = spec.output_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.steps = 0
        self.usage: dict[str, Usage] = {}
        self.cost: float | None = None
        self._started = time.monotonic()
        self._finished = False

    def add_usage(self, model: str, input_tokens: int, output_tokens: int, calls: int = 1) -> None:
        entry = self.usage.setdefault(model, Usage())
        entry.input_tokens += int(input_tokens or 0)
        entry.output_tokens += int(output_tokens or 0)
        entry.calls += calls

    def step(
        self,
        action: Any,
        *,
        url: str = "",
        answer: ModelAnswer | None = None,
        error: str | None = None,
        screenshot: bytes | None = None,
    ) -> int:
        """Append one step to steps.jsonl (and its PNG), at once: a killed agent keeps it.
        `answer` is the model's answer it came from (none: a step no model call made)."""
        answer = answer or ModelAnswer()
        self.steps += 1
        shot = None
        if screenshot:
            shot = f"step-{self.steps:03d}.png"
            (self.dir / shot).write_bytes(screenshot)
        line = Step(
            step=self.steps,
            time=datetime.now(UTC).isoformat(timespec="milliseconds"),
            elapsed_s=round(time.monotonic() - self._started, 3),
            url=url,
            action=action,
            model_output=answer.output,
            input_tokens=int(answer.input_tokens or 0),
            output_tokens=int(answer.output_tokens or 0),
            latency_s=round(answer.latency_s, 4),
            error=error,
            screenshot=shot,
        )
        with (self.dir / STEPS).open("a", encoding="utf-8") as sink:
            sink.write(line.dumps(None) + "\n")
        return self.steps

    def finish(
        self,
        status: ReportStatus | None,
        final_message: str = "",
        error: AgentError | None = None,
        steps: int | None = None,
    ) -> None:
        """Write output.json, once: the agent's report (`status`; None: it made none, as
        when a limit stopped it or it broke) and its message."""
        if self._finished:
            return
        self._finished = True
        AgentOutput(
            completion=status == "done",
            status=status,
            final_message=final_message or "",
            steps=self.steps if steps is None else steps,
            usage=self.usage,
            cost=self.cost,
            error=error,
        ).write(self.dir / OUTPUT)


def error_kind(exc: BaseException) -> ErrorKind:
    """`infra` when a model endpoint or the browser failed (somewhere in the exception's
    chain: an HTTP status the endpoint, not the model, is to blame for; a connection
    that failed), else `agent`."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        status = getattr(current, "status_code", None) or getattr(current, "status", None)
        if isinstance(status, int) and status in INFRA_STATUSES:
            return INFRA
        if type(current).__name__ in INFRA_NAMES or isinstance(current, ConnectionError):
            return INFRA
        current = current.__cause__ or current.__context__
    return AGENT


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]


def main(run: Callable[[AgentInput, Recorder], Coroutine[Any, Any, None]]) -> None:
    """The entry point of every agent program: read the input, run, always write output.

    `run` calls `recorder.finish(...)` itself when it ends normally; an exception that
    escapes it is written as the episode's error (its kind from `error_kind`)."""
    path = Path(sys.argv[-1] if len(sys.argv) > 1 else os.environ["WPB_AGENT_INPUT"])
    spec = AgentInput.read(path)
    recorder = Recorder(spec)
    try:
        asyncio.run(run(spec, recorder))
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        traceback.print_exc()
        recorder.finish(None, error=AgentError(kind=error_kind(exc), message=describe(exc)))
    else:
        recorder.finish(
            None, error=AgentError(kind=AGENT, message="the agent ended without an answer")
        )
