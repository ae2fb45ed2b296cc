"""A real embedded stack for a test: started and stopped, its admin client, its NATS, site
plug-ins installed as another package installs them, and what a healthy stand answers."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import nats
import pytest

from runner.settings import REPO, free_port
from runner.stack.stack import Stack
from runner.wait import until
from services.core.sites import ENTRY_POINT_GROUP, registry
from services.kit.bus import NATS_USER, TRAJECTORIES_BUCKET
from support.http import events_url, run_async

# The stand's frozen today in the test stack.
TODAY = "2026-11-29"


@contextlib.contextmanager
def running_stack(
    home: Path,
    sites: dict[str, str] | None = None,
    supervise: bool = False,
    hub_port: int | None = None,
) -> Iterator[Stack]:
    """A real stack (nats-server and every built site, or only `sites`) under `home`, on
    free ports (the hub on `hub_port` when given), with the stand's today frozen (and, with
    `supervise`, a dead service started again); stopped on the way out."""
    started = Stack(home, hub_port=hub_port or free_port(), today=TODAY, sites=sites)
    started.start(supervise=supervise)
    try:
        yield started
    finally:
        started.stop()


TESTS = REPO / "tests"


@contextlib.contextmanager
def plugins(folder: Path, group: str, entries: dict[str, str], name: str) -> Iterator[None]:
    """Plug-ins installed as another package installs them: a distribution `name` declaring
    `entries` (name -> "module:attribute") in the entry-point `group`, its `.dist-info`
    written into `folder` as the images' is (deploy/sites.py), `folder` on sys.path, and
    for the processes started meanwhile on PYTHONPATH with tests/ (where their code is)."""
    declared = "".join(
        f"{json.dumps(key)} = {json.dumps(value)}\n" for key, value in entries.items()
    )
    project = folder / "pyproject.toml"
    project.write_text(
        f'[project]\nname = "{name}"\nversion = "0"\n[project.entry-points."{group}"]\n{declared}'
    )
    script = REPO / "deploy" / "sites.py"
    subprocess.run([sys.executable, script, project, folder, group], check=True)
    path = os.pathsep.join(p for p in (str(folder), str(TESTS), os.environ.get("PYTHONPATH")) if p)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(folder))
        patch.setenv("PYTHONPATH", path)
        yield


@contextlib.contextmanager
def site_plugins(folder: Path, entries: dict[str, str]) -> Iterator[None]:
    """Site plug-ins (`webpagebench.sites`) installed as `plugins` installs them; the
    registry is read again on the way in and on the way out."""
    try:
        with plugins(folder, ENTRY_POINT_GROUP, entries, "wpbtestsites"):
            registry.cache_clear()
            yield
    finally:
        registry.cache_clear()


@contextlib.contextmanager
def admin_client(stack: Stack) -> Iterator[httpx.Client]:
    """The runner's view of a stack: its hub with the admin token."""
    with httpx.Client(
        base_url=stack.hub_url, timeout=30, headers={"Authorization": f"Bearer {stack.token}"}
    ) as client:
        yield client


def admin_requests(tid: str) -> list[tuple[str, str]]:
    """Every request of the admin API and the pages for people, for trajectory `tid`."""
    return [
        ("POST", "/api/trajectories"),
        ("GET", f"/api/trajectories/{tid}"),
        ("GET", f"/api/trajectories/{tid}/events"),
        ("GET", f"/api/trajectories/{tid}/check"),
        ("POST", "/api/check"),
        ("POST", f"/api/trajectories/{tid}/close"),
        ("GET", "/view/"),
        ("GET", "/view/board"),
        ("GET", "/view/compare?a=some-run&b=other-run"),
        ("GET", "/view/runs/some-run"),
        ("GET", f"/view/trajectories/{tid}"),
    ]


async def stand_nats(stack: Stack) -> nats.NATS:
    """A service's connection to the test stand's NATS."""
    url = f"nats://127.0.0.1:{stack.processes['nats'].port}"
    return await nats.connect(url, user=NATS_USER, password=stack.service_token)


async def _close_in_the_bucket(stack: Stack, tid: str) -> None:
    client = await stand_nats(stack)
    bucket = await client.jetstream().key_value(TRAJECTORIES_BUCKET)
    entry = await bucket.get(tid)
    assert entry.value is not None
    meta = {**json.loads(entry.value), "status": "closed"}
    await bucket.update(tid, json.dumps(meta).encode(), last=entry.revision)
    await client.close()


def serves_a_trajectory(stack: Stack) -> None:
    """Every service ready, and a new trajectory created, each site's first page served
    through the hub, a page event taken and its check answered."""
    with admin_client(stack) as hub:
        status = hub.get("/api/status")
        assert status.status_code == 200, status.text
        task = {
            "test_data": {
                "bench_first_domain": "grocery",
                "task": "На %HOST% открой «Продукты».",
                "conditions": [{"event_name": "state_changed"}],
            }
        }
        created = hub.post("/api/trajectories", json={"task": task})
        assert created.status_code == 201, created.text
        tid = created.json()["trajectory_id"]
        for domain in stack.sites:
            page = hub.get(f"/t/{tid}/{domain}/")
            assert page.status_code == 200, (domain, page.status_code)
        posted = hub.post(
            events_url(hub, f"/t/{tid}/grocery/"), json={"type": "click", "params": {}}
        )
        assert posted.status_code == 200, posted.text
        check = hub.get(f"/api/trajectories/{tid}/check")
        assert check.status_code == 200 and check.json()["ems"] == 1, check.text


def close_behind_the_hub(stack: Stack, tid: str) -> None:
    """Close a trajectory by writing its metadata straight to the bucket, as another hub
    replica would: the services learn of it only through their subscriptions."""
    run_async(_close_in_the_bucket(stack, tid))


def refused_soon(write: Callable[[], httpx.Response], timeout: float = 2) -> None:
    """Fails unless `write` answers 409 (its trajectory closed) within `timeout` seconds."""
    until(lambda: write().status_code == 409, timeout, "a closed trajectory refused", 0.01)


def stand_ready(hub: httpx.Client, timeout: float = 60) -> None:
    """Until the stand at `hub` says every service is ready."""
    until(lambda: hub.get("/api/status").status_code == 200, timeout, "the stand ready", 0.2)
