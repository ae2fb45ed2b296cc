"""A WebPageBench task as a BrowserGym task (BrowserGym's `AbstractBrowserTask`).

Two ways to run it:

- on its own (`gym.make("browsergym/webpagebench.<task>")`): `setup` creates the trajectory
  on the stand (`Stand.from_env`: this process holds the admin token), `validate` calls
  check() after every step (reward = EMS, the verdict in the info), and `teardown` closes the
  trajectory with the agent's claim;
- on a trajectory the runner made (`task_kwargs={"start_url": …, "goal": …}`, the `agentlab`
  harness): it opens that address and holds no token; the runner closes and checks.

The episode is done once the agent has said it finished (`send_msg_to_user`) or that it
cannot (`report_infeasible`); the claim never changes the reward.
"""

from __future__ import annotations

from typing import Any

import browsergym.core
from browsergym.core.task import AbstractBrowserTask
from playwright.sync_api import Page

from browsergym_webpagebench.stand import Stand, chromium

NAMESPACE = "webpagebench"
# What the runner's Chromium renders with (runner/stack/chromium.py), so both ways in see one page.
VIEWPORT = {"width": 1280, "height": 800}
LOCALE = "ru-RU"
TIMEZONE = "Europe/Moscow"


def claim(chat_messages: list[dict[str, Any]]) -> tuple[bool, str] | None:
    """What the agent said at the end: (True, its message) after `send_msg_to_user`, (False,
    the reason) after `report_infeasible`; None while it has said neither. BrowserGym's own
    greeting, before the goal, is no claim."""
    said = None
    for index, message in enumerate(chat_messages):
        if message["role"] == "infeasible":
            said = (False, str(message["message"]))
        elif message["role"] == "assistant" and any(
            m["role"] == "user" for m in chat_messages[:index]
        ):
            said = (True, str(message["message"]))
    return said


def use_chromium() -> None:
    """Make every Chromium BrowserGym launches the one `chromium()` names, unless a launch
    names its own (`pw_chromium_kwargs`): the env's browser and its chat window's, which
    BrowserGym launches without those arguments."""
    playwright = browsergym.core._get_global_playwright()
    executable = chromium(playwright.chromium.executable_path)
    launch = playwright.chromium.launch
    if executable is None or getattr(launch, "wpb_chromium", None):
        return

    def launch_chromium(**options: Any) -> Any:
        return launch(**{"executable_path": executable, **options})

    launch_chromium.wpb_chromium = executable  # type: ignore[attr-defined]
    playwright.chromium.launch = launch_chromium


class WebPageBenchTask(AbstractBrowserTask):
    """One task file of the suite, `task_id`; on the runner's trajectory when given its
    `start_url` and `goal`."""

    @classmethod
    def get_task_id(cls) -> str:
        return NAMESPACE

    def __init__(
        self, seed: int, task_id: str, start_url: str | None = None, goal: str | None = None
    ) -> None:
        super().__init__(seed)
        self.task_id = task_id
        self.viewport = dict(VIEWPORT)
        self.locale = LOCALE
        self.timezone_id = TIMEZONE
        self.slow_mo = 0
        self.start_url = start_url
        self.goal = goal
        self.stand = None if start_url else Stand.from_env()
        self.trajectory_id: str | None = None
        self.said: tuple[bool, str] | None = None
        use_chromium()

    def setup(self, page: Page) -> tuple[str, dict[str, Any]]:
        info: dict[str, Any] = {"task_id": self.task_id}
        if self.stand is not None:
            created = self.stand.create(self.task_id)
            self.trajectory_id = created["trajectory_id"]
            self.start_url, self.goal = created["url"], created["prompt"]
            info |= {
                "trajectory_id": self.trajectory_id,
                "date_shift_days": created["date_shift_days"],
            }
        page.goto(str(self.start_url))
        return str(self.goal or ""), info | {"url": self.start_url}

    def validate(
        self, page: Page, chat_messages: list[dict[str, Any]]
    ) -> tuple[float, bool, str, dict[str, Any]]:
        self.said = claim(chat_messages)
        done = self.said is not None
        if self.stand is None or self.trajectory_id is None:
            return 0.0, done, "", {}
        verdict = self.stand.check(self.trajectory_id)
        return float(verdict["ems"]), done, "", {"verdict": verdict}

    def teardown(self) -> None:
        if self.stand is None or self.trajectory_id is None:
            return
        if self.said is None:
            self.stand.close(self.trajectory_id, False, "")
        else:  # send_msg_to_user: done; report_infeasible: infeasible
            completion, message = self.said
            report = "done" if completion else "infeasible"
            self.stand.close(self.trajectory_id, completion, message, report)
        self.trajectory_id = None
