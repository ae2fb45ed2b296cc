"""The runner's configuration, from `WPB_*` variables like every service's."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict


class RunnerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WPB_", env_file=".env", extra="ignore")

    home: Path = Path(".wpb")
    hub_port: int = 8000
    # The address agents are given; the hub's own address by default.
    public_url: str | None = None
    today: str | None = None
    admin_token: str | None = None
    # Which sites the embedded stack starts (comma-separated domains); all built ones if unset.
    stack_sites: str | None = None
    chromium: str | None = None
    # The runner's own metrics during `runner eval` (off when unset; the Prometheus configs
    # look for it at 9108) and the address they listen on.
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    # Liveness apart from readiness: the supervisor restarts a running service whose /ready
    # has failed for this many seconds while NATS answers (it is up, but cut off).
    ready_grace_s: float = 30.0
    # How long `runner eval` waits for a stand that is not ready, before the run and before
    # each attempt (then it refuses the run, or counts the attempt as infra_error).
    ready_wait_s: float = 120.0

    def today_date(self) -> date:
        return date.fromisoformat(self.today) if self.today else date.today()
