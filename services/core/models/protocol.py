"""The harness protocol's files (docs/harnesses.md): `input.json`, written by the runner for
one episode; `steps.jsonl`, one line per step, appended by the agent as it goes; and
`output.json`, the agent's answer. Pydantic only: an agent's own environment (a
browser-use venv, an OpenHands venv, an agent image) has it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue, ValidationInfo, field_validator

from services.core.models.base import Boundary
from services.core.models.run import Options, ReportStatus, Usage, Viewport

# The version the runner writes; it reads version 1 too (docs/harnesses.md, "The protocol").
PROTOCOL: Literal[2] = 2
Version = Literal[1, 2]
INPUT = "input.json"
STEPS = "steps.jsonl"
OUTPUT = "output.json"


class ModelSettings(Boundary):
    name: str = ""
    base_url: str | None = None
    # The variable that holds the key; the key itself is never written.
    api_key_env: str | None = None
    temperature: float = 0.0
    # The completion length to ask of each call (None: the endpoint's default).
    max_tokens: int | None = None

    @property
    def api_key(self) -> str:
        """The key from the variable the user named."""
        return os.environ.get(self.api_key_env or "", "") or "unused"


class Limits(Boundary):
    max_steps: int
    time_limit_s: float


class AgentInput(Boundary):
    """`input.json`: the task, the browser to attach to, the model and the limits."""

    protocol: Version = PROTOCOL
    task_id: str
    prompt: str
    start_url: str
    cdp_url: str
    model: ModelSettings
    limits: Limits
    # Where steps.jsonl, the screenshots and output.json go.
    output_dir: Path
    viewport: Viewport = Field(default_factory=Viewport)
    locale: str = "ru-RU"
    timezone: str = "Europe/Moscow"
    options: Options = Field(default_factory=dict)


class Step(Boundary):
    """One line of `steps.jsonl`."""

    step: int
    time: str
    elapsed_s: float = 0.0
    url: str = ""
    action: JsonValue = None
    model_output: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    # A step error: an action that failed (the model is told and the episode goes on).
    error: str | None = None
    screenshot: str | None = None


ErrorKind = Literal["agent", "infra", "config"]


class AgentError(Boundary):
    """Why an episode ended without an answer: `infra` when the model endpoint or the
    browser failed (retried, never scored), `agent` when the agent itself broke, `config`
    when its framework refuses the run's model (the run stops, nothing scored)."""

    kind: ErrorKind
    message: str


class AgentOutput(Boundary):
    """`output.json`: what the agent said at the end. Version 2 says it with `status` (its
    message is `final_message`); null there means the agent made no report (a limit stopped
    it, or it broke), and `completion` defaults to `status == "done"`. Version 1 has no
    status: `completion` is required and stands for `done` (true) or `gave_up` (false)."""

    protocol: Version = PROTOCOL
    completion: bool | None = Field(default=None, validate_default=True)
    final_message: str = ""
    steps: int = 0
    usage: dict[str, Usage] = Field(default_factory=dict)
    cost: float | None = None
    error: AgentError | None = None
    status: ReportStatus | None = Field(default=None, validate_default=True)

    @field_validator("completion")
    @classmethod
    def _completion(cls, value: bool | None, info: ValidationInfo) -> bool | None:
        if value is None and info.data.get("protocol") == 1:
            raise ValueError("protocol 1 requires completion (true or false)")
        return value

    @field_validator("status")
    @classmethod
    def _status(cls, value: ReportStatus | None, info: ValidationInfo) -> ReportStatus | None:
        completion = info.data.get("completion")
        if value is not None and info.data.get("protocol") == 1:
            raise ValueError("protocol 1 has no status: write protocol 2")
        if value is not None and completion is not None and completion != (value == "done"):
            raise ValueError(f"{value!r} with completion {str(completion).lower()}")
        return value

    @property
    def claimed(self) -> bool:
        """The agent's completion claim."""
        return self.completion if self.completion is not None else self.status == "done"

    @property
    def report(self) -> ReportStatus | None:
        """What the agent reported: version 2's status; version 1's completion read as
        `done` or `gave_up`; None for an agent that broke or made no report."""
        if self.protocol == 1:
            return None if self.error else ("done" if self.completion else "gave_up")
        return self.status
