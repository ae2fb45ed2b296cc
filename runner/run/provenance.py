"""What a run's manifest records of where it ran, beyond its settings (docs/results.md,
"Manifest"): the benchmark's commit; the versions of its packages and the runner's are read
from the installed distributions (runner/harnesses/environments.py `package_version`). The
harness's own (its packages, the fonts its browser renders with, what its agent sees and
does) each harness tells: `AgentHarness.packages` and `rendered_fonts`, the docker
backend's from its images. Each is read from the thing itself (git, the venv or image, the
browser), not from what the code expects.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import ipaddress
import subprocess
from urllib.parse import urlsplit

from runner.harnesses.environments import PACKAGE, package_version
from runner.settings import REPO


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


@functools.cache
def catalogs() -> str | None:
    """The sites' catalogs and files (`services/<site>/data/`, what the generators wrote):
    SHA-256 over each file's path and bytes, its first 16 hex digits; None where the
    runner has no copy of them."""
    files = sorted(p for p in (REPO / "services").glob("*/data/**/*") if p.is_file())
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def endpoint_kind(base_url: str | None) -> str:
    """Where the agent's model answered: `none` (no model), `local` (this machine or a
    private network's) or `remote`."""
    if not base_url:
        return "none"
    host = urlsplit(base_url).hostname or ""
    if host == "localhost" or "." not in host:  # a compose service's name
        return "local"
    with contextlib.suppress(ValueError):
        address = ipaddress.ip_address(host)
        return "local" if address.is_loopback or address.is_private else "remote"
    return "remote"
