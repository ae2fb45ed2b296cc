"""The `latency` perturbation on every site (services/core/perturb.py; docs/tasks.md,
"Perturbations"), as a middleware of the site's app, and the actions a page keys.

`slow`: every response of the trajectory's pages waits its seeded amount (SLOW_S) before
the site handles the request. `late_accept`: an action (a POST) is done at once, its
answer sent after its seeded amount (LATE_S), when the page (services/kit/static/latency.js)
already shows its control idle. The page's posts of its own events (`_events`) are never
held: the log keeps the time and order of what the person did.

Under either, the page keys each action (`?_action=<key>` on a form's POST, the same key
until its answer has come): a second click before the answer is the same action, answered
with the first one's answer, so the site changes its state and writes its event once.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs

from prometheus_client import Counter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.core import keys, perturb
from services.kit.trajectory import REVISION_HEADER, Trajectory

# What the perturbation added to the trajectories' answers, apart from the time the site
# took (`wpb_http_request_seconds` is measured inside this middleware): bench/suite.py
# takes it out of the oracle's time per task.
INJECTED = Counter(
    "wpb_latency_injected_seconds", "Seconds the latency perturbation held answers", ["service"]
)
ACTION = "_action"
ACTION_KEY = keys.EVENT_ID  # what a page's key looks like (32 hex digits)
Answer = list[Message]


class Actions:
    """The answers of the keyed actions of every trajectory, the latest `size` of them: a
    repeat of an action waits for its first request's answer and gets it. An answer of 5xx
    is not kept (the site did nothing lasting; asking again may succeed)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._answers: OrderedDict[tuple[str, str], asyncio.Future[Answer]] = OrderedDict()

    async def once(self, key: tuple[str, str], run: Callable[[Send], Awaitable[None]]) -> Answer:
        held = self._answers.get(key)
        if held is not None:
            return await asyncio.shield(held)
        held = asyncio.get_running_loop().create_future()
        self._answers[key] = held
        while len(self._answers) > self.size:
            self._answers.popitem(last=False)
        answer: Answer = []

        async def keep(message: Message) -> None:
            answer.append(message)

        try:
            await run(keep)
        except BaseException as exc:
            self._answers.pop(key, None)
            held.set_exception(exc)
            held.exception()  # retrieved: a repeat may never come
            raise
        if answer and answer[0].get("status", 500) >= 500:
            self._answers.pop(key, None)
        held.set_result(answer)
        return answer


class Latency:
    """Holds the responses of a trajectory whose `latency` is `slow` or `late_accept` (on
    this site, `domain`), and answers a repeated keyed action once."""

    def __init__(self, app: ASGIApp, domain: str) -> None:
        self.app = app
        self.domain = domain
        self.actions = Actions()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        trajectory = await self._trajectory(scope) if scope["type"] == "http" else None
        latency = trajectory.variant(self.domain, "latency") if trajectory else None
        if trajectory is None or latency not in ("slow", "late_accept"):
            await self.app(scope, receive, send)
            return
        if latency == "slow":
            await self._hold(perturb.seeded(trajectory.id, "slow", perturb.SLOW_S))
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        action = parse_qs(scope["query_string"].decode()).get(ACTION, [""])[0]
        if ACTION_KEY.fullmatch(action):
            key = (trajectory.id, action)
            answer = await self.actions.once(key, lambda keep: self.app(scope, receive, keep))
        else:
            answer = []

            async def keep(message: Message) -> None:
                answer.append(message)

            await self.app(scope, receive, keep)
        if latency == "late_accept":
            await self._hold(perturb.seeded(trajectory.id, "late_accept", perturb.LATE_S))
        for message in answer:
            await send(message)

    async def _hold(self, seconds: float) -> None:
        INJECTED.labels(self.domain).inc(seconds)
        await asyncio.sleep(seconds)

    async def _trajectory(self, scope: Scope) -> Trajectory | None:
        """The trajectory of a request to one of its pages of this site (`/t/{tid}/{domain}/
        …`, its `_events` aside); None for any other request, and where the trajectory
        cannot be read now (the site's own handler then answers why)."""
        parts = scope["path"].split("/")
        if len(parts) < 4 or parts[1] != "t" or parts[3] != self.domain or parts[4:] == ["_events"]:
            return None
        headers = dict(scope["headers"])
        try:
            at_least = keys.revision(headers.get(REVISION_HEADER.encode(), b"").decode() or None)
            cache = scope["app"].state.trajectories
            return await cache.get(parts[2], at_least)  # type: ignore[no-any-return]
        except Exception:  # a bad header, NATS away: the handler's own dependency refuses it
            return None
