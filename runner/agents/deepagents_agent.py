"""LangChain's deepagents as an agent program (`python -m runner.agents.deepagents_agent`).

Runs from its own environment, `$WPB_HOME/harnesses/deepagents/`: deepagents 0.7 (LangGraph)
with langchain-openai and langchain-mcp-adapters in `venv/`, Playwright's MCP server
(`@playwright/mcp` 0.0.83) in `node_modules/` beside it. The agent is `create_deep_agent`
with its own tools (a file system in its state, the general-purpose subagent) and
the browser tools of one Playwright MCP server, which Node runs attached to the runner's
Chromium (`--cdp-endpoint`). The tools come through langchain-mcp-adapters from one session
that lasts the episode: the element references of a snapshot live in that server. The
chat model is langchain-openai's `ChatOpenAI` at the run's base URL, without retries.

The browser is sent to the start URL first (no model call, not a step). A step is one tool
call, whichever agent made it (a subagent's too): the tool and its arguments, the model's
answer that asked for it (its text and tool calls), that model call's tokens and latency
(on the first of its calls), the page URL the result names and a screenshot taken through
the same server. The final answer (a message without tool calls) is the last step, the
completion claim and the final message; the task is followed by `protocol.REPORT_HINT`, and
an answer that starts with its tag (`[infeasible]`, `[needs_input]`, `[gave_up]`) reports
that instead of `done`. At max_steps (before a tool call beyond it) or
the time limit the run stops without a claim.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from runner.agents.protocol import REPORT_HINT, ModelAnswer, Recorder, main, read_report
from services.core.models.protocol import AgentInput

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import LLMResult
    from mcp import ClientSession

# Set before LangChain is imported: no LangSmith tracing.
QUIET_ENV = {"LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false"}
SERVER = "playwright"
# The MCP server's program in the harness folder, beside the venv this Python runs from.
MCP_CLI = Path(sys.prefix).parent / "node_modules" / "@playwright" / "mcp" / "cli.js"
PAGE_URL = re.compile(r"^- Page URL: (\S+)", re.MULTILINE)
ERROR_CHARS = 500
LLM_TIMEOUT_S = 120.0


class StepLimit(Exception):
    """The agent asked for a tool call beyond max_steps."""


def answer_text(message: AIMessage) -> str:
    """The model's raw answer: its text and its tool calls, as JSON."""
    calls = [{"name": c["name"], "arguments": c["args"]} for c in message.tool_calls]
    return json.dumps({"content": message.text, "tool_calls": calls}, ensure_ascii=False)


class Browser:
    """What the harness itself asks of the MCP server: the start page and screenshots."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.url = ""

    def seen(self, result: str) -> None:
        """Note the page URL a tool's result names."""
        found = PAGE_URL.search(result)
        if found:
            self.url = found.group(1)

    async def open(self, url: str) -> None:
        result = await self.session.call_tool("browser_navigate", {"url": url})
        text = "\n".join(getattr(part, "text", "") for part in result.content)
        if result.isError:
            raise ConnectionError(f"the browser did not open the start page: {text[:500]}")
        self.seen(text)

    async def screenshot(self) -> bytes | None:
        result = await self.session.call_tool("browser_take_screenshot", {"type": "png"})
        for part in result.content:
            data = getattr(part, "data", None)
            if getattr(part, "type", "") == "image" and isinstance(data, str):
                return base64.b64decode(data)
        print(f"deepagents: no screenshot: {result.content!r:.300}", file=sys.stderr)
        return None


def recording_handler(spec: AgentInput, recorder: Recorder, browser: Browser) -> Any:
    """A LangChain callback handler that records the episode: every model call's usage,
    every tool call as a step (refusing those beyond max_steps). Callbacks reach the
    subagents' calls too; `raise_error` lets the step limit stop the run."""
    from langchain_core.callbacks import AsyncCallbackHandler
    from langchain_core.messages import AIMessage, ToolMessage

    class Recording(AsyncCallbackHandler):
        raise_error = True

        def __init__(self) -> None:
            self.model_started: dict[UUID, float] = {}
            self.calls: dict[str, ModelAnswer] = {}  # tool call id -> the answer that made it
            self.tools: dict[UUID, tuple[str, Any, ModelAnswer | None]] = {}  # run -> call
            self.tool_calls = 0  # begun, refused ones aside
            self.final: ModelAnswer | None = None

        async def on_chat_model_start(
            self, serialized: dict[str, Any], messages: Any, *, run_id: UUID, **kwargs: Any
        ) -> None:
            self.model_started[run_id] = time.monotonic()

        async def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
            latency = time.monotonic() - self.model_started.pop(run_id, time.monotonic())
            message = getattr(response.generations[0][0], "message", None)
            if not isinstance(message, AIMessage):
                return
            usage = message.usage_metadata or {}
            tokens_in, tokens_out = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
            recorder.add_usage(spec.model.name, tokens_in, tokens_out)
            call = ModelAnswer(answer_text(message), tokens_in, tokens_out, latency)
            for number, tool_call in enumerate(message.tool_calls):
                self.calls[tool_call["id"] or ""] = (
                    call if number == 0 else ModelAnswer(call.output)
                )
            if not message.tool_calls:
                self.final = call

        async def on_tool_start(
            self,
            serialized: dict[str, Any],
            input_str: str,
            *,
            run_id: UUID,
            inputs: dict[str, Any] | None = None,
            **kwargs: Any,
        ) -> None:
            if self.tool_calls >= spec.limits.max_steps:
                raise StepLimit(f"a tool call beyond max_steps ({spec.limits.max_steps})")
            self.tool_calls += 1
            call = self.calls.pop(kwargs.get("tool_call_id") or "", None)
            name = str(serialized.get("name", ""))
            self.tools[run_id] = (name, inputs if inputs is not None else input_str, call)

        async def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
            text = output.text if isinstance(output, ToolMessage) else str(output)
            failed = isinstance(output, ToolMessage) and output.status == "error"
            await self.record(run_id, text, text[:ERROR_CHARS] if failed else None)

        async def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
            await self.record(run_id, "", f"{type(error).__name__}: {error}"[:ERROR_CHARS])

        async def record(self, run_id: UUID, result: str, error: str | None) -> None:
            if run_id not in self.tools:
                return
            name, arguments, call = self.tools.pop(run_id)
            browser.seen(result)
            call = call or ModelAnswer("")
            recorder.step(
                {"name": name, "arguments": arguments},
                url=browser.url,
                answer=call,
                error=error,
                screenshot=await browser.screenshot(),
            )

    return Recording()


def first_failure(error: BaseException) -> BaseException:
    """The exception inside the task groups of the MCP client (anyio wraps what the body
    of `session()` raised, once per group), for `error_kind` to read."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


async def episode(
    spec: AgentInput, recorder: Recorder, scratch: str, deadline: float
) -> tuple[bool, str]:
    """Run the agent in one MCP session until done or `deadline` (the event loop's clock);
    its completion claim and final message."""
    from deepagents import create_deep_agent
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools
    from langchain_openai import ChatOpenAI
    from langgraph.errors import GraphRecursionError

    node = shutil.which("node")
    if node is None or not MCP_CLI.is_file():
        raise RuntimeError(f"no node or no {MCP_CLI}: run `runner harness install deepagents`")
    server = {
        "transport": "stdio",
        "command": node,
        "args": [str(MCP_CLI), "--cdp-endpoint", spec.cdp_url, "--output-dir", scratch],
        "cwd": scratch,  # its snapshot and screenshot files
    }
    client = MultiServerMCPClient({SERVER: server})
    model = ChatOpenAI(
        model=spec.model.name,
        base_url=spec.model.base_url,
        api_key=spec.model.api_key,
        temperature=spec.model.temperature,
        max_tokens=spec.model.max_tokens,
        max_retries=0,  # the runner retries an attempt whose endpoint failed
        timeout=LLM_TIMEOUT_S,
    )
    async with client.session(SERVER) as session:
        tools = await load_mcp_tools(session)
        browser = Browser(session)
        await browser.open(spec.start_url)
        handler = recording_handler(spec, recorder, browser)
        agent = create_deep_agent(model=model, tools=tools)
        config = {"callbacks": [handler], "recursion_limit": 10 * spec.limits.max_steps + 50}
        try:
            async with asyncio.timeout_at(deadline):
                state = await agent.ainvoke(
                    {"messages": [{"role": "user", "content": f"{spec.prompt}\n\n{REPORT_HINT}"}]},
                    config=config,
                )
        except (StepLimit, GraphRecursionError, TimeoutError) as exc:
            print(f"deepagents: stopped: {type(exc).__name__}: {exc}", file=sys.stderr)
            return False, ""
        final, message = handler.final, state["messages"][-1].text
        if final is not None and recorder.steps < spec.limits.max_steps:
            recorder.step(
                {"name": "message", "arguments": {"text": message}},
                url=browser.url,
                answer=final,
                screenshot=await browser.screenshot(),
            )
        return final is not None, message


async def run(spec: AgentInput, recorder: Recorder) -> None:
    for key, value in QUIET_ENV.items():
        os.environ.setdefault(key, value)
    deadline = asyncio.get_running_loop().time() + spec.limits.time_limit_s
    scratch = tempfile.mkdtemp(prefix="wpb-deepagents-")
    try:
        completed, message = await episode(spec, recorder, scratch, deadline)
    except BaseExceptionGroup as group:
        raise first_failure(group) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if completed:  # the answer is the report: `done`, or what its tag says (REPORT_HINT)
        recorder.finish(*read_report(message))
    else:
        recorder.finish(None, message)


if __name__ == "__main__":
    main(run)
