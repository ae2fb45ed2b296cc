"""The OpenHands SDK as an agent program: `python -m runner.agents.openhands_agent INPUT.json`.

Runs from its own environment (openhands-sdk and openhands-tools 1.58, Python 3.12) with
the repository root on PYTHONPATH. One `Agent` with OpenHands' browser tool set, attached
over CDP to the runner's Chromium, gets the prompt in one `Conversation`; the browser is
first sent to the start URL. Every tool call the model makes is one recorded step (its
observation's error, the page URL and a screenshot after it). Completion is the agent
calling `finish`; its message is the final message, and the report: a message that starts
with a tag (`[infeasible]`, `[needs_input]`, `[gave_up]`, which the task asks for where it
applies: `protocol.REPORT_HINT`) reports that, any other `done`.

One episode per process: the tool set keeps one browser executor per process, its
clean-up kills the browser-use sessions attached to the runner's Chromium, and after a
failed model call it has been seen reconnecting to CDP until killed. The program therefore
ends with `os._exit` as soon as `output.json` is written, whatever happened; a failed model
call ends it from the SDK's error event, before the SDK unwinds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from typing import Any

from runner.agents.protocol import (
    AGENT,
    REPORT_HINT,
    ModelAnswer,
    Recorder,
    describe,
    error_kind,
    main,
    read_report,
)
from services.core.models.protocol import AgentError, AgentInput

# Set before the SDK is imported: no price table download, no banner, no telemetry.
QUIET_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "OPENHANDS_SUPPRESS_BANNER": "1",
    "ANONYMIZED_TELEMETRY": "false",
    "BROWSER_USE_CLOUD_SYNC": "false",
    "BROWSER_USE_SETUP_LOGGING": "false",
    "LITELLM_TELEMETRY": "False",
}
# The run ends at max_steps or when a limit of the SDK's own stops it; these codes are
# such ends, not failures of the program.
RUN_LIMITS = {"MaxIterationsReached", "MaxBudgetReached"}
USAGE_ID = "agent"
SHOT_TIMEOUT_S = 10.0
ERROR_CHARS = 500


def hard_exit(code: int = 0) -> None:
    """Leave without the SDK's clean-up (see the module docstring)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def call_arguments(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


class Episode:
    """One conversation, recorded as it goes (the SDK calls `on_event` from its thread)."""

    def __init__(self, spec: AgentInput, recorder: Recorder) -> None:
        self.spec = spec
        self.recorder = recorder
        self.scratch = tempfile.mkdtemp(prefix="wpb-openhands-")
        self.executor: Any = None
        self.llm: Any = None
        self.pending: dict[str, Any] = {}  # tool call id -> its ActionEvent
        self.counted: set[str] = set()  # responses whose tokens a step already carries
        self.finish_message: str | None = None
        self.last_text = ""
        self.lock = threading.Lock()

    # --- building -----------------------------------------------------------------

    def build(self) -> Any:
        from openhands.sdk import LLM, Agent, Conversation, Tool
        from openhands.tools.browser_use import BrowserToolSet
        from pydantic import SecretStr

        model = self.spec.model
        # Always LiteLLM's OpenAI-compatible client: a name's own slash (`Qwen/Qwen3-8B`,
        # `qwen/qwen3-coder` at a router) is part of the name, not a provider.
        name = f"openai/{model.name}"
        options = self.spec.options
        extra: dict[str, Any] = {}
        if "reasoning_effort" in options:  # the SDK asks for "high" where a model may think
            extra["reasoning_effort"] = options["reasoning_effort"]
        if model.max_tokens is not None:
            extra["max_output_tokens"] = model.max_tokens
        self.llm = LLM(
            model=name,
            base_url=model.base_url,
            api_key=SecretStr(model.api_key),
            usage_id=USAGE_ID,
            num_retries=0,
            temperature=model.temperature,
            api_mode="chat",
            timeout=int(max(30, min(300, self.spec.limits.time_limit_s))),
            **extra,
        )
        browser = {
            "cdp_url": self.spec.cdp_url,
            "viewport": self.spec.viewport.size,
            "user_data_dir": os.path.join(self.scratch, "profile"),
            # Where the runner's Chromium saves downloads too (browser-use resets the place).
            "downloads_path": str(self.spec.output_dir / "downloads"),
        }
        agent = Agent(
            llm=self.llm,
            tools=[Tool(name=BrowserToolSet.name, params=browser)],
            condenser=None,
            critic=None,
        )
        return Conversation(
            agent=agent,
            workspace=os.path.join(self.scratch, "workspace"),
            max_iteration_per_run=self.spec.limits.max_steps,
            stuck_detection=bool(options.get("stuck_detection", True)),
            visualizer=None,
            callbacks=[self.on_event],
        )

    def open_start_page(self, conversation: Any) -> None:
        """Point the browser at the start URL before the model acts (not a step)."""
        from openhands.tools.browser_use import BrowserNavigateAction

        tool = conversation.agent.tools_map.get("browser_navigate")
        if tool is None or tool.executor is None:
            raise RuntimeError("the OpenHands browser tools did not start (see agent.log)")
        self.executor = tool.executor
        try:
            self.executor._async_executor.run_async(self.executor._ensure_initialized, timeout=60)
            self.executor._async_executor.run_async(self.watch_page_loads, timeout=10)
        except Exception as exc:  # the tool initialises itself again on its first call
            print(f"openhands: browser set-up: {describe(exc)}", file=sys.stderr)
        observation = self.executor(BrowserNavigateAction(url=self.spec.start_url))
        if observation.is_error:
            raise ConnectionError(f"the browser did not open the start page: {observation.text}")

    async def watch_page_loads(self) -> None:
        """browser-use keeps one lifecycle-event callback per CDP connection, and a target
        attached after the page (Chromium's own UI pages) can take it over at start: every
        navigation then waits its full readiness timeout (3-8 s). Registering the page's
        callback again, once attached, puts it back."""
        session = self.executor._server.browser_session
        page = await session.get_or_create_cdp_session()
        await session.session_manager._enable_page_monitoring(page)

    # --- recording ----------------------------------------------------------------

    def on_event(self, event: Any) -> None:
        from openhands.sdk.event import (
            ActionEvent,
            AgentErrorEvent,
            MessageEvent,
            ObservationEvent,
        )
        from openhands.sdk.event.conversation_error import ConversationErrorEvent
        from openhands.sdk.tool.builtins.finish import FinishAction

        with self.lock:
            if isinstance(event, ActionEvent):
                self.pending[event.tool_call_id] = event
                if isinstance(event.action, FinishAction):
                    self.finish_message = event.action.message
            elif isinstance(event, ObservationEvent):
                action = self.pending.pop(event.tool_call_id, None)
                observation = event.observation
                error = observation.text[:ERROR_CHARS] if observation.is_error else None
                self.record(action, event.tool_name, error)
            elif isinstance(event, AgentErrorEvent):
                action = self.pending.pop(event.tool_call_id, None)
                self.record(action, event.tool_name, event.error[:ERROR_CHARS])
            elif isinstance(event, MessageEvent) and event.source == "agent":
                text = "".join(getattr(c, "text", "") for c in event.llm_message.content)
                self.last_text = text
                self.record_message(event, text)
            elif isinstance(event, ConversationErrorEvent) and event.code not in RUN_LIMITS:
                self.fail_fast(event)

    def fail_fast(self, event: Any) -> None:
        """A failed model call: write the output now and leave. The SDK emits this event
        inside the `except` that caught the failure, so the exception is at hand."""
        exc = sys.exc_info()[1]
        if exc is not None:
            error = AgentError(kind=error_kind(exc), message=describe(exc))
        else:
            error = AgentError(kind=AGENT, message=f"{event.code}: {event.detail}"[:2000])
        self.finish_usage()
        self.recorder.finish(None, final_message=self.last_text, error=error)
        print(f"openhands: ended by {error.kind} error: {error.message}", file=sys.stderr)
        self.clean_up()
        hard_exit(0)

    def clean_up(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    def tokens_of(self, response_id: str) -> tuple[int, int, float]:
        """Tokens and latency of one model response, once per response."""
        if not response_id or response_id in self.counted or self.llm is None:
            return 0, 0, 0.0
        self.counted.add(response_id)
        metrics = self.llm.metrics
        usage = next((u for u in metrics.token_usages if u.response_id == response_id), None)
        latency = next(
            (r.latency for r in metrics.response_latencies if r.response_id == response_id), 0.0
        )
        if usage is None:
            return 0, 0, latency
        return usage.prompt_tokens, usage.completion_tokens, latency

    def page(self) -> tuple[str, bytes | None]:
        """The current URL and a PNG of the viewport, through the tool set's own session."""
        session = getattr(getattr(self.executor, "_server", None), "browser_session", None)
        if session is None:
            return "", None

        async def look() -> tuple[str, bytes | None]:
            url = await session.get_current_page_url()
            shot = await session.take_screenshot(format="png")
            return url, shot

        try:
            url, shot = self.executor._async_executor.run_async(look, timeout=SHOT_TIMEOUT_S)
        except Exception as exc:
            print(f"openhands: no screenshot: {describe(exc)}", file=sys.stderr)
            return "", None
        return str(url or ""), shot if isinstance(shot, bytes) else None

    def record(self, action: Any, tool_name: str, error: str | None) -> None:
        if action is not None:
            call = action.tool_call
            thought = "".join(getattr(c, "text", "") for c in action.thought)
            parts = [p for p in (action.reasoning_content, thought) if p]
            parts.append(f"{call.name}({call.arguments})")
            output = "\n".join(parts)
            step_action = {"name": call.name, "arguments": call_arguments(call.arguments)}
            input_tokens, output_tokens, latency = self.tokens_of(action.llm_response_id)
        else:
            output, step_action = "", {"name": tool_name, "arguments": None}
            input_tokens = output_tokens = 0
            latency = 0.0
        url, shot = self.page()
        self.recorder.step(
            step_action,
            url=url,
            answer=ModelAnswer(output, input_tokens, output_tokens, latency),
            error=error,
            screenshot=shot,
        )

    def record_message(self, event: Any, text: str) -> None:
        input_tokens, output_tokens, latency = self.tokens_of(event.llm_response_id or "")
        url, shot = self.page()
        self.recorder.step(
            {"name": "message", "arguments": {"text": text}},
            url=url,
            answer=ModelAnswer(text, input_tokens, output_tokens, latency),
            screenshot=shot,
        )

    def finish_usage(self) -> None:
        if self.llm is None:
            return
        metrics = self.llm.metrics
        usage = metrics.accumulated_token_usage
        if usage is not None:
            self.recorder.add_usage(
                self.spec.model.name,
                usage.prompt_tokens,
                usage.completion_tokens,
                calls=len(metrics.token_usages),
            )
        if metrics.accumulated_cost:
            self.recorder.cost = float(metrics.accumulated_cost)

    # --- running ------------------------------------------------------------------

    def run(self) -> None:
        from openhands.sdk import ConversationExecutionStatus

        started = time.monotonic()
        conversation = self.build()
        conversation.send_message(f"{self.spec.prompt}\n\n{REPORT_HINT}")
        self.open_start_page(conversation)
        print(f"openhands: ready in {time.monotonic() - started:.1f} s", file=sys.stderr)
        conversation.run()
        status = conversation.state.execution_status
        print(f"openhands: the conversation ended {status.value}", file=sys.stderr)
        self.finish_usage()
        if self.finish_message is not None and status == ConversationExecutionStatus.FINISHED:
            self.recorder.finish(*read_report(self.finish_message))
        else:
            self.recorder.finish(None, final_message=self.last_text)


async def run(spec: AgentInput, recorder: Recorder) -> None:
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    os.environ.setdefault("LOG_LEVEL", str(spec.options.get("log_level", "WARNING")))
    os.environ.setdefault("TZ", spec.timezone)
    episode = Episode(spec, recorder)
    try:
        started = time.monotonic()
        await asyncio.to_thread(load_sdk, spec.options.get("log_level", "WARNING"))
        print(f"openhands: SDK imported in {time.monotonic() - started:.1f} s", file=sys.stderr)
        await asyncio.to_thread(episode.run)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            hard_exit(130)
        print(f"openhands: {describe(exc)}", file=sys.stderr)
        episode.finish_usage()
        recorder.finish(None, error=AgentError(kind=error_kind(exc), message=describe(exc)))
    recorder.finish(None, error=AgentError(kind=AGENT, message="the agent ended without an answer"))
    episode.clean_up()
    hard_exit(0)


def load_sdk(level: str) -> None:
    import openhands.sdk
    import openhands.tools.browser_use.impl  # noqa: F401

    # browser-use's event bus logs every event at INFO; LiteLLM warns at every call to a
    # model its price table lacks (the runner prices tokens itself).
    for name in ("bubus", "browser_use", "cdp_use"):
        logging.getLogger(name).setLevel(level)
    warnings.filterwarnings("ignore", message="Cost calculation failed")


if __name__ == "__main__":
    main(run)
