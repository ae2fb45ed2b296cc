"""Trajectories as the sites see them: metadata in the KV bucket, addressed by the path's tid."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import date
from typing import Any

from services.kit.bus import TRAJECTORIES_BUCKET, Bus

TID_PATTERN = re.compile(r"^[0-9a-f]{32}$")


def new_trajectory_id() -> str:
    """128 random bits, hex: unguessable and safe in a NATS subject and a URL."""
    return secrets.token_hex(16)


@dataclass(frozen=True)
class Trajectory:
    """One run of one task, read from the KV bucket at request time."""

    meta: dict[str, Any]
    revision: int

    @property
    def id(self) -> str:
        return str(self.meta["trajectory_id"])

    @property
    def today(self) -> date:
        """The stand's today when the trajectory was created; its task's dates follow it."""
        return date.fromisoformat(self.meta["today"])

    @property
    def is_open(self) -> bool:
        return self.meta.get("status") == "open"

    def variants(self, domain: str) -> dict[str, str]:
        return dict(self.meta.get("ui_variants", {}).get(domain, {}))

    def variant(self, domain: str, key: str) -> str | None:
        return self.variants(domain).get(key)


async def load_trajectory(bus: Bus, trajectory_id: str) -> Trajectory | None:
    if not TID_PATTERN.match(trajectory_id):
        return None
    meta, revision = await bus.get_json(TRAJECTORIES_BUCKET, trajectory_id)
    return Trajectory(meta, revision) if meta else None
