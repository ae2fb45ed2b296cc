"""The OpenEnv environment when the stand fails an episode, and when a trainer leaves one: a
site killed mid-episode ends it with `infra_error` and no reward (never a 0 that a trainer
would learn from), and a session left idle is closed, its trajectory with it. On a stack of
this module's own."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from support.http import hub_api, run_async
from webpagebench_env import WebpagebenchAction, WebpagebenchEnv
from webpagebench_env.server.app import spawned
from webpagebench_env.tree import ref

from runner.stack.stack import Stack


@pytest.fixture(scope="module")
def idle_server(own_stack: Stack) -> Iterator[str]:
    with spawned(own_stack.hub_url, own_stack.token, "--idle", "2") as url:
        yield url


def test_a_site_killed_mid_episode_ends_it_with_no_reward(
    idle_server: str, own_stack: Stack, own_hub: httpx.Client
) -> None:
    with WebpagebenchEnv(base_url=idle_server) as env:
        first = env.reset(task_id="grocery_showcase_tea")
        tab = ref(first.observation.axtree, "link", "Продукты")
        shop = env.step(WebpagebenchAction(action=f"click({tab!r})"))
        own_stack.kill("site-grocery")
        try:
            cart = ref(shop.observation.axtree, "link", "Корзина 0")
            failed = env.step(WebpagebenchAction(action=f"click({cart!r})"))
        finally:
            own_stack.restart("site-grocery")
        state = env.state()
    assert failed.done and failed.reward is None
    assert failed.observation.infra_error == "the site grocery answered 503"
    assert failed.observation.metadata["infra_error"] == failed.observation.infra_error
    assert state.infra_error == failed.observation.infra_error
    meta = run_async(hub_api(own_hub).trajectory(state.trajectory_id or ""))
    assert meta.status == "closed" and meta.completion is False


def test_a_session_left_idle_is_closed_with_its_trajectory(
    idle_server: str, own_hub: httpx.Client
) -> None:
    with WebpagebenchEnv(base_url=idle_server) as env:
        env.reset(task_id="grocery_showcase_tea")
        tid = env.state().trajectory_id or ""
        time.sleep(4)
        with pytest.raises(RuntimeError, match="closed after it sat idle: reset to start"):
            env.step(WebpagebenchAction(action="noop(10)"))
        assert env.state().report == "gave_up"
        again = env.reset(task_id="grocery_showcase_tea")
    assert not again.done
    meta = run_async(hub_api(own_hub).trajectory(tid))
    assert meta.status == "closed" and meta.completion is False
