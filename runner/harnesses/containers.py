"""The docker backend of agent harnesses (`runner eval --backend docker`): per episode a
browser container and an agent container in its network namespace, through the Docker SDK.

The browser container (image `wpb-browser`) runs Debian's Chromium headless with DevTools on
127.0.0.1:9222 inside; the agent container (the harness's image, `wpb-agent-NAME`) shares
its network namespace (`network_mode="container:<browser>"`), so the agent reaches the CDP
at `http://127.0.0.1:9222` and nothing reaches it from outside. The pair sits on the stand's
agents network (compose's `wpb_agents`, internal: only the hub answers there, as
`http://hub:8000`), each container with CPU, memory and process limits, every capability
dropped, and the runner's user and group, so that what it writes into the episode's folder
(bind-mounted at /episode in both) is the runner's. Past the time limit or the step limit
the agent is killed; both containers are removed afterwards, their logs kept as the
episode's `agent.log` and `chromium.log`. docs/harnesses.md, "The docker backend".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker
import docker.errors
from docker.models.containers import Container

from runner.errors import InfraError
from runner.harnesses.environments import ENVIRONMENTS, distribution
from runner.harnesses.harness import Episode, Outcome
from runner.harnesses.program import (
    CHROMIUM_START_S,
    POLL_S,
    AgentHarness,
    chromium_flags,
    chromium_preferences,
)
from runner.stack.chromium import TIMEZONE
from runner.wait import WaitTimeout, until_async
from services.core.models.protocol import INPUT
from services.core.models.run import Viewport

BROWSER_IMAGE = "wpb-browser"
# The image that probes a browser container's fonts: one with Playwright and the runner's
# agents package (runner/agents/fonts.py).
PROBE_IMAGE = "wpb-agent-dom"
CDP_PORT = 9222
# The episode's folder inside both containers.
EPISODE_DIR = "/episode"
# The Chromium profile inside the browser container: its Preferences written, then Chromium.
PROFILE = "/tmp/profile"
START_BROWSER = (
    f'mkdir -p {PROFILE}/Default && printf "%s" "$WPB_PREFERENCES" '
    f'>{PROFILE}/Default/Preferences && exec "$@"'
)
# Chromium's line once its DevTools port listens.
DEVTOOLS_READY = b"DevTools listening on"
LABEL = "wpb.episode"


@dataclass(frozen=True)
class DockerBackend:
    """Where and how the containers run (`runner eval --backend docker`'s settings)."""

    # The stand's agents network (compose's `<project>_agents`).
    network: str = "wpb_agents"
    # The hub as the agents network knows it.
    hub: str = "http://hub:8000"
    # Each container's CPUs and memory (Docker's units: "2g").
    cpus: float = 1.0
    memory: str = "2g"
    pids: int = 512

    def limits(self) -> dict[str, Any]:
        return {
            "nano_cpus": int(self.cpus * 1e9),
            "mem_limit": self.memory,
            "pids_limit": self.pids,
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "user": f"{os.getuid()}:{os.getgid()}",
        }


def agents_url(text: str, public_url: str, hub: str) -> str:
    """`text` (a prompt, a start URL) with every trajectory address under the hub's public
    URL (`http://127.0.0.1:8000/t/...`, where the runner's side finds the hub) moved under
    `hub`, the hub's address on the agents network (`http://hub:8000/t/...`): inside, the
    public address is the container's own loopback. Other text is left as it is."""
    return text.replace(f"{public_url.rstrip('/')}/t/", f"{hub.rstrip('/')}/t/")


def unsupported(harness: str) -> str | None:
    """Why the docker backend cannot run `harness` anywhere (it has no image), or None."""
    environment = ENVIRONMENTS.get(harness)
    if environment is None or environment.image is None:
        with_images = [n for n, e in ENVIRONMENTS.items() if e.image]
        return f"the docker backend runs {', '.join(with_images)}; not {harness!r}"
    return None


def missing(backend: DockerBackend, harness: str) -> str | None:
    """Why `harness` cannot run on the docker backend here (no image of it, no engine, no
    image built, no agents network), or None when it can."""
    why = unsupported(harness)
    if why:
        return why
    environment = ENVIRONMENTS[harness]
    try:
        client = docker.from_env()
    except docker.errors.DockerException as exc:
        return f"no Docker engine answers ({exc}); `make docker-engine`"
    try:
        for image in (BROWSER_IMAGE, environment.image):
            try:
                client.images.get(image)
            except docker.errors.ImageNotFound:
                return f"no image {image}: `make images` builds it"
        try:
            client.networks.get(backend.network)
        except docker.errors.NotFound:
            return f"no network {backend.network}: start the compose stand (`make stand`)"
    finally:
        client.close()
    return None


class ContainerAgentHarness(AgentHarness):
    """An agent harness whose browser and agent run in containers of their own."""

    def __init__(self, name: str, backend: DockerBackend) -> None:
        super().__init__(name)
        self.docker = backend
        environment = ENVIRONMENTS[name]
        if environment.image is None:
            raise ValueError(f"the docker backend has no image for {name!r}")
        self.image = environment.image
        self.module = environment.module
        self.env = environment.env
        # What the run's manifest says about where its agents ran.
        self.images = {"browser": BROWSER_IMAGE, "agent": self.image}
        self.backend = {
            "kind": "docker",
            "images": dict(self.images),
            "network": backend.network,
            "hub": backend.hub,
            "cpus": backend.cpus,
            "memory": backend.memory,
        }

    def packages(self) -> dict[str, str]:
        """The versions of its image's packages, read in a container of it."""
        names = sorted(distribution(r) for r in ENVIRONMENTS[self.name].image_packages)
        script = (
            "import json, importlib.metadata as m; "
            f"print(json.dumps({{n: m.version(n) for n in {names!r}}}))"
        )
        return json.loads(self.probe(self.image, ["python", "-c", script]))

    def chromium_label(self, executable: str | None) -> str | None:
        return f"chromium in {self.images['browser']}"

    def digests(self) -> dict[str, str]:
        """Each of its images' id (`sha256:...`): what exactly ran, as the manifest says."""
        client = docker.from_env()
        try:
            return {role: client.images.get(name).id for role, name in self.images.items()}
        finally:
            client.close()

    def probe(self, image: str, command: list[str], beside: Container | None = None) -> str:
        """The standard output of `command` in a container of `image`, removed after; in
        `beside`'s network namespace when given."""
        client = docker.from_env()
        try:
            network = {"network_mode": f"container:{beside.id}"} if beside else {"network": "none"}
            output = client.containers.run(
                image,
                command,
                remove=True,
                stderr=False,
                environment={"HOME": "/tmp"},
                **network,
                **self.docker.limits(),
            )
        finally:
            client.close()
        return output.decode() if isinstance(output, bytes) else str(output)

    async def rendered_fonts(self, executable: str, viewport: Viewport) -> dict[str, str]:
        """The fonts of a browser container as an episode's, probed over its DevTools from
        a container of the dom agent's image (Playwright) in its namespace."""
        client = docker.from_env()
        try:
            with tempfile.TemporaryDirectory(prefix="wpb-fonts-") as scratch:
                async with self.browser(client, Path(scratch), viewport) as browser:
                    command = [
                        "python",
                        "-m",
                        "runner.agents.fonts",
                        f"http://127.0.0.1:{CDP_PORT}",
                    ]
                    output = await asyncio.to_thread(self.probe, PROBE_IMAGE, command, browser)
        finally:
            client.close()
        return json.loads(output)

    async def run(self, episode: Episode) -> Outcome:
        if episode.output_dir is None:
            raise InfraError("the runner gave no output folder for the episode")
        folder = episode.output_dir
        (folder / "downloads").mkdir(parents=True, exist_ok=True)
        public = episode.url[: episode.url.index("/t/")]
        spec = self.agent_input(episode, f"http://127.0.0.1:{CDP_PORT}", folder)
        spec = spec.model_copy(
            update={
                "prompt": agents_url(episode.prompt, public, self.docker.hub),
                "start_url": agents_url(episode.url, public, self.docker.hub),
                "output_dir": Path(EPISODE_DIR),
            }
        )
        spec.write(folder / INPUT)
        client = docker.from_env()
        try:
            async with self.browser(client, folder, episode.viewport) as browser:
                agent = await self.start_agent(client, browser, episode, folder)
                try:
                    stopped = await self.watch(container_exited(agent), episode, folder)
                finally:
                    await asyncio.to_thread(remove, agent, folder / "agent.log")
                code = agent.attrs["State"]["ExitCode"] if stopped is None else None
        except docker.errors.DockerException as exc:
            raise InfraError(f"docker: {exc}") from exc
        finally:
            client.close()
        return self.outcome(folder, code, stopped, episode.agent.max_steps)

    @contextlib.asynccontextmanager
    async def browser(
        self, client: docker.DockerClient, folder: Path, viewport: Viewport
    ) -> AsyncIterator[Container]:
        """The episode's browser container at `viewport`, once its DevTools port listens;
        removed after."""
        container = await asyncio.to_thread(
            client.containers.run,
            BROWSER_IMAGE,
            [
                "sh",
                "-c",
                START_BROWSER,
                "sh",
                "chromium",
                *chromium_flags(PROFILE, viewport),
                f"--remote-debugging-port={CDP_PORT}",
                "about:blank",
            ],
            name=f"wpb-{folder.name[:16]}-browser",
            detach=True,
            network=self.docker.network,
            environment={
                "WPB_PREFERENCES": chromium_preferences(f"{EPISODE_DIR}/downloads"),
                "TZ": TIMEZONE,
                "LANGUAGE": "ru",
                "HOME": "/tmp",
            },
            volumes={str(folder.resolve()): {"bind": EPISODE_DIR, "mode": "rw"}},
            labels={LABEL: folder.name, "wpb.role": "browser"},
            shm_size="256m",
            **self.docker.limits(),
        )
        try:
            await devtools_ready(container)
            yield container
        finally:
            await asyncio.to_thread(remove, container, folder / "chromium.log")

    async def start_agent(
        self, client: docker.DockerClient, browser: Container, episode: Episode, folder: Path
    ) -> Container:
        key = episode.agent.api_key_env
        env = {
            **self.env,
            # The key the agent was told to read, when the runner has it; nothing else of
            # the runner's environment (the stand's settings least of all).
            **({key: os.environ[key]} if key and key in os.environ else {}),
            "WPB_AGENT_INPUT": f"{EPISODE_DIR}/{INPUT}",
            "TZ": TIMEZONE,
            "HOME": "/tmp",
        }
        return await asyncio.to_thread(
            client.containers.run,
            self.image,
            ["python", "-m", self.module, f"{EPISODE_DIR}/{INPUT}"],
            name=f"wpb-{folder.name[:16]}-agent",
            detach=True,
            network_mode=f"container:{browser.id}",
            environment=env,
            volumes={str(folder.resolve()): {"bind": EPISODE_DIR, "mode": "rw"}},
            labels={LABEL: folder.name, "wpb.role": "agent"},
            **self.docker.limits(),
        )


def container_exited(container: Container) -> Callable[[], Awaitable[bool]]:
    """`AgentHarness.watch`'s test for a container: whether it stopped, asked every POLL_S."""

    async def exited() -> bool:
        await asyncio.sleep(POLL_S)
        await asyncio.to_thread(container.reload)
        return container.status not in ("created", "running")

    return exited


async def devtools_ready(container: Container) -> None:
    """Wait until Chromium in `container` says its DevTools port listens."""

    async def listening() -> bool:
        await asyncio.to_thread(container.reload)
        if container.status not in ("created", "running"):
            raise InfraError(f"chromium's container stopped at start ({container.status})")
        return DEVTOOLS_READY in await asyncio.to_thread(container.logs)

    try:
        await until_async(listening, CHROMIUM_START_S, "chromium's DevTools port")
    except WaitTimeout:
        raise InfraError(
            f"chromium did not open its DevTools port in {CHROMIUM_START_S}s"
        ) from None


def remove(container: Container, log: Path) -> None:
    """Stop `container` at once, keep its output in `log`, remove it."""
    with contextlib.suppress(docker.errors.APIError):
        container.kill()
    with contextlib.suppress(docker.errors.APIError):
        container.reload()
        log.write_bytes(container.logs())
    with contextlib.suppress(docker.errors.NotFound):
        container.remove(force=True)
