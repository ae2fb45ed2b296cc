"""One scripted BrowserGym episode of `grocery_showcase_tea`, run by the integration's venv
(test_env.py): `python episode.py solve|noop`. It prints one JSON line per step (reward,
terminated, the action's error, the verdict) and the trajectory's id.

`solve` acts through the real UI as an agent would, by bid from the AXTree: the «Продукты»
tab, the tea's «В корзину», then says it is done. `noop` says it is done at once.
"""

from __future__ import annotations

import json
import re
import sys

import browsergym_webpagebench  # noqa: F401  (registers browsergym/webpagebench.*)
import gymnasium as gym
from browsergym.utils.obs import flatten_axtree_to_str

TEA = "Чай чёрный «Крупяной ряд» в пакетиках"


def bid(obs: dict, role: str, name: str) -> str:
    """The bid of the first element of `role` whose accessible name is `name`."""
    tree = flatten_axtree_to_str(obs["axtree_object"])
    found = re.search(rf"^\s*\[([^\]]+)\] {role} {re.escape(repr(name))}", tree, re.MULTILINE)
    if not found:
        raise SystemExit(f"no {role} {name!r} on {obs['url']}:\n{tree[:4000]}")
    return found.group(1)


def main(mode: str) -> None:
    env = gym.make("browsergym/webpagebench.grocery_showcase_tea")
    try:
        obs, info = env.reset()
        print(json.dumps({"trajectory_id": info["task_info"]["trajectory_id"]}), flush=True)
        if mode == "solve":
            actions = [lambda o: f"click({bid(o, 'link', 'Продукты')!r})"]
            actions.append(lambda o: f"click({bid(o, 'button', f'В корзину: {TEA}')!r})")
        else:
            actions = []
        actions.append(lambda o: "send_msg_to_user('Готово')")
        for action in actions:
            obs, reward, terminated, _, info = env.step(action(obs))
            step = {"reward": reward, "terminated": terminated, "error": obs["last_action_error"]}
            print(json.dumps(step | {"verdict": info["task_info"].get("verdict")}), flush=True)
    finally:
        env.close()


if __name__ == "__main__":
    main(sys.argv[1])
