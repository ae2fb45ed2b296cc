"""Agent harnesses: an agent program in its own process and environment, speaking the
harness protocol (`runner/agents/protocol.py`, docs/harnesses.md) with the runner.

Per episode the runner launches one Chromium with a DevTools port (Russian locale, Moscow
time, the standard viewport, a downloads folder), writes `input.json`, starts the agent,
and watches it: past the time limit or the step limit it is killed, process group and all.
A browser that dies, or an agent that reports its model endpoint failing, is an
infrastructure failure (retried, never scored).
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
from typing import Any

import httpx

from runner.agents.protocol import PROTOCOL
from runner.browser import ARGS, LOCALE, TIMEZONE, VIEWPORT
from runner.environments import ENVIRONMENTS, QUIET, HarnessEnvError
from runner.harness import Episode, InfraError, Outcome
from runner.settings import REPO, runner_home
from runner.wait import WaitTimeout, until_async

# How often the runner looks at a running agent.
POLL_S = 0.25
CHROMIUM_START_S = 20
# Headless Chromium keeps a window frame this tall above the page: the window is made that
# much taller so that every tab's viewport is the standard one.
FRAME_PX = 87


def chromium_flags(profile: str) -> list[str]:
    """Chromium's command line for an episode, after the binary and before the DevTools
    port: headless, DevTools on 127.0.0.1, the profile in `profile`, Russian, the standard
    viewport. The same for the runner's own Chromium and the docker backend's."""
    return [
        *ARGS,
        "--headless",
        "--test-type",  # no infobar about the flags, which would shrink the page
        "--remote-debugging-address=127.0.0.1",
        f"--user-data-dir={profile}",
        f"--window-size={VIEWPORT['width']},{VIEWPORT['height'] + FRAME_PX}",
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
async def episode_chromium(executable: str, folder: Path) -> AsyncIterator[str]:
    """One Chromium for one episode; yields its CDP URL (an IP: Chromium refuses names)."""
    profile = Path(tempfile.mkdtemp(prefix="wpb-chromium-"))
    downloads = folder / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    (profile / "Default").mkdir()
    (profile / "Default" / "Preferences").write_text(chromium_preferences(str(downloads)))
    log = (folder / "chromium.log").open("ab")
    process = await asyncio.create_subprocess_exec(
        executable,
        *chromium_flags(str(profile)),
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


class AgentHarness:
    """A harness whose agent is a program: `python -m runner.agents.NAME` from the
    environment of the same name, or the `external` harness's `--agent-cmd`."""

    needs_browser = False  # it launches a Chromium of its own per episode

    def __init__(self, name: str) -> None:
        self.name = name

    def command(self, episode: Episode) -> tuple[list[str], dict[str, str]]:
        if self.name == "external":
            if not episode.agent.command:
                raise ValueError("external: --agent-cmd is required")
            return shlex.split(episode.agent.command), dict(QUIET)
        environment = ENVIRONMENTS[self.name]
        home = runner_home()
        return environment.command(home), dict(environment.env)

    def agent_input(self, episode: Episode, cdp_url: str, folder: Path) -> dict[str, Any]:
        config = episode.agent
        return {
            "protocol": PROTOCOL,
            "task_id": episode.task_id,
            "prompt": episode.prompt,
            "start_url": episode.url,
            "cdp_url": cdp_url,
            "model": {
                "name": config.model or episode.model or "",
                "base_url": config.base_url,
                "api_key_env": config.api_key_env,
                "temperature": config.temperature,
            },
            "limits": {"max_steps": config.max_steps, "time_limit_s": episode.time_limit_s},
            "output_dir": str(folder),
            "viewport": dict(VIEWPORT),
            "locale": LOCALE,
            "timezone": TIMEZONE,
            "options": dict(config.options),
        }

    async def run(self, episode: Episode) -> Outcome:
        if episode.output_dir is None or episode.chromium is None:
            raise InfraError("the runner gave no output folder or Chromium for the episode")
        try:
            argv, extra_env = self.command(episode)
        except HarnessEnvError as exc:
            raise InfraError(str(exc)) from exc
        folder = episode.output_dir
        folder.mkdir(parents=True, exist_ok=True)
        async with episode_chromium(episode.chromium, folder) as cdp_url:
            spec = folder / "input.json"
            spec.write_text(
                json.dumps(self.agent_input(episode, cdp_url, folder), ensure_ascii=False, indent=1)
            )
            env = {
                # The stand's own settings (the admin token among them) stay with the runner.
                **{
                    k: v
                    for k, v in os.environ.items()
                    if not k.startswith("WPB_") or k == episode.agent.api_key_env
                },
                **extra_env,
                "PYTHONPATH": os.pathsep.join(
                    p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p
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
        return self.outcome(folder, agent.returncode, stopped, episode.agent.max_steps)

    async def watch(
        self, exited: Callable[[], Awaitable[bool]], episode: Episode, folder: Path
    ) -> str | None:
        """Wait until `exited()` (which waits up to POLL_S) says the agent ended; past the
        time or the step limit return which (the caller kills the agent)."""
        deadline = time.monotonic() + episode.time_limit_s
        steps_file = folder / "steps.jsonl"
        while not await exited():
            if time.monotonic() > deadline:
                return "timeout"
            if count_lines(steps_file) > episode.agent.max_steps:
                return "step_limit"
        return None

    def outcome(self, folder: Path, code: int | None, stopped: str | None, limit: int) -> Outcome:
        steps = count_lines(folder / "steps.jsonl")
        try:
            answer = json.loads((folder / "output.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            answer = None
        if stopped is not None:
            why = "the time limit" if stopped == "timeout" else f"the step limit ({limit})"
            return Outcome(
                completion=False,
                steps=steps,
                status=stopped,
                error=f"stopped by the runner at {why}",
                usage=(answer or {}).get("usage") or {},
            )
        if answer is None:
            return Outcome(
                completion=False,
                steps=steps,
                status="agent_error",
                error=f"the agent exited ({code}) without output.json; see agent.log",
            )
        error = answer.get("error") or None
        if error and error.get("kind") == "infra":
            raise InfraError(f"{self.name}: {error.get('message', '')}"[:1000])
        usage = answer.get("usage") or {}
        completion = bool(answer.get("completion"))
        steps = int(answer.get("steps") or steps)
        status, message = "ok", None
        if error:
            status, message = "agent_error", str(error.get("message", ""))[:2000]
        elif not completion and steps >= limit:
            status, message = "step_limit", f"the agent stopped at the step limit ({limit})"
        return Outcome(
            completion=completion,
            final_message=str(answer.get("final_message") or ""),
            steps=steps,
            usage=usage,
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


def external() -> AgentHarness:
    return AgentHarness("external")
