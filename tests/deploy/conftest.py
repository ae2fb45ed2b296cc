"""The compose stand for tests/deploy: one per module, with the compose profiles the module
names in COMPOSE_PROFILES (none unless it does)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers import Stand, compose_stand


@pytest.fixture(scope="module")
def stand(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stand]:
    profiles = tuple(getattr(request.module, "COMPOSE_PROFILES", ()))
    with compose_stand(tmp_path_factory.mktemp("wpb-compose"), profiles) as started:
        yield started
