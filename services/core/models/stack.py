"""`$WPB_HOME/stack.json`: the embedded stack a detached `runner up` keeps running, written
by its supervisor and read by `runner down`/`status`, the hub (restart counts) and the
runner's metrics (scrape targets)."""

from __future__ import annotations

from pydantic import Field

from services.core.models.base import Boundary

STACK_FILE = "stack.json"


class ServiceProcess(Boundary):
    """One supervised process: its pid (None while it is being started again), its port
    and how often the supervisor started it again."""

    pid: int | None = None
    port: int
    restarts: int = 0


class StackFile(Boundary):
    hub_url: str
    # The supervisor's pid: `runner down` stops it, and it stops the services.
    supervisor: int | None = None
    processes: dict[str, ServiceProcess] = Field(default_factory=dict)

    @property
    def restarts(self) -> dict[str, int]:
        return {name: process.restarts for name, process in self.processes.items()}
