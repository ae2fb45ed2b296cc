"""The typed client of the WebPageBench environment (OpenEnv's `EnvClient`, over `/ws`):

from webpagebench_env import WebpagebenchAction, WebpagebenchEnv

with WebpagebenchEnv(base_url="http://127.0.0.1:8010") as env:
    result = env.reset(task_id="grocery_showcase_tea")
    result = env.step(WebpagebenchAction(action="click('e12')"))
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from webpagebench_env.models import (
    WebpagebenchAction,
    WebpagebenchObservation,
    WebpagebenchState,
)


class WebpagebenchEnv(EnvClient[WebpagebenchAction, WebpagebenchObservation, WebpagebenchState]):
    def _step_payload(self, action: WebpagebenchAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[WebpagebenchObservation]:
        fields = dict(payload.get("observation", {}))
        # openenv 0.10 sends `metadata` inside the observation and beside it.
        metadata = fields.pop("metadata", None) or payload.get("metadata") or {}
        reward, done = payload.get("reward"), bool(payload.get("done", False))
        observation = WebpagebenchObservation(**fields, reward=reward, done=done, metadata=metadata)
        return StepResult(observation=observation, reward=reward, done=done)

    def _parse_state(self, payload: dict[str, Any]) -> WebpagebenchState:
        return WebpagebenchState(**payload)
