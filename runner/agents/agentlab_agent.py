"""The agentlab harness: AgentLab's generic agent (agentlab 0.4.2) in BrowserGym's env.

Runs in its own environment (`python -m runner.agents.agentlab_agent INPUT.json`), which holds
browsergym-core 0.14.3 (Playwright 1.44), this repository's `browsergym_webpagebench`, and
agentlab without its dependencies (docs/harnesses.md, "agentlab"). The env is BrowserGym's
`BrowserEnv` on a `WebPageBenchTask` given the runner's trajectory (its start URL and
prompt): this process holds no token, and the runner closes and checks the trajectory.
BrowserGym launches its own Chromium (WPB_CHROMIUM), so `cdp_url` is empty.

The agent is `GenericAgent` with AgentLab's GPT-4o flags (the accessibility tree with bids,
its thinking, one action per step), its action set that of the tasks (`chat`, `infeas`,
`bid`, `tab`, `nav`) and its prompt never cut to a token budget (the tokenizer's table
cannot be downloaded everywhere; `--option max_prompt_tokens=N` where it can). Its model is
AgentLab's `ChatModel` on an OpenAI client at the run's base URL. A step is one
`get_action` (the model call, and AgentLab's re-asks when the answer did not parse) and the
env's step; the episode ends when the agent messages the user (`send_msg_to_user`: `done`,
or the status its message's leading tag names, `protocol.REPORT_HINT`, which follows the
goal: a question to the user is `[needs_input]`) or says it cannot (`report_infeasible`), at
the step limit, or when no answer parses.

Options: `use_screenshot` (false: a vision model also gets the screenshot), `max_retry`
(AgentLab's re-asks of an unparsable answer, 4), `max_new_tokens` (the endpoint's default),
`max_prompt_tokens` (none), `llm_timeout_s` (120, one HTTP attempt), `llm_retries` (2, the
OpenAI client's retries of a failed request).
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
import time
from dataclasses import dataclass
from typing import Any

from runner.agents import protocol
from services.core.models.protocol import AgentError, AgentInput

# BrowserGym's action subsets for a multi-tab site: say done or impossible, act on bids,
# switch tabs, go back or to an address.
ACTION_SUBSETS = ("chat", "infeas", "bid", "tab", "nav")


@dataclass
class Endpoint:
    """The model endpoint's last answer: its HTTP status (None: no answer at all)."""

    status: int | None = None

    def failed(self) -> bool:
        """Whether the endpoint, not the model, is to blame for the last failure."""
        return self.status is None or self.status in protocol.INFRA_STATUSES


def model_args(spec: AgentInput, endpoint: Endpoint) -> Any:
    """AgentLab's model arguments for the run's endpoint: its `ChatModel` on an OpenAI
    client whose answers `endpoint` watches."""
    import httpx
    import openai
    from agentlab.llm.base_api import BaseModelArgs
    from agentlab.llm.chat_api import ChatModel

    options = spec.options
    timeout = float(options.get("llm_timeout_s", 120))

    def seen(response: httpx.Response) -> None:
        endpoint.status = response.status_code

    @dataclass
    class EndpointModelArgs(BaseModelArgs):  # type: ignore[misc]
        def make_model(self) -> Any:
            endpoint.status = None
            client = httpx.Client(
                timeout=httpx.Timeout(timeout, connect=10.0), event_hooks={"response": [seen]}
            )
            return ChatModel(
                model_name=self.model_name,
                api_key=spec.model.api_key,
                temperature=self.temperature,
                max_tokens=self.max_new_tokens or openai.NOT_GIVEN,
                # One call per answer: the OpenAI client retries a failed request itself.
                max_retry=1,
                min_retry_wait_time=0,
                client_args={
                    "base_url": spec.model.base_url,
                    "max_retries": int(options.get("llm_retries", 2)),
                    "http_client": client,
                },
            )

    # The run's --max-tokens, unless the harness's own option says otherwise.
    new_tokens = options.get("max_new_tokens", spec.model.max_tokens)
    return EndpointModelArgs(
        model_name=spec.model.name,
        temperature=spec.model.temperature,
        max_new_tokens=int(new_tokens) if new_tokens else None,
        vision_support=bool(options.get("use_screenshot", False)),
    )


def agent_args(spec: AgentInput, endpoint: Endpoint) -> Any:
    from agentlab.agents.generic_agent.agent_configs import FLAGS_GPT_4o
    from agentlab.agents.generic_agent.generic_agent import GenericAgentArgs
    from bgym import HighLevelActionSetArgs

    options = spec.options
    flags = FLAGS_GPT_4o.copy()
    flags.obs.use_tabs = True
    flags.obs.use_screenshot = bool(options.get("use_screenshot", False))
    flags.action.action_set = HighLevelActionSetArgs(subsets=ACTION_SUBSETS)
    budget = options.get("max_prompt_tokens")
    flags.max_prompt_tokens = int(budget) if budget else None
    return GenericAgentArgs(
        chat_model_args=model_args(spec, endpoint),
        flags=flags,
        max_retry=int(options.get("max_retry", 4)),
    )


def png(screenshot: Any) -> bytes:
    """The observation's screenshot (an RGB array) as PNG."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(screenshot).save(out, format="PNG")
    return out.getvalue()


def answers(info: Any) -> list[str]:
    """The model's answers in a step's AgentInfo: one, and one per re-ask."""
    messages = getattr(info.chat_messages, "messages", [])
    return [str(m.get("content") or "") for m in messages if m.get("role") == "assistant"]


def episode(spec: AgentInput, recorder: protocol.Recorder) -> None:
    from agentlab.llm.chat_api import RetryError
    from browsergym.core.env import BrowserEnv
    from browsergym_webpagebench import WebPageBenchTask

    endpoint = Endpoint()
    agent = agent_args(spec, endpoint).make_agent()
    env = BrowserEnv(
        WebPageBenchTask,
        # BrowserGym says done and infeasible; the other reports are tagged (REPORT_HINT).
        task_kwargs={
            "task_id": spec.task_id,
            "start_url": spec.start_url,
            "goal": f"{spec.prompt}\n\n{protocol.REPORT_HINT}",
        },
        # The run's screen: BrowserEnv takes the size itself and the rest as context options.
        viewport=spec.viewport.size,
        pw_context_kwargs={k: v for k, v in spec.viewport.context.items() if k != "viewport"},
        headless=True,
        action_mapping=agent.action_set.to_python_code,
    )
    try:
        obs, _ = env.reset(seed=0)
        while recorder.steps < spec.limits.max_steps:
            started = time.monotonic()
            try:
                action, info = agent.get_action(agent.obs_preprocessor(obs))
            except RetryError as exc:
                kind = protocol.INFRA if endpoint.failed() else protocol.AGENT
                recorder.finish(None, error=AgentError(kind=kind, message=protocol.describe(exc)))
                return
            latency = time.monotonic() - started
            stats = info.stats or {}
            tokens = int(stats.get("input_tokens", 0)), int(stats.get("output_tokens", 0))
            said = answers(info)
            recorder.add_usage(spec.model.name, *tokens, calls=len(said))
            seen = obs
            error = "no answer that parses as an action" if action is None else None
            if action is not None:
                obs, _, terminated, truncated, _ = env.step(action)
                error = obs["last_action_error"] or None
            recorder.step(
                action,
                url=seen["url"],
                answer=protocol.ModelAnswer("\n".join(said), tokens[0], tokens[1], latency),
                error=error,
                screenshot=png(seen["screenshot"]),
            )
            if action is None:
                recorder.finish(None, "AgentLab: the model's answer did not parse")
                return
            if terminated or truncated:
                if env.task.said is None:
                    recorder.finish(None)
                else:  # send_msg_to_user: done or what its tag says; report_infeasible
                    completion, message = env.task.said
                    if completion:
                        recorder.finish(*protocol.read_report(message))
                    else:
                        recorder.finish("infeasible", message)
                return
        recorder.finish(None)
    finally:
        env.close()


async def run(spec: AgentInput, recorder: protocol.Recorder) -> None:
    # BrowserGym drives Playwright's sync API, which refuses a thread with a running loop.
    await asyncio.to_thread(episode, spec, recorder)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    protocol.main(run)


if __name__ == "__main__":
    main()
