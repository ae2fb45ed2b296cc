"""The browser-use harness: browser-use's `Agent` on the Chromium the runner launched.

Runs in browser-use's own environment (`python -m runner.agents.browser_use_agent INPUT.json`).
The agent attaches over CDP and leaves the browser running, opens the start URL as an
initial action (no model call), and talks to the OpenAI-compatible endpoint through
browser-use's `ChatOpenAI` (structured output, schema `agent_output`). Whatever would make
extra model calls (planner, judge, message compaction, the `extract` action's page LLM) or
reach the internet (telemetry, cloud sync, version check, pricing table, the `search`
action) is off; browser-use's config, agent folder and screenshots live in a scratch folder
removed at exit.

The agent's report: browser-use's `done` with `success` true is `done`, false `gave_up`;
the custom action `report` (registered on its tools) stops with `infeasible` or
`needs_input` and its text.

A step is one browser-use step (one model call and the actions it chose). Its record holds
the URL the model saw, the actions, the raw answer, tokens, latency, the action errors and
browser-use's screenshot of the page it saw. A model endpoint that fails (no connection, a
timeout, HTTP 401/403/404/408/409/429/5xx) stops the agent at once with error kind `infra`:
browser-use itself would retry it as a step error and end as a plain failure.

Options (`options` in the input): `use_vision` (false), `max_actions_per_step` (browser-use's
default), `exclude_actions` (default `["search", "extract", "evaluate"]`: no web search, no
page LLM, no JavaScript of the model's own), `llm_timeout_s` (120, one HTTP
attempt), `llm_retries` (2, the OpenAI client's retries of a failed request).

The `openmanus` and `hermes` harnesses drive browser-use through the same `Executor` and
`start`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from runner.agents import protocol
from services.core.models.protocol import AgentError, AgentInput
from services.core.models.run import ReportStatus

# `evaluate` runs the model's JavaScript in the page: an agent here acts through the UI.
DEFAULT_EXCLUDED = ("search", "extract", "evaluate")
QUIET = {
    "ANONYMIZED_TELEMETRY": "false",
    "BROWSER_USE_CLOUD_SYNC": "false",
    "BROWSER_USE_VERSION_CHECK": "false",
    "BROWSER_USE_CLOUD_HINTS": "false",
    "BROWSER_USE_SETUP_LOGGING": "false",
    "SKIP_LLM_API_KEY_VERIFICATION": "true",
}


REPORT_DESCRIPTION = (
    "Stop without doing the task when it cannot be done as asked, and say why in text: "
    "status infeasible when what it asks does not exist or cannot be had, needs_input when "
    "it is ambiguous or needs the user's decision (ask the question)."
)


class ReportAction(BaseModel):
    """The parameters of the `report` action."""

    status: Literal["infeasible", "needs_input"]
    text: str = Field(description="Why, or the question for the user.")


def report_status(history: Any, reported: ReportStatus | None) -> ReportStatus | None:
    """The report of a run that ended: the `report` action's status, else `done` by its
    success; None for a run that did not end by itself."""
    if not history.is_done():
        return None
    if reported is not None:
        return reported
    return "gave_up" if history.is_successful() is False else "done"


@dataclass
class Calls:
    """What the model endpoint answered since the last recorded step."""

    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    outputs: list[str] = field(default_factory=list)
    infra: BaseException | None = None

    def take(self) -> tuple[int, int, float, str]:
        taken = (self.input_tokens, self.output_tokens, self.latency_s, "\n".join(self.outputs))
        self.input_tokens = self.output_tokens = 0
        self.latency_s = 0.0
        self.outputs = []
        return taken


def infra_cause(exc: BaseException) -> bool:
    """Whether a failed model call is the endpoint's fault: no connection, a timeout, an
    HTTP status the endpoint is to blame for, or an answer that is no chat completion.
    browser-use wraps every failure in `ModelProviderError` (status 500 or 502 even for an
    answer it cannot parse), so only the OpenAI client's exceptions in the chain decide."""
    import httpx
    import openai

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, openai.APIConnectionError | httpx.TransportError):
            return True
        if isinstance(current, openai.APIStatusError):
            return current.status_code in protocol.INFRA_STATUSES
        if "missing or empty `choices`" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def chat_model(calls: Calls, **settings: Any) -> Any:
    """browser-use's ChatOpenAI, timing its calls and noting the first endpoint failure."""
    from browser_use.llm.openai.chat import ChatOpenAI

    class RecordingChatOpenAI(ChatOpenAI):
        async def ainvoke(self, messages: Any, output_format: Any = None, **kwargs: Any) -> Any:
            started = time.monotonic()
            try:
                return await super().ainvoke(messages, output_format, **kwargs)
            except Exception as exc:
                if calls.infra is None and infra_cause(exc):
                    calls.infra = exc
                raise
            finally:
                calls.latency_s += time.monotonic() - started

    return RecordingChatOpenAI(**settings)


def watch_responses(calls: Calls, recorder: protocol.Recorder, model: str) -> Any:
    """An httpx response hook: each completion's raw `content` and token usage (also of
    answers browser-use then fails to parse)."""
    import httpx

    async def hook(response: httpx.Response) -> None:
        if not response.request.url.path.endswith("/chat/completions"):
            return
        await response.aread()
        try:
            data = response.json()
            content = data["choices"][0]["message"].get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            calls.outputs.append(response.text[:4000])
            return
        calls.outputs.append(str(content or ""))
        usage = data.get("usage") or {}
        tokens_in = int(usage.get("prompt_tokens") or 0)
        tokens_out = int(usage.get("completion_tokens") or 0)
        recorder.add_usage(model, tokens_in, tokens_out)
        calls.input_tokens += tokens_in
        calls.output_tokens += tokens_out

    return hook


def describe_actions(output: Any) -> list[dict[str, Any]] | None:
    if output is None:
        return None
    return [a.model_dump(exclude_none=True, exclude_unset=True) for a in output.action]


class Executor:
    """browser-use on the episode's Chromium: one model client and one CDP session, for
    one task or, one after another, for each step a planner hands it."""

    def __init__(self, spec: AgentInput, recorder: protocol.Recorder) -> None:
        import httpx
        from browser_use import BrowserSession

        self.spec = spec
        self.recorder = recorder
        self.calls = Calls()
        options = spec.options
        timeout = float(options.get("llm_timeout_s", 120))
        retries = int(options.get("llm_retries", 2))
        self.http = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout, connect=10.0),
            event_hooks={"response": [watch_responses(self.calls, recorder, spec.model.name)]},
        )
        self.llm = chat_model(
            self.calls,
            model=spec.model.name,
            base_url=spec.model.base_url,
            api_key=spec.model.api_key,
            temperature=spec.model.temperature,
            frequency_penalty=None,
            timeout=timeout,
            max_retries=retries,
            http_client=self.http,
            **({"max_completion_tokens": spec.model.max_tokens} if spec.model.max_tokens else {}),
        )
        self.session = BrowserSession(
            cdp_url=spec.cdp_url,
            keep_alive=True,
            viewport=spec.viewport.size,
        )
        # The OpenAI client's own timeout and retries come first: browser-use must not
        # cancel a call before the client gives up on it (that would read as the model's
        # failure).
        self.llm_deadline = int(timeout * (retries + 1) + 30)
        self.opened = False
        # What the last run's `report` action said.
        self.reported: ReportStatus | None = None

    def tools(self) -> Any:
        """browser-use's tools (less the excluded ones) and the `report` action."""
        from browser_use import ActionResult, Tools

        excluded = list(self.spec.options.get("exclude_actions", DEFAULT_EXCLUDED))
        tools = Tools(exclude_actions=excluded)

        @tools.action(REPORT_DESCRIPTION, param_model=ReportAction)
        async def report(params: ReportAction) -> ActionResult:
            self.reported = params.status
            return ActionResult(
                is_done=True,
                success=False,
                extracted_content=params.text,
                long_term_memory=f"Reported {params.status}: {params.text[:100]}",
            )

        return tools

    async def run(self, task: str, max_steps: int, extend_system_message: str | None = None) -> Any:
        """One browser-use `Agent` on `task`, its steps recorded as they end; the first run
        opens the start URL as an initial action (no model call). Returns its history."""
        from browser_use import Agent

        options = self.spec.options
        extra: dict[str, Any] = {}
        if "max_actions_per_step" in options:
            extra["max_actions_per_step"] = int(options["max_actions_per_step"])
        opening = (
            [] if self.opened else [{"navigate": {"url": self.spec.start_url, "new_tab": False}}]
        )
        self.opened = True
        self.reported = None
        agent = Agent(
            task=task,
            llm=self.llm,
            browser_session=self.session,
            tools=self.tools(),
            use_vision=bool(options.get("use_vision", False)),
            directly_open_url=False,
            initial_actions=opening,
            extend_system_message=extend_system_message,
            use_judge=False,
            enable_planning=False,
            message_compaction=False,
            calculate_cost=False,
            generate_gif=False,
            llm_timeout=self.llm_deadline,
            step_timeout=self.llm_deadline + 90,
            enable_signal_handler=False,
            **extra,
        )
        # The initial navigation, when there is one, is a history item without a model
        # call: record model steps only.
        recorded = len(opening)
        calls, recorder = self.calls, self.recorder

        async def on_step_end(agent: Any) -> None:
            nonlocal recorded
            items = agent.history.history
            for item in items[recorded:]:
                tokens_in, tokens_out, latency, raw = calls.take()
                errors = [r.error for r in item.result if r.error]
                shot = Path(item.state.screenshot_path or "")
                recorder.step(
                    describe_actions(item.model_output),
                    url=item.state.url or "",
                    answer=protocol.ModelAnswer(raw, tokens_in, tokens_out, latency),
                    error="\n".join(errors) if errors else None,
                    screenshot=shot.read_bytes() if shot.is_file() else None,
                )
            recorded = max(recorded, len(items))
            if calls.infra is not None:
                agent.stop()  # no retries of a failed endpoint: the runner retries the episode

        return await agent.run(max_steps=max_steps, on_step_end=on_step_end)

    @property
    def infra_error(self) -> AgentError | None:
        """The model endpoint's failure, once one stopped a run."""
        if self.calls.infra is None:
            return None
        return AgentError(kind=protocol.INFRA, message=protocol.describe(self.calls.infra))

    async def close(self) -> None:
        await self.http.aclose()
        # Close the CDP connection (keep_alive leaves it open); the browser stays.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.session.reset(), timeout=10)


async def solve(
    spec: AgentInput, recorder: protocol.Recorder, extend_system_message: str | None = None
) -> None:
    """The whole task as one browser-use run, its end the episode's answer."""
    executor = Executor(spec, recorder)
    try:
        history = await executor.run(spec.prompt, spec.limits.max_steps, extend_system_message)
    finally:
        await executor.close()
    error = executor.infra_error
    status = None if error else report_status(history, executor.reported)
    recorder.finish(status, history.final_result() or "", error=error)


def start(run: Callable[[AgentInput, protocol.Recorder], Coroutine[Any, Any, None]]) -> None:
    """An agent program on browser-use: quiet, offline, its files in a scratch folder (set
    before browser_use is imported), then `protocol.main(run)`."""
    scratch = tempfile.mkdtemp(prefix="wpb-browser-use-")
    tempfile.tempdir = scratch
    os.environ.update(QUIET)
    os.environ["BROWSER_USE_CONFIG_DIR"] = os.path.join(scratch, "config")
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    try:
        protocol.main(run)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        sys.stdout.flush()
        sys.stderr.flush()
    # browser-use leaves tasks and threads behind; output.json is written already.
    os._exit(0)


def main() -> None:
    start(solve)


if __name__ == "__main__":
    main()
