"""`runner eval`'s request: its options as one validated model, refused with the option named.

`RunPlan` (runner/run/evaluate.py) is the part `evaluate()` reads (workers, time limit, attempts,
today, viewport and zoom); `EvalRequest` adds the harness, the agent's settings, the task
selection and where the run goes.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from runner.agents.gui_families import GuiFamily
from runner.errors import QueueError
from runner.harnesses.containers import DockerBackend, unsupported
from runner.harnesses.environments import ENVIRONMENTS
from runner.harnesses.harness import harness_factory
from runner.harnesses.oracle.ui import PATHS as ORACLE_PATHS
from runner.harnesses.placement import Backend, Placement
from runner.settings import RunnerSettings
from services.core.errors import FieldError
from services.core.models.queue import RUN_ID
from services.core.models.run import ZOOMS, AgentConfig, Options, RunPlan, Viewport
from services.core.models.task import RELEASED
from services.core.tasks import GENERATED, check_suite

# The queue's names (docs/scaleout.md), which its options give and it checks again (a run
# id as services/core/models/queue.py's RUN_ID).
POOL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


def servers(text: str) -> list[str]:
    """`--queue`'s comma-separated server list, each `nats://host:port` (or tls://);
    a QueueError names the first that is not."""
    urls = [part.strip() for part in text.split(",") if part.strip()]
    if not urls:
        raise QueueError("--queue: expected nats://host:port[,nats://host:port…]")
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("nats", "tls") or not parts.hostname:
            raise QueueError(f"--queue: expected nats://host:port, got {url!r}")
    return urls


def check_pool(pool: str) -> str:
    if not POOL.fullmatch(pool):
        raise QueueError(f"--pool: letters, digits, '-' and '_' (at most 40), got {pool!r}")
    return pool


def check_run_id(run_id: str) -> str:
    if not RUN_ID.fullmatch(run_id):
        raise QueueError(f"run id: letters, digits and '-', got {run_id!r}")
    return run_id


class Refusal(ValueError):
    """A bad option or combination, with the option to name (`--option name: why`)."""

    def __init__(self, option: str, why: str) -> None:
        super().__init__(f"{option}: {why}")


def refusal(error: ValidationError) -> str:
    """The first problem of `error` as the CLI says it: `--option: why`."""
    first = error.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, Refusal):
        return str(cause)
    option = "--" + str(first["loc"][0]).replace("_", "-") if first["loc"] else "the request"
    why = str(cause) if cause is not None else first["msg"]
    return f"{option}: {why[:1].lower()}{why[1:]}"


class TaskSelection(BaseModel):
    """Which tasks (`runner eval`'s and `runner export --format harbor`'s options): a suite,
    or a generated one (its folder, or the family, seed and count of one made now), and the
    names, sites or globs of it (`--tasks`), at most `max_tasks`."""

    suite: str = RELEASED
    # A generated suite: the folder it was written to, or the family, seed and count of one
    # made for the run (`--suite generated`).
    tasks_dir: Path | None = None
    task_family: str | None = None
    seed: int | None = Field(default=None, ge=0)
    count: int | None = Field(default=None, ge=1)
    tasks: str | None = None
    max_tasks: int | None = None

    @field_validator("suite")
    @classmethod
    def _suite(cls, name: str) -> str:
        if name == GENERATED:
            return name
        try:
            return check_suite(name, "--suite")
        except FieldError as exc:
            raise Refusal("--suite", exc.message) from None

    @field_validator("tasks_dir")
    @classmethod
    def _folder(cls, path: Path | None) -> Path | None:
        if path is not None and not path.is_dir():
            raise ValueError(f"no folder {path}")
        return path

    @model_validator(mode="after")
    def _generated(self) -> TaskSelection:
        """`--suite generated` takes the family, seed and count of the suite it makes; they
        mean nothing without it, and a generated folder is another source."""
        made = {"--task-family": self.task_family, "--seed": self.seed, "--count": self.count}
        if self.suite == GENERATED:
            for option, value in made.items():
                if value is None:
                    raise Refusal(
                        option, "--suite generated needs --task-family, --seed and --count"
                    )
            if self.tasks_dir is not None:
                raise Refusal("--tasks-dir", "a generated folder, or --suite generated: not both")
        else:
            for option, value in made.items():
                if value is not None:
                    raise Refusal(option, "only with --suite generated")
        return self


class EvalRequest(RunPlan, TaskSelection):
    """Every option of `runner eval`, by its name (`api_key_env` is `--api-key-env`). The
    ranges of numbers are the options' own (typer checks them); this model checks what one
    option cannot: the harness, the combinations, the `--option`s, the price table's file."""

    harness: str
    model: str | None = None
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_steps: int = 30
    max_tokens: int | None = None
    family: GuiFamily | None = None
    page_geometry: bool = False
    # `--option KEY=VALUE`s, read as {KEY: the JSON value, or the text}.
    option: Options = Field(default_factory=dict)
    agent_cmd: str | None = None
    prices: Path | None = None
    metrics_port: int | None = None
    hub: str | None = None
    backend: Backend = Backend.local
    agents_network: str = DockerBackend.network
    container_cpus: float = DockerBackend.cpus
    container_memory: str = DockerBackend.memory
    # The queue (docs/scaleout.md): its servers, the pool, its cap, and how to submit.
    queue: str | None = None
    pool: str = "default"
    max_pending: int | None = None
    detach: bool = False
    resume: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _screen(cls, params: Any) -> Any:
        """`--viewport WxH` and `--zoom F` as the plan's one viewport."""
        if not isinstance(params, dict) or not isinstance(params.get("viewport"), str):
            return params
        params = dict(params)
        try:
            viewport = Viewport.of(params["viewport"])
        except ValueError as exc:
            raise Refusal("--viewport", str(exc)) from None
        zoom = params.pop("zoom", None)
        if zoom is not None:
            low, high = ZOOMS
            if not low <= zoom <= high:
                raise Refusal(
                    "--zoom", f"the scale factor {zoom:g} is not between {low:g} and {high:g}"
                )
            viewport = viewport.model_copy(update={"zoom": zoom})
        params["viewport"] = viewport
        return params

    @field_validator("harness")
    @classmethod
    def _known(cls, name: str) -> str:
        try:
            harness_factory(name)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        return name

    @field_validator("option", mode="before")
    @classmethod
    def _key_values(cls, items: list[str] | None) -> Options:
        options: Options = {}
        for item in items or []:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"expected KEY=VALUE, got {item!r}")
            try:
                options[key.strip()] = json.loads(value)
            except ValueError:
                options[key.strip()] = value
        return options

    @field_validator("prices")
    @classmethod
    def _present(cls, path: Path | None) -> Path | None:
        if path is not None and not path.exists():
            raise ValueError(f"no file {path}")
        return path

    @field_validator("metrics_port", mode="before")
    @classmethod
    def _configured_port(cls, port: int | None) -> int | None:
        return RunnerSettings().metrics_port if port is None else port

    @model_validator(mode="after")
    def _consistent(self) -> EvalRequest:
        if self.backend is Backend.docker:
            if self.hub is None:
                raise Refusal(
                    "--backend docker", "--hub, the compose stand's hub, is needed (make stand)"
                )
            why = unsupported(self.harness)
            if why:
                raise Refusal("--backend docker", why)
        name = self.harness
        if name in ENVIRONMENTS or name == "external":
            if not self.model:
                raise Refusal("--model", f"the {name} harness needs a model name")
            if not self.base_url:
                raise Refusal(
                    "--base-url", f"the {name} harness needs an OpenAI-compatible endpoint"
                )
            if not self.base_url.startswith(("http://", "https://")):
                raise Refusal("--base-url", f"expected http(s)://…, got {self.base_url!r}")
        if name == "gui" and self.family is None:
            raise Refusal("--family", f"the gui harness needs one of {', '.join(GuiFamily)}")
        if name == "external":
            try:
                argv = shlex.split(self.agent_cmd or "")
            except ValueError as exc:
                raise Refusal("--agent-cmd", str(exc)) from None
            if not argv:
                raise Refusal("--agent-cmd", "the external harness needs the agent's command")
            if shutil.which(argv[0]) is None:
                raise Refusal("--agent-cmd", f"{argv[0]!r} is not an executable file or on PATH")
        if name == "oracle" and self.option.get("path", ORACLE_PATHS[0]) not in ORACLE_PATHS:
            raise Refusal("--option path", f"the oracle takes one of {', '.join(ORACLE_PATHS)}")
        self._queued()
        return self

    def _queued(self) -> None:
        """The queue's options: with --queue only, a pool and a run id as the queue takes them;
        the stand is each worker's (no --hub)."""
        if self.queue is None:
            for option, given in (
                ("--detach", self.detach),
                ("--resume", self.resume),
                ("--max-pending", self.max_pending),
            ):
                if given:
                    raise Refusal(option, "needs --queue, the queue's servers")
            return
        try:
            servers(self.queue)
            check_pool(self.pool)
            if self.resume is not None:
                check_run_id(self.resume)
        except QueueError as exc:
            option, _, why = str(exc).partition(": ")
            raise Refusal(option if option.startswith("--") else "--resume", why) from None
        if self.hub is not None:
            raise Refusal("--hub", "with --queue the workers' stands run the episodes")

    def run_plan(self) -> RunPlan:
        """The plan alone, every field of it: what a queued run's episodes carry."""
        return RunPlan(**{name: getattr(self, name) for name in RunPlan.model_fields})

    def agent_config(self) -> AgentConfig:
        """The agent harness's settings: the model, its limits and the harness's options."""
        options = dict(self.option)
        if self.family:
            options["family"] = self.family.value
        if self.page_geometry:
            options["page_geometry"] = True
        return AgentConfig(
            model=self.model,
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            temperature=self.temperature,
            max_steps=self.max_steps,
            max_tokens=self.max_tokens,
            options=options,
            command=self.agent_cmd,
        )

    def placement(self) -> Placement:
        """Where the agents run: `--backend`, and on docker `--agents-network` and
        `--container-*`."""
        docker = DockerBackend(
            network=self.agents_network, cpus=self.container_cpus, memory=self.container_memory
        )
        return Placement(self.backend, docker)
