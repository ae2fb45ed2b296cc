"""Agent harnesses: an agent program in its own process and environment, speaking the
harness protocol (`runner/agents/protocol.py`, docs/harnesses.md) with the runner.

Per episode the runner launches one Chromium with a DevTools port (Russian locale, Moscow
time, the run's viewport and zoom, a downloads folder), writes `input.json`, starts the agent,
and watches it: past the time limit or the step limit it is killed, process group and all.
The runner's own CDP session fails the browser's requests to other hosts than the hub's and
notes them (runner/stack/departures.py). A browser that dies, or an agent that reports its model
endpoint failing, is an infrastructure failure (retried, never scored). The agent calls the
model through the runner's proxy (runner/models/proxy.py): the episode's `calls.jsonl` and its
usage are the endpoint's; an endpoint that refuses the harness's requests as unsupported
ends the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx

from runner.agents.fonts import fonts_over_cdp
from runner.errors import InfraError, ModelRefused
from runner.harnesses.environments import ENVIRONMENTS, QUIET, HarnessEnvError, runner_packages
from runner.harnesses.harness import Episode, Harness, Outcome
from runner.models.proxy import refusal, usage_of
from runner.settings import REPO
from runner.stack.chromium import ARGS, LOCALE, TIMEZONE
from runner.stack.departures import Departures
from runner.wait import WaitTimeout, until_async
from services.core.models.base import FileFormatError
from services.core.models.protocol import (
    INPUT,
    OUTPUT,
    STEPS,
    AgentInput,
    AgentOutput,
    Limits,
    ModelSettings,
)
from services.core.models.run import CALLS, ModelCall, Status, Viewport

# How often the runner looks at a running agent.
POLL_S = 0.25
CHROMIUM_START_S = 20
# Headless Chromium keeps a window frame this tall above the page: the window is made that
# much taller so that every tab's viewport is the run's.
FRAME_PX = 87


def chromium_flags(profile: str, viewport: Viewport) -> list[str]:
    """Chromium's command line for an episode, after the binary and before the DevTools
    port: headless, DevTools on 127.0.0.1, the profile in `profile`, Russian, `viewport`'s
    size and scale factor, and touch events on a phone's. The same for the runner's own
    Chromium and the docker backend's. (A mobile context of Playwright's own cannot be made
    over CDP: every tab of the agent's gets the window's size, scale and touch instead.)"""
    touch = ["--touch-events=enabled"] if viewport.mobile else []
    return [
        *ARGS,
        "--headless",
        "--test-type",  # no infobar about the flags, which would shrink the page
        "--remote-debugging-address=127.0.0.1",
        f"--user-data-dir={profile}",
        f"--window-size={viewport.width},{viewport.height + FRAME_PX}",
        f"--force-device-scale-factor={viewport.zoom:g}",
        *touch,
        f"--lang={LOCALE}",
        f"--accept-lang={LOCALE},ru",
    ]


def chromium_preferences(downloads: str) -> str:
    """The profile's `Default/Preferences`: downloads into `downloads` without asking,
    Russian first in Accept-Language."""
    return json.dumps(
        {
            "download": {"default_directory": downloads, "prompt_for_download": False},
            "intl": {"accept_languages": "ru-RU,ru"},
        }
    )


@contextlib.asynccontextmanager
async def episode_chromium(executable: str, folder: Path, viewport: Viewport) -> AsyncIterator[str]:
    """One Chromium for one episode at `viewport`; yields its CDP URL (an IP: Chromium
    refuses names)."""
    profile = Path(tempfile.mkdtemp(prefix="wpb-chromium-"))
    downloads = folder / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    (profile / "Default").mkdir()
    (profile / "Default" / "Preferences").write_text(chromium_preferences(str(downloads)))
    log = (folder / "chromium.log").open("ab")
    process = await asyncio.create_subprocess_exec(
        executable,
        *chromium_flags(str(profile), viewport),
        "--remote-debugging-port=0",
        "about:blank",
        env={**os.environ, "TZ": TIMEZONE, "LANGUAGE": "ru"},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    try:
        yield await _devtools_url(process, profile)
    finally:
        _kill_group(process)
        await process.wait()
        log.close()
        await asyncio.to_thread(_remove, profile)


async def _devtools_url(process: asyncio.subprocess.Process, profile: Path) -> str:
    marker = profile / "DevToolsActivePort"

    async def answering() -> str | None:
        if process.returncode is not None:
            raise InfraError(f"chromium exited at start ({process.returncode})")
        if marker.exists() and marker.read_text().strip():
            url = f"http://127.0.0.1:{marker.read_text().split()[0]}"
            async with httpx.AsyncClient(timeout=5) as client:
                with contextlib.suppress(httpx.HTTPError):
                    (await client.get(f"{url}/json/version")).raise_for_status()
                    return url
        return None

    try:
        return await until_async(answering, CHROMIUM_START_S, "chromium's DevTools port")
    except WaitTimeout:
        raise InfraError(
            f"chromium did not open its DevTools port in {CHROMIUM_START_S}s"
        ) from None


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Kill the process and whatever it started (its session), even after it exited."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def count_lines(path: Path) -> int:
    try:
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    except FileNotFoundError:
        return 0


class AgentHarness(Harness):
    """A harness whose agent is a program: `python -m runner.agents.NAME` from the
    environment of the same name, or the `external` harness's `--agent-cmd`."""

    needs_browser = False  # it launches a Chromium of its own per episode

    def __init__(self, name: str) -> None:
        self.name = name
        environment = ENVIRONMENTS.get(name)  # none: the external program's, unknown
        self.observation = environment.observation if environment else None
        self.action = environment.action if environment else None

    def packages(self) -> dict[str, str]:
        """The framework and package versions its agent runs with: its venv's, as installed
        (`ready.json`), or the runner's for an agent on the runner's interpreter."""
        environment = ENVIRONMENTS.get(self.name)
        if environment is None:
            return {}
        if not environment.own_venv:
            return runner_packages()
        state = environment.state()
        return dict(sorted(state.packages.items())) if state else {}

    async def rendered_fonts(self, executable: str, viewport: Viewport) -> dict[str, str]:
        """The fonts its agents' browser renders with: a Chromium started as an episode's
        is, probed over its DevTools."""
        with tempfile.TemporaryDirectory(prefix="wpb-fonts-") as scratch:
            async with episode_chromium(executable, Path(scratch), viewport) as cdp_url:
                return await fonts_over_cdp(cdp_url)

    def command(self, episode: Episode) -> tuple[list[str], dict[str, str]]:
        if self.name == "external":
            if not episode.agent.command:
                raise ValueError("external: --agent-cmd is required")
            return shlex.split(episode.agent.command), dict(QUIET)
        environment = ENVIRONMENTS[self.name]
        return environment.command(), dict(environment.env)

    def agent_input(
        self, episode: Episode, cdp_url: str, folder: Path, model_url: str | None = None
    ) -> AgentInput:
        """The episode's input; `model_url`, the runner's proxy, stands for the endpoint."""
        config = episode.agent
        return AgentInput(
            task_id=episode.task_id,
            prompt=episode.prompt,
            start_url=episode.url,
            cdp_url=cdp_url,
            model=ModelSettings(
                name=config.model or episode.model or "",
                base_url=model_url or config.base_url,
                api_key_env=config.api_key_env,
                temperature=config.temperature,
                max_tokens=config.max_tokens,
            ),
            limits=Limits(max_steps=config.max_steps, time_limit_s=episode.time_limit_s),
            output_dir=folder,
            viewport=episode.viewport,
            locale=LOCALE,
            timezone=TIMEZONE,
            options=dict(config.options),
        )

    async def run(self, episode: Episode) -> Outcome:
        if episode.output_dir is None or episode.chromium is None:
            raise InfraError("the runner gave no output folder or Chromium for the episode")
        try:
            argv, extra_env = self.command(episode)
        except HarnessEnvError as exc:
            raise InfraError(str(exc)) from exc
        folder = episode.output_dir
        folder.mkdir(parents=True, exist_ok=True)
        proxy = episode.model_proxy
        # A framework that launches its own Chromium (BrowserGym's env) gets no CDP URL, and
        # its requests to other hosts go unrecorded.
        browser = (
            contextlib.nullcontext("")
            if self.name in ENVIRONMENTS and ENVIRONMENTS[self.name].own_browser
            else episode_chromium(episode.chromium, folder, episode.viewport)
        )
        departures = Departures(episode.url)
        own_paths = ENVIRONMENTS[self.name].python_path() if self.name in ENVIRONMENTS else []
        async with (
            browser as cdp_url,
            departures.watching(cdp_url),
            proxy.episode(folder) if proxy else contextlib.nullcontext() as model_url,
        ):
            spec = folder / INPUT
            self.agent_input(episode, cdp_url, folder, model_url).write(spec)
            env = {
                # The stand's own settings (the admin token among them) stay with the runner.
                **{
                    k: v
                    for k, v in os.environ.items()
                    if not k.startswith("WPB_") or k == episode.agent.api_key_env
                },
                **extra_env,
                "PYTHONPATH": os.pathsep.join(
                    p for p in (str(REPO), *own_paths, os.environ.get("PYTHONPATH", "")) if p
                ),
                "WPB_AGENT_INPUT": str(spec),
                "WPB_CHROMIUM": episode.chromium,
                "TZ": TIMEZONE,
            }
            with (folder / "agent.log").open("ab") as log:
                try:
                    agent = await asyncio.create_subprocess_exec(
                        *argv,
                        str(spec),
                        env=env,
                        stdin=asyncio.subprocess.DEVNULL,
                        stdout=log,
                        stderr=log,
                        start_new_session=True,
                    )
                except OSError as exc:
                    raise ValueError(f"agent command {argv[0]!r}: {exc}") from exc

                async def exited() -> bool:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(agent.wait(), POLL_S)
                        return True
                    return False

                try:
                    stopped = await self.watch(exited, episode, folder)
                finally:
                    _kill_group(agent)
                    await agent.wait()
        calls = ModelCall.read_lines(folder / CALLS)
        refused = next((why for call in calls if (why := refusal(call))), None)
        if refused:
            model = episode.agent.model or episode.model
            raise ModelRefused(
                f"the model {model!r} at {episode.agent.base_url} refused what the "
                f"{self.name} harness sends: {refused}"
            )
        outcome = self.outcome(folder, agent.returncode, stopped, episode.agent.max_steps)
        outcome.left = departures.urls
        if calls:  # the endpoint's count, not the agent's: also calls no step came of
            outcome.usage = usage_of(calls)
        return outcome

    async def watch(
        self, exited: Callable[[], Awaitable[bool]], episode: Episode, folder: Path
    ) -> str | None:
        """Wait until `exited()` (which waits up to POLL_S) says the agent ended; past the
        time or the step limit return which (the caller kills the agent)."""
        deadline = time.monotonic() + episode.time_limit_s
        steps_file = folder / STEPS
        while not await exited():
            if time.monotonic() > deadline:
                return "timeout"
            if count_lines(steps_file) > episode.agent.max_steps:
                return "step_limit"
        return None

    def outcome(self, folder: Path, code: int | None, stopped: str | None, limit: int) -> Outcome:
        steps = count_lines(folder / STEPS)
        try:
            answer: AgentOutput | None = AgentOutput.read(folder / OUTPUT)
        except OSError:
            answer = None
        except FileFormatError as exc:
            return Outcome(completion=False, steps=steps, status=Status.AGENT_ERROR, error=str(exc))
        if stopped is not None:
            why = "the time limit" if stopped == "timeout" else f"the step limit ({limit})"
            return Outcome(
                completion=False,
                steps=steps,
                status=Status(stopped),
                error=f"stopped by the runner at {why}",
                usage=answer.usage if answer else {},
            )
        if answer is None:
            return Outcome(
                completion=False,
                steps=steps,
                status=Status.AGENT_ERROR,
                error=f"the agent exited ({code}) without {OUTPUT}; see agent.log",
            )
        error = answer.error
        if error and error.kind == "infra":
            raise InfraError(f"{self.name}: {error.message}"[:1000])
        if error and error.kind == "config":
            raise ModelRefused(f"the {self.name} harness refused the run's model: {error.message}")
        steps = answer.steps or steps
        status, message = Status.OK, None
        if error:
            status, message = Status.AGENT_ERROR, error.message[:2000]
        elif answer.report in (None, "gave_up") and steps >= limit:
            status, message = Status.STEP_LIMIT, f"the agent stopped at the step limit ({limit})"
        return Outcome(
            completion=answer.claimed,
            final_message=answer.final_message,
            report=answer.report,
            steps=steps,
            usage=answer.usage,
            status=status,
            error=message,
        )


# The entry points of the agent harnesses (pyproject.toml), one per environment and
# `external` (a test holds them to ENVIRONMENTS).
def browser_use() -> AgentHarness:
    return AgentHarness("browser-use")


def openhands() -> AgentHarness:
    return AgentHarness("openhands")


def dom() -> AgentHarness:
    return AgentHarness("dom")


def gui() -> AgentHarness:
    return AgentHarness("gui")


def openmanus() -> AgentHarness:
    return AgentHarness("openmanus")


def hermes() -> AgentHarness:
    return AgentHarness("hermes")


def agentlab() -> AgentHarness:
    return AgentHarness("agentlab")


def external() -> AgentHarness:
    return AgentHarness("external")


def deepagents() -> AgentHarness:
    return AgentHarness("deepagents")
