"""Where each agent harness runs: a venv of its own in the machine's cache
(`~/.cache/webpagebench/harnesses/NAME-KEY/`, KEY a digest of what it is made from), with the
Python it needs, or the runner's own interpreter for agents without pinned packages.

Every checkout on the machine shares the venv that its pins describe: a clean checkout finds
it ready, and changing a pin (or the Python it asks for, or an npm package) names a new
folder that is made once. What the checkout itself holds (an integration's package) is put on
the agent's PYTHONPATH, never installed, so that no venv points into one checkout.

`runner harness install NAME` makes the venv; `runner harness list` tells what is ready.
The versions a manifest records of the packages installed here (the benchmark's, the
runner's own for its agents) are read from the distributions (`package_version`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pydantic import Field

from runner.settings import REPO, cache_home, locked
from services.core.models.base import Boundary


class HarnessEnvError(RuntimeError):
    """An environment cannot be installed or is not ready."""


class Installed(Boundary):
    """What an environment's venv holds (`ready.json` beside it): the requirements it was
    made for, its Python and the versions of those packages."""

    requirements: list[str] = Field(default_factory=list)
    npm_packages: list[str] = Field(default_factory=list)
    python: str
    packages: dict[str, str] = Field(default_factory=dict)


@dataclass(frozen=True)
class Environment:
    name: str
    # The agent program: `python -m <module> INPUT.json`.
    module: str
    # Packages of its own venv; none means it runs on the runner's interpreter.
    requirements: tuple[str, ...] = ()
    # Installed after them without their dependencies: a package whose exact pins clash
    # with the framework's (`requirements` carry what it needs at run time).
    no_deps: tuple[str, ...] = ()
    min_python: tuple[int, int] = (3, 11)
    # Variables set for the agent process (telemetry off, no downloads).
    env: dict[str, str] = field(default_factory=dict)
    about: str = ""
    # What its agent sees of the page and how it acts on it (a run's manifest says both).
    observation: str = ""
    action: str = ""
    # The packages of its container image (`runner eval --backend docker`), when it has one:
    # its own venv's, or for an agent on the runner's interpreter the runner's it imports.
    image_packages: tuple[str, ...] = ()
    # Debian packages its image needs besides (openhands: a Chromium binary it looks for).
    image_debian_packages: tuple[str, ...] = ()
    # npm packages (pinned) installed into its folder's node_modules/, beside the venv.
    npm_packages: tuple[str, ...] = ()
    # Its framework launches its own Chromium (WPB_CHROMIUM): the runner launches none and
    # `cdp_url` is empty.
    own_browser: bool = False
    # Folders of this checkout (relative to it) on the agent's PYTHONPATH: packages of ours
    # that it imports, read from the checkout it runs from.
    paths: tuple[str, ...] = ()

    @property
    def image(self) -> str | None:
        """Its image's name (`make images` builds it), or None where it has none yet."""
        return f"wpb-agent-{self.name}" if self.image_packages else None

    @property
    def own_venv(self) -> bool:
        return bool(self.requirements)

    @property
    def packages(self) -> list[str]:
        """Everything its venv is made for, as `ready.json` records it."""
        return [*self.requirements, *self.no_deps]

    @property
    def key(self) -> str:
        """A digest of everything its venv is made from: another pin, Python floor or npm
        package is another venv."""
        made_of = [list(self.requirements), list(self.no_deps), list(self.npm_packages)]
        text = json.dumps([*made_of, list(self.min_python)])
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def folder(self) -> Path:
        return cache_home() / "harnesses" / f"{self.name}-{self.key}"

    def python(self) -> Path:
        if not self.own_venv:
            return Path(sys.executable)
        return self.folder() / "venv" / "bin" / "python"

    def marker(self) -> Path:
        return self.folder() / "ready.json"

    def state(self) -> Installed | None:
        """What was installed, when it matches today's requirements; None otherwise."""
        if not self.own_venv:
            return Installed(python=sys.version.split()[0])
        state = Installed.read_if(self.marker())
        if state is None or state.requirements != self.packages or not self.python().exists():
            return None
        if state.npm_packages != list(self.npm_packages):
            return None
        return state

    def command(self) -> list[str]:
        if self.state() is None:
            raise HarnessEnvError(
                f"harness {self.name!r} is not installed: run `runner harness install {self.name}`"
            )
        return [str(self.python()), "-m", self.module]

    def python_path(self) -> list[str]:
        """The checkout's folders the agent imports, for its PYTHONPATH."""
        return [str(REPO / path) for path in self.paths]

    def install(
        self, python: str | None = None, log: Callable[[str], None] = print, force: bool = False
    ) -> Installed:
        """Its venv, made unless it is ready (or `force`); another process installing the
        same one is waited for."""
        if not self.own_venv:
            return Installed(python=sys.version.split()[0])
        with locked(self.folder().with_suffix(".lock")):
            ready = None if force else self.state()
            return ready or self._make(python or find_python(self.min_python), log)

    def _make(self, interpreter: str, log: Callable[[str], None]) -> Installed:
        folder = self.folder()
        venv = folder / "venv"
        if venv.exists():
            shutil.rmtree(venv)
        folder.mkdir(parents=True, exist_ok=True)
        self.marker().unlink(missing_ok=True)
        log(f"{self.name}: venv with {interpreter}")
        _run([interpreter, "-m", "venv", str(venv)])
        pip = [str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check"]
        _run([*pip, "install", "--quiet", "--upgrade", "pip"])
        log(f"{self.name}: pip install {' '.join(self.requirements)}")
        _run([*pip, "install", "--quiet", *self.requirements])
        if self.no_deps:
            log(f"{self.name}: pip install --no-deps {' '.join(self.no_deps)}")
            _run([*pip, "install", "--quiet", "--no-deps", *self.no_deps])
        npm_versions = self._install_npm(folder, log)
        listed = subprocess.run(
            [*pip, "list", "--format", "json"], capture_output=True, text=True, check=True
        )
        packages = {p["name"].lower(): p["version"] for p in json.loads(listed.stdout)}
        version = subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import platform; print(platform.python_version())",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        state = Installed(
            requirements=self.packages,
            npm_packages=list(self.npm_packages),
            python=version,
            packages={
                **{
                    name: packages[name]
                    for name in (re.split(r"[<>=!~]", r)[0] for r in self.packages)
                    if name in packages
                },
                **npm_versions,
            },
        )
        state.write(self.marker())
        return state

    def _install_npm(self, folder: Path, log: Callable[[str], None]) -> dict[str, str]:
        """`npm install --prefix FOLDER` of its npm packages, exactly those versions; the
        installed versions by name."""
        if not self.npm_packages:
            return {}
        npm = shutil.which("npm")
        if npm is None:
            raise HarnessEnvError(f"{self.name} needs npm (Node.js) for {self.npm_packages}")
        shutil.rmtree(folder / "node_modules", ignore_errors=True)
        log(f"{self.name}: npm install {' '.join(self.npm_packages)}")
        _run(
            [
                npm,
                "install",
                "--prefix",
                str(folder),
                "--save-exact",
                "--no-audit",
                "--no-fund",
                *self.npm_packages,
            ]
        )
        modules = folder / "node_modules"
        names = [p.rsplit("@", 1)[0] for p in self.npm_packages]
        return {n: json.loads((modules / n / "package.json").read_text())["version"] for n in names}


QUIET = {
    "ANONYMIZED_TELEMETRY": "false",
    "BROWSER_USE_SETUP_LOGGING": "false",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "OPENHANDS_SUPPRESS_BANNER": "1",
    "PYTHONUNBUFFERED": "1",
}
BROWSER_USE = ("browser-use>=0.13,<0.14",)
OPENHANDS = ("openhands-sdk>=1.58,<1.59", "openhands-tools>=1.58,<1.59")
DEEPAGENTS = (
    "deepagents>=0.7.32,<0.8",
    "langchain-openai>=1.7,<2",
    "langchain-mcp-adapters>=0.3,<0.4",
)
PLAYWRIGHT_MCP = ("@playwright/mcp@0.0.83",)
# The benchmark's own distribution (a manifest records its version).
PACKAGE = "webpagebench"
# What the `dom` and `gui` agents import beyond the standard library (pyproject's versions):
# pydantic for the protocol's models.
RUNNER_AGENT_PACKAGES = ("playwright>=1.45", "httpx>=0.27", "pydantic>=2.7")
# OpenManus's `app` package (its prompts, read at run time) declares no dependencies.
OPENMANUS = (*BROWSER_USE, "openmanus==0.1.0")
# Hermes Agent pins openai 2.24 and pydantic 2.13.4, browser-use openai >= 2.26 and
# pydantic 2.13.5: Hermes goes in without its pins, with what its agent loop imports that
# browser-use does not bring (its own versions).
HERMES = (*BROWSER_USE, "pyyaml==6.0.3", "jinja2==3.1.6")
HERMES_AGENT = ("hermes-agent==0.19.0",)
# BrowserGym and what AgentLab's generic agent imports (this repository's integration,
# integrations/browsergym, comes from the checkout on PYTHONPATH: its tasks are the
# checkout's); agentlab itself comes without its dependencies (torch, ray, gradio: its study
# launcher and viewers).
AGENTLAB = (
    "browsergym-core==0.14.3",
    "browsergym-experiments==0.14.3",
    "openai>=1.7,<2",
    "anthropic>=0.62",
    "litellm>=1.75.3",
    "pandas>=2",
    "pyyaml>=6",
)

ENVIRONMENTS: dict[str, Environment] = {
    env.name: env
    for env in (
        Environment(
            "browser-use",
            "runner.agents.browser_use_agent",
            BROWSER_USE,
            observation="the DOM's indexed elements (and a screenshot with use_vision)",
            action="browser-use actions on element indices",
            env=QUIET,
            about="browser-use's Agent attached over CDP; DOM state with indexed elements",
            image_packages=BROWSER_USE,
        ),
        Environment(
            "openhands",
            "runner.agents.openhands_agent",
            OPENHANDS,
            observation="the page's content as OpenHands' browser tools return it",
            action="OpenHands browser tools",
            min_python=(3, 12),
            env=QUIET,
            about="the OpenHands SDK agent with its browser tool set over CDP",
            image_packages=OPENHANDS,
            # Its browser tools refuse to start without a local Chromium, even over CDP.
            image_debian_packages=("chromium",),
        ),
        Environment(
            "dom",
            "runner.agents.dom_agent",
            observation="the accessibility tree with element references",
            action="tool calls on element references",
            env=QUIET,
            about="our compact agent over the accessibility tree, tool calls",
            image_packages=RUNNER_AGENT_PACKAGES,
        ),
        Environment(
            "gui",
            "runner.agents.gui_agent",
            observation="a screenshot only",
            action="mouse and keyboard at screen coordinates (the family's format)",
            env=QUIET,
            about="screenshot-only agent; --family uitars|qwen3vl|opencua|fara|evocua|jedi",
            image_packages=RUNNER_AGENT_PACKAGES,
        ),
        Environment(
            "openmanus",
            "runner.agents.openmanus_agent",
            OPENMANUS,
            observation="the DOM's indexed elements (and a screenshot with use_vision)",
            action="browser-use actions on element indices",
            min_python=(3, 12),
            env=QUIET,
            about="browser-use's Agent over CDP with OpenManus's system prompt",
        ),
        Environment(
            "hermes",
            "runner.agents.hermes_agent",
            HERMES,
            observation="the DOM's indexed elements (and a screenshot with use_vision)",
            action="a Hermes plan step, done by browser-use on element indices",
            no_deps=HERMES_AGENT,
            env=QUIET,
            about="Hermes Agent plans, browser-use executes each step over CDP",
        ),
        Environment(
            "deepagents",
            "runner.agents.deepagents_agent",
            DEEPAGENTS,
            observation="ARIA snapshots of Playwright's MCP server",
            action="MCP tool calls on snapshot references",
            env=QUIET,
            about="LangChain's deepagents with Playwright's MCP server over CDP; ARIA snapshots",
            npm_packages=PLAYWRIGHT_MCP,
        ),
        Environment(
            "agentlab",
            "runner.agents.agentlab_agent",
            AGENTLAB,
            observation="BrowserGym's accessibility tree with bids",
            action="BrowserGym actions on bids",
            env=QUIET,
            about="AgentLab's generic agent in BrowserGym's env (browsergym_webpagebench)",
            no_deps=("agentlab==0.4.2",),
            own_browser=True,
            paths=("integrations/browsergym",),
        ),
    )
}


def find_python(minimum: tuple[int, int]) -> str:
    """An interpreter at least `minimum` that runs: WPB_HARNESS_PYTHON, the runner's own,
    python3.X on PATH, else the oldest of pyenv's that is new enough."""
    candidates = [os.environ.get("WPB_HARNESS_PYTHON"), sys.executable]
    candidates += [shutil.which(f"python3.{minor}") for minor in range(minimum[1], 20)]
    if shutil.which("pyenv"):
        listed = subprocess.run(
            ["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False
        ).stdout.split()
        for version in sorted(listed, key=_version_key):
            prefix = subprocess.run(
                ["pyenv", "prefix", version], capture_output=True, text=True, check=False
            ).stdout.strip()
            candidates.append(str(Path(prefix) / "bin" / "python") if prefix else None)
    for candidate in candidates:
        if candidate and _python_version(candidate) >= minimum:
            return candidate
    raise HarnessEnvError(
        f"no Python >= {minimum[0]}.{minimum[1]} found (PATH, pyenv); "
        "set WPB_HARNESS_PYTHON or use --python"
    )


def _python_version(path: str) -> tuple[int, ...]:
    """The version an interpreter reports (a pyenv shim of an inactive version fails)."""
    try:
        done = subprocess.run(
            [path, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return (0,)
    return tuple(int(n) for n in done.stdout.split()) if done.returncode == 0 else (0,)


def _version_key(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split("."))
    except ValueError:
        return (0,)


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        raise HarnessEnvError(
            f"{' '.join(argv[:4])}… failed ({done.returncode}):\n{done.stderr[-3000:]}"
        )


def package_version(package: str = PACKAGE) -> str:
    """An installed distribution's version, as a manifest records it; `unknown` without it."""
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def distribution(requirement: str) -> str:
    """A requirement's distribution name (`browser-use>=0.13` -> `browser-use`)."""
    return re.split(r"[\s<>=!~\[;@]", requirement, maxsplit=1)[0]


def runner_packages() -> dict[str, str]:
    """The versions of the runner's packages an agent on its interpreter imports."""
    names = [distribution(r) for r in RUNNER_AGENT_PACKAGES]
    return {name: package_version(name) for name in sorted(names)}
