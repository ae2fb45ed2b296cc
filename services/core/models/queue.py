"""The work queue's messages and entries (docs/scaleout.md): what `runner eval --queue`
publishes for each episode, what a worker writes into the bucket of episodes (the lease, then
the final record) and what the bucket of runs keeps of a run. The submitter builds them from
its request, the workers read them through them: a field the request gains (the viewport
was the first) travels with its plan, and a message not in this shape is refused naming the
field."""

from __future__ import annotations

import re
import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from services.core.models.run import AgentConfig, LostAttempt, Manifest, Record, RunPlan

# A run id: today's run-directory name (UTC stamp and harness) and 4 hex, safe in a subject.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,99}")


def episode_key(run_id: str, task_id: str, repeat: int) -> str:
    """An episode's key in the bucket of episodes: run id, task and attempt number."""
    return f"{run_id}.{task_id}.r{repeat}"


class RunSpec(BaseModel):
    """What every episode message of a run carries (v2): the run, its harness and the
    agent's settings, its plan (time limit, today frozen by the submitter, viewport and
    zoom), the docker backend's limits where the worker runs it there, the build. No secret
    travels: the API key by its variable's name only (AgentConfig), no token or credential
    of any stand or of the queue."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[2] = 2
    run_id: str
    harness: str
    agent: AgentConfig
    plan: RunPlan
    # The docker backend's limits, where the worker runs it (`runner worker --backend docker`).
    container_cpus: float = Field(default=1.0, gt=0)
    container_memory: str = "2g"
    build: str
    submitted_at: float = Field(default_factory=time.time)

    @field_validator("run_id")
    @classmethod
    def _run_id(cls, value: str) -> str:
        if not RUN_ID.fullmatch(value):
            raise ValueError(f"letters, digits and '-', got {value!r}")
        return value


class EpisodeSpec(RunSpec):
    """The message of one episode: its run's spec, its place in the run (`n`, its key), the
    task object itself (workers need no task files) and its attempt number."""

    n: int = Field(ge=0)
    key: str
    task_id: str
    task: dict[str, Any]
    repeat: int = Field(ge=1)

    @model_validator(mode="after")
    def _key(self) -> EpisodeSpec:
        if self.key != episode_key(self.run_id, self.task_id, self.repeat):
            raise ValueError(f"key {self.key!r} is not the run's, task's and repeat's")
        return self


class Entry(BaseModel):
    """An episode's value in the bucket of episodes. `running`: a worker holds its lease
    (`beat` grows with each heartbeat); `released`: handed back, for the next delivery;
    `done`: its final record, which nothing moves again. `write_id` tells a write of ours
    that timed out but was applied from another writer's."""

    model_config = ConfigDict(extra="forbid")

    state: Literal["running", "released", "done"]
    delivery: int
    worker: str
    write_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    trajectory_id: str | None = None
    beat: int = 0
    beat_at: float = Field(default_factory=time.time)
    started_at: float = Field(default_factory=time.time)
    # The attempts of earlier deliveries lost to infrastructure (a worker that died).
    lost: list[LostAttempt] = Field(default_factory=list)
    record: Record | None = None
    # The episode folder's object (`<run_id>/<trajectory>.tar.gz`), while not gathered.
    artifact: str | None = None

    def moved(self, **changes: Any) -> Entry:
        """The entry as written next: `changes` and a new write id."""
        return self.model_copy(update={**changes, "write_id": uuid.uuid4().hex})


class RunEntry(BaseModel):
    """A run in the bucket of runs: what `runner gather` rebuilds its directory from."""

    model_config = ConfigDict(extra="forbid")

    manifest: Manifest
    pool: str
    build: str
    # Its episodes in publishing order: [n] -> key.
    keys: list[str]
    # What every episode message of the run carries: `--resume` publishes the same again.
    spec: RunSpec
    state: Literal["submitted", "complete"] = "submitted"

    def episode(self, n: int, task: dict[str, Any]) -> EpisodeSpec:
        """The message of episode `n`, whose task object is `task`."""
        key = self.keys[n]
        task_id, _, repeat = key[len(self.spec.run_id) + 1 :].rpartition(".r")
        return EpisodeSpec(
            **dict(self.spec), n=n, key=key, task_id=task_id, task=task, repeat=int(repeat)
        )
