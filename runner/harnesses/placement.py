"""Where a host runs a harness's agents, `runner eval`'s and `runner worker`'s alike: in the
runner's process or a process of its own (`local`), or in containers of their own on the
compose stand's agents network (`docker`, docs/harnesses.md)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from runner.harnesses import containers
from runner.harnesses.containers import ContainerAgentHarness, DockerBackend
from runner.harnesses.environments import ENVIRONMENTS
from runner.harnesses.harness import Harness, get_harness, harness_factory


class Backend(StrEnum):
    """Where a harness's episodes run (`--backend`)."""

    local = "local"
    docker = "docker"


@dataclass(frozen=True)
class Placement:
    """A backend and, on docker, the network and each container's limits."""

    backend: Backend = Backend.local
    docker: DockerBackend = field(default_factory=DockerBackend)

    def harness(self, name: str, cpus: float | None = None, memory: str | None = None) -> Harness:
        """The harness `name` placed here; on docker, each container with `cpus` and
        `memory` where given (a queued run's own) instead of this placement's."""
        if self.backend is Backend.docker:
            limits = replace(
                self.docker,
                cpus=self.docker.cpus if cpus is None else cpus,
                memory=memory or self.docker.memory,
            )
            return ContainerAgentHarness(name, limits)
        return get_harness(name)

    def missing(self, name: str) -> str | None:
        """Why this host cannot run `name` here (not declared, not installed, no image, no
        engine, no network), or None when it can."""
        try:
            harness_factory(name)
        except KeyError as exc:
            return f"this host has no such harness ({exc.args[0]})"
        if self.backend is Backend.docker:
            return containers.missing(self.docker, name)
        environment = ENVIRONMENTS.get(name)
        if environment is not None and environment.state() is None:
            return f"not installed on this host: `runner harness install {name}`"
        return None
