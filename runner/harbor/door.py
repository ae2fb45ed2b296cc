"""A Harbor trial's door (docs/frameworks.md, "Harbor"): the sidecar `start` of an exported
task, the one process of the trial that holds the stand's admin token. The agent's box
(`main`) never sees the token, so an agent can neither create a trajectory nor read a
verdict before its trial ends.

At its start it creates the trial's trajectory from its task file (`WPB_TASK_FILE`, the task
as its suite holds it) for `WPB_TODAY`, the date the export shifted the instruction's dates
for, so that the stand shifts the conditions alike; then it serves:

- `GET /` and any other path: a redirect into the trajectory (`/t/<id>/...` on the hub), so
  the instruction's fixed address `http://start:8000/` is the trial's own;
- `GET /ready`: 200 once the trajectory exists (compose's health check);
- `POST /verdict`: the trajectory closed (no more events count) and judged: Harbor's reward
  (EMS) and metrics, the verdict and the failure class. Asked again it gives the same answer;
  an agent that asks early only ends its own trial.

    python -m uvicorn --factory runner.harbor.door:create_app --host 0.0.0.0 --port 8000
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic_settings import BaseSettings

from runner.hub import HubClient, HubFailed, HubRefused
from services.core.failure import classify
from services.core.models.api import Verdict
from services.core.models.base import Boundary
from services.core.models.run import Failure, Status
from services.core.tasks import load_task
from services.kit.settings import Settings, strong_secret

# How long the door waits for the stand's hub at its start (a trial's own stand is starting
# beside it).
HUB_WAIT_S = 120


class DoorSettings(BaseSettings):
    """`WPB_HUB_URL` (the hub as the trial's boxes reach it), `WPB_ADMIN_TOKEN` (or the
    file `wpb_admin_token` in `WPB_SECRETS_DIR`: a trial's own stand's credentials volume),
    `WPB_TASK_FILE`, `WPB_TODAY`."""

    # The services' (services/kit/settings.py), their credentials volume included.
    model_config = Settings.model_config

    hub_url: str = "http://hub:8000"
    admin_token: str = ""
    task_file: Path = Path("/wpb/task.json")
    today: date | None = None

    def token(self) -> str:
        return strong_secret("WPB_ADMIN_TOKEN", self.admin_token)


class Judged(Boundary):
    """`POST /verdict`'s answer: `reward` is what the trial's reward.json holds (numbers only,
    as Harbor reads it), the rest goes beside it."""

    reward: dict[str, float]
    verdict: Verdict
    failure: Failure | None = None
    trajectory_id: str


def reward_of(verdict: Verdict, failure: Failure | None) -> dict[str, float]:
    """Harbor's reward and metrics: `reward` is EMS; the share of conditions that held, their
    number, 1 under `over_action` where the trial changed what no condition asked for (left
    out where the verdict judged none) and 1 under `failure_<class>` for a failed trial."""
    reward: dict[str, float] = {
        "reward": float(verdict.ems),
        "conditions_met": round(verdict.passed / verdict.total, 4) if verdict.total else 1.0,
        "conditions_total": float(verdict.total),
    }
    if verdict.side_effects is not None:
        reward["over_action"] = float(bool(verdict.side_effects))
    if failure is not None:
        reward[f"failure_{failure.class_}"] = 1.0
    return reward


@dataclass
class Trial:
    hub: HubClient
    hub_url: str
    trajectory_id: str
    site: str
    judged: Judged | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def judge(self) -> Judged:
        """The trajectory closed (once) and judged. The agent in Harbor has no channel for a
        claim of success: the trial is judged as one that stopped on its own, unclaimed."""
        async with self.lock:
            if self.judged is None:
                tid = self.trajectory_id
                try:
                    await self.hub.close_trajectory(tid, completion=False)
                except HubRefused as exc:
                    if exc.status != 409:  # 409: closed already (by an earlier door call)
                        raise
                verdict, events = await asyncio.gather(self.hub.check(tid), self.hub.events(tid))
                failure = None
                if verdict.ems != 1:
                    failure = classify(
                        status=Status.OK,
                        completion=False,
                        reports=verdict.conditions,
                        events=events.events,
                        steps=[],
                        error=None,
                        site=self.site,
                    )
                self.judged = Judged(
                    reward=reward_of(verdict, failure),
                    verdict=verdict,
                    failure=failure,
                    trajectory_id=tid,
                )
            return self.judged


async def open_trial(settings: DoorSettings) -> Trial:
    """The trial's trajectory, created once the hub answers (HUB_WAIT_S at most)."""
    task = load_task(settings.task_file)
    hub = HubClient.connect(settings.hub_url.rstrip("/"), settings.token())
    today = settings.today.isoformat() if settings.today else None
    deadline = time.monotonic() + HUB_WAIT_S
    while True:
        try:
            created = await hub.create(task=task, today=today)
            break
        except HubFailed:
            if time.monotonic() > deadline:
                await hub.close()
                raise
            await asyncio.sleep(1)
        except HubRefused:  # a wrong token, a task the stand refuses: no trial
            await hub.close()
            raise
    site = str(task["test_data"].get("bench_first_domain") or "")
    return Trial(hub, settings.hub_url.rstrip("/"), created.trajectory_id, site)


def create_app(settings: DoorSettings | None = None) -> FastAPI:
    settings = settings or DoorSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.trial = await open_trial(settings)
        try:
            yield
        finally:
            await app.state.trial.hub.close()

    app = FastAPI(title="WebPageBench Harbor trial door", lifespan=lifespan)

    @app.get("/ready")
    async def ready() -> dict[str, str]:
        return {"status": "ready"}

    @app.post("/verdict", response_model=None)
    async def verdict(request: Request) -> JSONResponse:
        trial: Trial = request.app.state.trial
        try:
            judged = await trial.judge()
        except HubFailed as exc:
            return JSONResponse({"detail": f"the stand failed: {exc}"}, status_code=502)
        return JSONResponse(judged.model_dump(mode="json", by_alias=True))

    @app.get("/{path:path}")
    async def enter(path: str, request: Request) -> RedirectResponse:
        trial: Trial = request.app.state.trial
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{trial.hub_url}/t/{trial.trajectory_id}/{path}{query}", 302)

    return app
