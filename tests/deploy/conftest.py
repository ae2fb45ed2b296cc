"""The compose stand for tests/deploy: one per module, with the compose profiles the module
names in COMPOSE_PROFILES (none unless it does)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest
from support.compose import Stand, compose_stand

from runner.settings import REPO


@pytest.fixture(scope="session")
def docker_engine(processes: None) -> None:
    """A Docker engine and Compose: deploy/docker-engine.sh makes sure (root), else the test
    is skipped. Every test that uses it is marked `docker`."""
    if subprocess.run(["docker", "info"], capture_output=True).returncode == 0:
        return
    if os.geteuid() != 0:
        pytest.skip(
            "no Docker engine answers and starting one needs root (deploy/docker-engine.sh)"
        )
    subprocess.run([str(REPO / "deploy" / "docker-engine.sh")], check=True, timeout=600)


@pytest.fixture(scope="module")
def stand(
    docker_engine: None, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stand]:
    profiles = tuple(getattr(request.module, "COMPOSE_PROFILES", ()))
    with compose_stand(tmp_path_factory.mktemp("wpb-compose"), profiles) as started:
        yield started
