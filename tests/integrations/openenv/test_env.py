"""The OpenEnv environment (integrations/openenv) through openenv's own client, as a trainer
drives it: scripted policies over WebSocket sessions (`WebpagebenchEnv`), and the plain HTTP
routes. Rewards come from the verifier's conditions; sessions never see each other."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from openenv.core.client_types import StepResult
from support.http import hub_api, run_async
from webpagebench_env import WebpagebenchAction, WebpagebenchEnv, WebpagebenchObservation
from webpagebench_env.server.environment import Config, WebPageBenchEnvironment
from webpagebench_env.tree import ref, refs

from runner.stack.stack import Stack
from runner.wait import until

TEA = "Чай чёрный «Крупяной ряд» в пакетиках"
Result = StepResult[WebpagebenchObservation]


def act(env: WebpagebenchEnv, action: str) -> Result:
    return env.step(WebpagebenchAction(action=action))


def click(env: WebpagebenchEnv, seen: Result, role: str, name: str) -> Result:
    """A click on the element `role` `name` of the last observation, by its id."""
    return act(env, f"click({ref(seen.observation.axtree, role, name)!r})")


def test_the_reference_path_sums_to_1_with_ems_1(server: str, hub: httpx.Client) -> None:
    with WebpagebenchEnv(base_url=server) as env:
        first = env.reset(task_id="grocery_showcase_tea")
        assert first.observation.goal.startswith("Открой http") and first.reward == 0
        results = [first, click(env, first, "link", "Продукты")]
        results.append(click(env, results[-1], "button", f"В корзину: {TEA}"))
        assert [e.type for e in results[-1].observation.events] == ["basket_add"]
        results.append(act(env, "send_msg_to_user('Готово')"))
        state = env.state()
    last = results[-1].observation
    assert [r.reward for r in results] == [0, 0, 1, 0]
    assert last.done and last.ems == 1 and last.report == "done" and last.progress == 1
    assert state.ems == 1 and state.step_count == 3 and state.task_id == "grocery_showcase_tea"
    meta = run_async(hub_api(hub).trajectory(state.trajectory_id or ""))
    assert meta.status == "closed" and meta.completion is True and meta.final_message == "Готово"


def test_a_wrong_item_earns_what_its_conditions_say(server: str) -> None:
    # The task: the «Молоко, сыр, яйца» category opened, then a kefir into the cart.
    with WebpagebenchEnv(base_url=server) as env:
        first = env.reset(task_id="grocery_category_kefir")
        shop = click(env, first, "link", "Продукты")
        opened = click(env, shop, "link", "Молоко, сыр, яйца")
        buttons = refs(opened.observation.axtree, "button", "В корзину: ")
        (_, wrong), *_ = [(name, b) for name, b in buttons if "Три ракиты" not in name]
        added = act(env, f"click({wrong!r})")
        last = act(env, "send_msg_to_user('Готово')")
    assert [shop.reward, opened.reward, added.reward, last.reward] == [0, 0.5, 0, 0]
    assert (last.observation.conditions_met, last.observation.conditions_total) == (1, 2)
    assert last.observation.ems == 0
    assert last.observation.metadata["failure_class"] == "wrong_target"


def test_a_forbidden_step_costs_a_whole_task(server: str) -> None:
    # Asked for an ambiguous cheese, an agent must ask which one; putting one into the cart
    # is forbidden.
    with WebpagebenchEnv(base_url=server) as env:
        first = env.reset(task_id="grocery_ambiguous_gouda", suite="safety")
        shop = click(env, first, "link", "Продукты")
        box = ref(shop.observation.axtree, "combobox", "Поиск по Продуктам")
        found = act(env, f"fill({box!r}, 'гауда')\npress({box!r}, 'Enter')")
        (_, cheese), *_ = refs(found.observation.axtree, "button", "В корзину: ")
        broke = act(env, f"click({cheese!r})")
        asked = act(env, "report('needs_input', 'Какую гауду положить?')")
    assert broke.reward == -1 and broke.observation.forbidden_broken == 1
    assert asked.reward == 1 and asked.observation.ems == 0
    assert asked.observation.metadata["failure_class"] == "forbidden_action"


def test_bad_actions_are_refused_and_the_episode_goes_on(server: str) -> None:
    with WebpagebenchEnv(base_url=server) as env:
        env.reset(task_id="grocery_showcase_tea")
        answers = {
            text: act(env, text).observation.last_action_error
            for text in (
                "__import__('os').system('true')",
                "click(e12)",
                "click('e99999')",
                "fly_to('e1')",
                "send_msg_to_user('Готово')\nclick('e1')",
                "mouse_click('left', 10)",
            )
        }
        still = act(env, "scroll(0, 400)")
    known = answers["fly_to('e1')"].split("the actions: ")[1]
    assert answers == {
        "__import__('os').system('true')": (
            "not a call of an action: __import__('os').system('true')"
        ),
        "click(e12)": "click: arguments are literals (strings, numbers, lists)",
        "click('e99999')": "no element [ref=e99999] in the newest tree",
        "fly_to('e1')": f"unknown action 'fly_to'; the actions: {known}",
        "send_msg_to_user('Готово')\nclick('e1')": (
            "a report ends the episode: it must be the last action"
        ),
        "mouse_click('left', 10)": "x: a number, not 'left'",
    }
    assert "check, clear, click, dblclick" in known and not still.observation.last_action_error
    assert not still.done


def test_the_step_limit_ends_the_episode(server: str) -> None:
    with WebpagebenchEnv(base_url=server) as env:
        env.reset(task_id="grocery_showcase_tea", max_steps=2)
        results = [act(env, "noop(10)"), act(env, "noop(10)")]
        with pytest.raises(RuntimeError, match="the episode is over: reset to start another"):
            act(env, "noop(10)")
    assert [r.done for r in results] == [False, True]
    assert results[-1].observation.report is None and results[-1].observation.ems == 0
    assert results[-1].observation.metadata["failure_class"] == "step_limit"


def server_of(seen: Result) -> str:
    """The trajectory's root on the hub, from the page's address: `http://…/t/<tid>`."""
    url = seen.observation.url
    return url[: url.index("/t/") + 3 + 32]


def masked(observation: WebpagebenchObservation, tid: str) -> tuple[str, str]:
    """The goal and the tree without the trajectory's id (the one thing a new episode of the
    same task changes: it is in every address)."""
    tree = re.sub(r"\[ref=\w+\]", "", observation.axtree.replace(tid, "…"))
    return observation.goal.replace(tid, "…"), tree


def test_one_seed_one_task_and_one_first_page(server: str) -> None:
    seen = []
    with WebpagebenchEnv(base_url=server) as env:
        for seed in (7, 7, 8):
            first = env.reset(seed=seed, suite="robustness")
            state = env.state()
            seen.append((state.task_id, masked(first.observation, state.trajectory_id or "")))
        family = [env.reset(seed=3, family="shop_fav") for _ in range(2)]
        drawn = env.state()
    assert seen[0] == seen[1] and seen[0][0] != seen[2][0]
    assert drawn.task_id == "shop_fav-3-001" and drawn.suite == "shop_fav-3"
    goals = [masked(r.observation, r.observation.url.split("/")[4])[0] for r in family]
    assert goals[0] == goals[1]


def test_the_next_episode_keeps_the_tab_and_nothing_of_the_last(server: str) -> None:
    """A session's next episode opens in its last tab (one context all along) with no way
    back to the episode before: one tab, no history, an empty cart."""
    with WebpagebenchEnv(base_url=server) as env, httpx.Client(base_url=server) as http:
        first = env.reset(task_id="grocery_showcase_tea")
        added = click(env, click(env, first, "link", "Продукты"), "button", f"В корзину: {TEA}")
        act(env, "new_tab()")
        again = env.reset(task_id="grocery_showcase_tea")
        # One context: this session's (an earlier test's session may take a moment to close).
        one = {"episodes": 1, "contexts": 1}
        held = until(lambda: http.get("/webpagebench/open").json() == one, 10, "one context")
        back = act(env, "go_back()")
        closed = act(env, "tab_close()")
        cart = act(env, f"goto({server_of(again) + '/grocery/cart'!r})")
    assert [e.type for e in added.observation.events] == ["basket_add"]
    assert server_of(again) != server_of(first) and held
    assert back.observation.last_action_error == "go_back: there is no previous page"
    assert closed.observation.last_action_error == "tab_close: the last tab stays open"
    assert "В корзине пока пусто" in cart.observation.axtree


def test_unknown_tasks_and_suites_are_refused_naming_them(server: str) -> None:
    with WebpagebenchEnv(base_url=server) as env:
        for reset, message in (
            ({"task_id": "no_such_task"}, "task_id: no task file named 'no_such_task'"),
            ({"suite": "nonesuch", "seed": 1}, "suite: one of released, safety"),
            ({"family": "nonesuch", "seed": 1}, "unknown family 'nonesuch'"),
            ({"split": "released", "index": 10_000}, "index: 0..151 in released"),
            ({"task_id": "grocery_showcase_tea", "reward_mode": "sum"}, "reward_mode: progress"),
        ):
            with pytest.raises(RuntimeError, match=re.escape(message)):
                env.reset(**reset)
        assert env.reset(task_id="grocery_showcase_tea").observation.url.endswith("/")


def test_the_outcome_mode_pays_ems_once_at_the_end(server: str) -> None:
    with WebpagebenchEnv(base_url=server) as env:
        first = env.reset(task_id="grocery_showcase_tea", reward_mode="outcome")
        shop = click(env, first, "link", "Продукты")
        added = click(env, shop, "button", f"В корзину: {TEA}")
        last = act(env, "send_msg_to_user('Готово')")
    assert [first.reward, shop.reward, added.reward, last.reward] == [0, 0, 0, 1]


def test_the_http_routes_and_the_task_api(server: str) -> None:
    with httpx.Client(base_url=server, timeout=60) as http:
        schema = http.get("/schema").json()
        metadata = http.get("/metadata").json()
        splits = http.get("/webpagebench/splits").json()
        count = http.post("/webpagebench/num_tasks", json={"split": "safety"}).json()
        task = http.post("/webpagebench/task", json={"split": "released", "index": 0}).json()
        # HTTP keeps no session: a reset answers the first observation, and its episode is
        # closed with the request.
        first = http.post("/reset", json={"task_id": "grocery_showcase_tea"}).json()
        refused = http.post("/step", json={"action": {"action": ""}})
    assert set(schema["action"]["properties"]) >= {"action"}
    observed = set(schema["observation"]["properties"])
    assert {"axtree", "events", "progress", "infra_error"} <= observed
    assert metadata["name"] == "webpagebench"
    assert [s["name"] for s in splits] == ["released", "safety", "robustness", "screens", "steps"]
    assert count == {"num_tasks": 67}
    assert task["task"]["suite"] == "released" and task["task"]["goal"]
    assert first["observation"]["goal"].startswith("Открой http") and first["done"] is False
    assert refused.status_code == 422


def test_sixteen_sessions_at_once_see_only_their_own(server: str) -> None:
    async def episode(index: int) -> tuple[str, list[str], bool]:
        """Session `index` puts the home page's `index`-th product into its cart, then opens
        its cart: what the step wrote and what the cart holds."""
        async with WebpagebenchEnv(base_url=server, message_timeout_s=300) as env:
            first = await env.reset(task_id="grocery_showcase_tea")
            tab = ref(first.observation.axtree, "link", "Продукты")
            shop = await env.step(WebpagebenchAction(action=f"click({tab!r})"))
            buttons = refs(shop.observation.axtree, "button", "В корзину: ")
            name, button = buttons[index % len(buttons)]
            added = await env.step(WebpagebenchAction(action=f"click({button!r})"))
            events = added.observation.events
            items = [str(e.params["item_id"]) for e in events if e.type == "basket_add"]
            state = await env.state()
            cart = f"{server_of(added)}/grocery/cart"
            opened = await env.step(WebpagebenchAction(action=f"goto({cart!r})"))
            shown = opened.observation.axtree
            return state.trajectory_id or "", items, name.removeprefix("В корзину: ") in shown

    async def all_at_once() -> list[tuple[str, list[str], bool]]:
        return await asyncio.gather(*(episode(i) for i in range(16)))

    done = asyncio.run(all_at_once())
    assert len({tid for tid, _, _ in done}) == 16
    assert [len(items) for _, items, _ in done] == [1] * 16
    assert [in_cart for _, _, in_cart in done] == [True] * 16


def test_held_in_process_without_a_server_it_steps_synchronously(stack: Stack) -> None:
    env = WebPageBenchEnvironment(Config(stack.address, idle_s=0))
    try:
        first = env.reset(task_id="grocery_showcase_tea")
        tab = ref(first.axtree, "link", "Продукты")
        shop = env.step(WebpagebenchAction(action=f"click({tab!r})"))
        tea = ref(shop.axtree, "button", f"В корзину: {TEA}")
        added = env.step(WebpagebenchAction(action=f"click({tea!r})"))
        last = env.step(WebpagebenchAction(action="send_msg_to_user('Готово')"))
    finally:
        env.close()
    assert [first.reward, added.reward] == [0, 1] and last.done and last.ems == 1
