"""Configuration shared by every service: one typed object, read from `WPB_*` variables."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def strong_secret(name: str, value: str) -> str:
    """`value`, unless it is empty, a placeholder or shorter than 16 characters."""
    if value.strip() in {"", "changeme", "change-me", "secret", "token"} or len(value) < 16:
        raise ValueError(
            f"{name} must be set to a random value of 16+ characters "
            "(`runner up` generates one under $WPB_HOME)"
        )
    return value


class Settings(BaseSettings):
    """Base settings; each service extends it with its own few fields."""

    # Compose's credentials volume (services/kit/credentials.py), where WPB_SECRETS_DIR names
    # it: a file per variable, read where the variable is unset or empty.
    model_config = SettingsConfigDict(
        env_prefix="WPB_",
        env_file=".env",
        extra="ignore",
        env_ignore_empty=True,
        secrets_dir=os.environ.get("WPB_SECRETS_DIR") or None,
    )

    nats_url: str = "nats://127.0.0.1:4222"
    # The stand's service credential, made by `runner up` at every start (compose: from its
    # secret): the NATS password of user `wpb`, and the bearer token that the collector, the
    # verifier and the sites require. An agent never gets it.
    service_token: str = ""
    home: Path = Path(".wpb")
    log_json: bool = False
    log_level: str = "INFO"
    # The stand's today; frozen for reproducible runs, the real date when unset.
    today: date | None = None
    # Largest request body a service accepts, in bytes.
    max_body_bytes: int = 256 * 1024

    def stand_today(self) -> date:
        return self.today or date.today()

    @field_validator("service_token")
    @classmethod
    def _refuse_weak_service_token(cls, value: str) -> str:
        return strong_secret("WPB_SERVICE_TOKEN", value)


class SiteSettings(Settings):
    """Settings of a site service."""

    # Data directory override (generated catalog); the site's own data/ by default.
    data_dir: Path | None = None


class HubSettings(Settings):
    admin_token: str = ""
    # The address agents use; `%HOST%` in a prompt becomes `{public_url}/t/{tid}/`.
    public_url: str = "http://127.0.0.1:8000"
    events_url: str = "http://127.0.0.1:8001"
    verifier_url: str = "http://127.0.0.1:8002"
    # domain -> base URL of the site service, e.g. {"grocery": "http://127.0.0.1:8103"}
    sites: dict[str, str] = {}
    tasks_dir: Path = Path("tasks")

    @field_validator("admin_token")
    @classmethod
    def _refuse_placeholder(cls, value: str) -> str:
        return strong_secret("WPB_ADMIN_TOKEN", value)


class EventsSettings(Settings):
    db_path: Path | None = None  # $WPB_HOME/events.sqlite3 by default
    batch_size: int = 256
    # Events held parsed in memory for check(), over the most recently checked trajectories.
    recent_events: int = 50_000

    def database(self) -> Path:
        return self.db_path or self.home / "events.sqlite3"


class VerifierSettings(Settings):
    events_url: str = "http://127.0.0.1:8001"
