"""The hermes harness: Hermes Agent (Nous Research, `hermes-agent` 0.19.0) plans and
decides, browser-use executes on the Chromium the runner launched.

Runs in its own environment (`python -m runner.agents.hermes_agent INPUT.json`): browser-use
0.13 with hermes-agent installed beside it without its exact pins (they clash with
browser-use's; runner/harnesses/environments.py). Hermes's `AIAgent` is the planner: its own loop,
system prompt and tool calling against the OpenAI-compatible endpoint (`base_url`, no
provider of its own), with one tool and no other: `browser_task`, which hands one step of
the task to browser-use (`browser_use_agent.Executor`, the browser-use harness's executor on
the same CDP session, the first call opening the start URL) and answers what the executor
reported: whether it said it was done, its report (`done`, `gave_up`, or what its `report`
action said), its result, the page's URL and its action errors.
Hermes's own browser tools are not used: they drive the `agent-browser` Node CLI or hosted
browsers (Browserbase, Browser Use cloud), not a Chromium over CDP. Hermes's home (its
config, sessions, logs, memory) is a scratch folder removed at exit, and its context files,
memory and checkpoints are off.

A step is one executor step (recorded as the browser-use harness records it); the planner's
calls count in the usage, and its final answer is the episode's: completion when Hermes
ended the conversation with an answer, and the report that answer's tag names (the task is
followed by `protocol.REPORT_HINT`; `done` without a tag). A model endpoint that fails in
the executor stops both at once (`infra`); one that fails the planner after Hermes's own
retries ends the episode as `infra` too (Hermes's failure reasons below).

Options: those of the browser-use harness, for the executor.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from typing import Any

from runner.agents import protocol
from runner.agents.browser_use_agent import Executor, report_status, start
from services.core.models.protocol import AgentError, AgentInput
from services.core.models.run import ReportStatus

TOOLSET = "webpagebench"
TOOL = "browser_task"
SCHEMA = {
    "name": TOOL,
    "description": (
        "Carry out one step of the task in the web browser, which is already open on the "
        "task's start page. A browser agent reads the page and clicks, types, selects and "
        "scrolls until the step is done, then reports. Say plainly what to do and what "
        "counts as done; call it again for the next step."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "the step to carry out in the browser"}
        },
        "required": ["task"],
    },
}
# Hermes's failure reasons (agent/error_classifier.py `FailoverReason`) that are the
# endpoint's fault, not the model's.
INFRA_REASONS = {
    "auth",
    "auth_permanent",
    "billing",
    "rate_limit",
    "upstream_rate_limit",
    "overloaded",
    "server_error",
    "timeout",
    "model_not_found",
}


def executor_task(prompt: str, step: str) -> str:
    """What browser-use is told: the whole task for context, then the planner's step."""
    return f"The whole task, for context:\n{prompt}\n\nDo this step now, then stop:\n{step}"


def step_report(history: Any, executor_report: ReportStatus | None) -> str:
    """The tool's answer to the planner: what the executor's run ended with."""
    errors = [error for error in history.errors() if error]
    urls = [url for url in history.urls() if url]
    report = {
        "done": history.is_done(),
        "success": history.is_successful(),
        "report": report_status(history, executor_report),
        "result": history.final_result() or "",
        "url": urls[-1] if urls else "",
        "errors": errors[-3:],
    }
    return json.dumps(report, ensure_ascii=False)


async def run(spec: AgentInput, recorder: protocol.Recorder) -> None:
    # Before Hermes is imported: its home in the scratch folder (`start` made it tempdir).
    os.environ["HERMES_HOME"] = tempfile.mkdtemp(prefix="hermes-home-")
    from run_agent import AIAgent
    from tools.registry import registry

    loop = asyncio.get_running_loop()
    executor = Executor(spec, recorder)
    planner: Any = None

    async def execute(step: str) -> str:
        left = spec.limits.max_steps - recorder.steps
        if left <= 0:
            return json.dumps({"error": "no browser steps are left"})
        history = await executor.run(executor_task(spec.prompt, step), left)
        if executor.infra_error is not None:
            planner.interrupt("the model endpoint failed")
        return step_report(history, executor.reported)

    def browser_task(args: dict[str, Any], **_: Any) -> str:
        step = str(args.get("task") or "")
        print(f"hermes: {TOOL}({step!r})", file=sys.stderr, flush=True)
        return asyncio.run_coroutine_threadsafe(execute(step), loop).result()

    registry.register(name=TOOL, toolset=TOOLSET, schema=SCHEMA, handler=browser_task)
    overrides: dict[str, Any] = {"temperature": spec.model.temperature}
    if spec.model.max_tokens is not None:
        overrides["max_tokens"] = spec.model.max_tokens
    try:
        planner = AIAgent(
            base_url=spec.model.base_url,
            api_key=spec.model.api_key or "none",
            model=spec.model.name,
            max_iterations=spec.limits.max_steps,
            tool_delay=0.0,
            enabled_toolsets=[TOOLSET],
            quiet_mode=True,
            skip_context_files=True,
            skip_memory=True,
            request_overrides=overrides,
        )
    except ValueError as exc:
        await executor.close()
        if "context window" not in str(exc):
            raise
        # Hermes refuses a model whose context (as the endpoint reports it) is below its
        # minimum: no task of the run can start, so the run stops.
        recorder.finish(None, error=AgentError(kind=protocol.CONFIG, message=str(exc)))
        return
    try:
        # Hermes's loop is synchronous; browser-use runs on this event loop meanwhile.
        task = f"{spec.prompt}\n\n{protocol.REPORT_HINT}"
        result = await asyncio.to_thread(planner.run_conversation, task)
    finally:
        await executor.close()
    recorder.add_usage(
        spec.model.name,
        int(result.get("input_tokens") or 0),
        int(result.get("output_tokens") or 0),
        calls=int(result.get("api_calls") or 0),
    )
    final = str(result.get("final_response") or "")
    error = executor.infra_error
    if error is None and result.get("failed"):
        kind = protocol.INFRA if result.get("failure_reason") in INFRA_REASONS else protocol.AGENT
        error = AgentError(kind=kind, message=str(result.get("error") or final)[:2000])
    completed = bool(result.get("completed")) and not result.get("interrupted")
    if error is None and completed:  # the answer is the report (protocol.REPORT_HINT)
        recorder.finish(*protocol.read_report(final))
    else:
        recorder.finish(None, final, error=error)


def main() -> None:
    start(run)


if __name__ == "__main__":
    main()
