"""What a run's manifest records of where it ran, beyond its settings (docs/results.md,
"Manifest"): the benchmark's commit and the runner's package versions. The harness's own
(its packages, the fonts its browser renders with, what its agent sees and does) each
harness tells: `AgentHarness.packages` and `rendered_fonts`, the docker backend's from its
images. Each is read from the thing itself (git, the venv or image, the browser), not from
what the code expects.
"""

from __future__ import annotations

import re
import subprocess
from importlib.metadata import PackageNotFoundError, version

from runner.environments import RUNNER_AGENT_PACKAGES
from runner.settings import REPO

PACKAGE = "webpagebench"


def package_version(package: str = PACKAGE) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def commit() -> str:
    """The checkout's commit (with `-dirty` while tracked files differ from it), or
    `webpagebench VERSION` when the runner does not run from a checkout."""

    def git(*args: str) -> subprocess.CompletedProcess[str] | None:
        try:
            return subprocess.run(
                ["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None

    head = git("rev-parse", "HEAD") if (REPO / ".git").exists() else None
    if head is None or head.returncode != 0:
        return f"{PACKAGE} {package_version()}"
    changed = git("status", "--porcelain", "--untracked-files=no")
    dirty = changed is None or changed.returncode != 0 or bool(changed.stdout.strip())
    return head.stdout.strip() + ("-dirty" if dirty else "")


def distribution(requirement: str) -> str:
    """A requirement's distribution name (`browser-use>=0.13` -> `browser-use`)."""
    return re.split(r"[\s<>=!~\[;@]", requirement, maxsplit=1)[0]


def runner_packages() -> dict[str, str]:
    """The versions of the runner's packages an agent on its interpreter imports."""
    names = [distribution(r) for r in RUNNER_AGENT_PACKAGES]
    return {name: package_version(name) for name in sorted(names)}
