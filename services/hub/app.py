"""The hub: the trajectory API for runners (`api.py`), the agent's entry page and proxy
(`agent.py`), pages for people (`viewer.py`), over the trajectories service
(`trajectories.py`)."""

from __future__ import annotations

import logging

from fastapi import FastAPI

from services.hub import agent, api, viewer
from services.hub.deps import HERE
from services.hub.faults import FaultLog, RecordFaults, expose_restarts
from services.hub.sinks import RecordSinks
from services.hub.trajectories import OpenTrajectories
from services.kit.settings import HubSettings
from services.kit.site import Pages
from services.kit.upstream import upstream_client
from services.kit.web import create_service_app

log = logging.getLogger("wpb.hub")


def create_app(settings: HubSettings | None = None) -> FastAPI:
    settings = settings or HubSettings()

    async def startup(app: FastAPI) -> None:
        app.state.http = upstream_client(settings.service_token, limit=200)
        app.state.open_trajectories = OpenTrajectories()
        await app.state.open_trajectories.start(app.state.bus)
        if settings.model_config.get("secrets_dir"):
            # Compose's stand: its credentials are in a volume, so its log is where the
            # person who started it finds how to log in (`docker compose logs hub`).
            login = f"{settings.public_url}/view/login?token={settings.admin_token}"
            log.info("the stand's pages: %s", login)

    async def shutdown(app: FastAPI) -> None:
        await app.state.open_trajectories.stop()
        await app.state.http.close()

    app = create_service_app("hub", settings, startup=startup, shutdown=shutdown, internal=False)
    app.state.pages = Pages(HERE / "templates", "hub", settings.service_token)
    app.state.faults = FaultLog()
    app.add_middleware(RecordFaults)
    app.add_middleware(RecordSinks)
    expose_restarts(settings.home)
    for router in (api.router, viewer.router, agent.router):
        app.include_router(router)
    return app
