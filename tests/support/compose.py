"""A compose stand (compose.yaml) for a test, under a project of its own (tests/deploy)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from runner.settings import REPO, free_port
from support.runs import runner


@dataclass
class Stand:
    """A compose stand (compose.yaml) under a project of its own, on a free port."""

    project: str
    env_file: Path
    home: Path
    hub_url: str
    env: dict[str, str]

    def compose(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        argv = ["docker", "compose", "-p", self.project, "--env-file", str(self.env_file)]
        done = subprocess.run(
            [*argv, *args], cwd=REPO, env=self.env, text=True, capture_output=True, timeout=timeout
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    def token(self) -> str:
        return (self.home / "admin-token").read_text().strip()

    def admin(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.hub_url, timeout=30, headers={"Authorization": f"Bearer {self.token()}"}
        )


def docker(*args: str) -> str:
    done = subprocess.run(["docker", *args], text=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@contextlib.contextmanager
def compose_stand(home: Path, profiles: tuple[str, ...] = ()) -> Iterator[Stand]:
    """Every image current (`make images`'s script: it builds nothing when `make images` has
    built this tree), then the compose stand with these profiles up under `home`,
    Prometheus's port free should a test start the `metrics` profile; `docker compose down
    -v` on the way out."""
    made = runner(home, "compose-env")
    assert made.returncode == 0, made.stdout + made.stderr
    port = free_port()
    env = {
        **os.environ,
        "WPB_HOME": str(home),
        "WPB_HUB_PORT": str(port),
        "WPB_PROMETHEUS_PORT": str(free_port()),
        "COMPOSE_PROFILES": ",".join(profiles),
        # The interpreter that lists the agent harnesses' images (deploy/agent-images.sh).
        "PYTHON": sys.executable,
    }
    stand = Stand(
        f"wpb-test-{os.getpid()}", home / "compose.env", home, f"http://127.0.0.1:{port}", env
    )
    subprocess.run(
        [str(REPO / "deploy" / "images.sh"), str(stand.env_file)], check=True, timeout=900, env=env
    )
    try:
        stand.compose("up", "-d", "--wait")
        yield stand
    finally:
        # The `metrics` profile too, which a test may have started.
        every = [flag for name in ("metrics", *profiles) for flag in ("--profile", name)]
        stand.compose(*every, "down", "-v")
