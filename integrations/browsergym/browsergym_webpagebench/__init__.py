"""WebPageBench's tasks as BrowserGym environments (docs/harnesses.md, "BrowserGym").

Importing the package registers `browsergym/webpagebench.<task>` for every task file of the
suite (`WPB_TASKS_DIR`, else the `tasks/` folder of the checkout it was installed from):

    import gymnasium as gym
    import browsergym_webpagebench  # noqa: F401

    env = gym.make("browsergym/webpagebench.grocery_showcase_tea")
    obs, info = env.reset()
"""

from __future__ import annotations

from browsergym.core.registration import register_task

from browsergym_webpagebench.stand import Stand, StandError, task_names, tasks_dir
from browsergym_webpagebench.task import NAMESPACE, WebPageBenchTask

__all__ = ["NAMESPACE", "Stand", "StandError", "WebPageBenchTask", "task_names", "tasks_dir"]


def register_all() -> list[str]:
    """Register every task of the suite; the environment ids, without `browsergym/`."""
    ids = []
    for name in task_names(tasks_dir()):
        ids.append(f"{NAMESPACE}.{name}")
        register_task(ids[-1], WebPageBenchTask, task_kwargs={"task_id": name})
    return ids


ENV_IDS = register_all()
