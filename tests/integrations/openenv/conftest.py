"""The OpenEnv server on the shared test stack, for the modules here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from webpagebench_env.server.app import spawned

from runner.stack.stack import Stack


@pytest.fixture(scope="module")
def server(stack: Stack) -> Iterator[str]:
    with spawned(stack.hub_url, stack.token, "--sessions", "20", "--max-steps", "8") as url:
        yield url
