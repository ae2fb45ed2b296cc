"""The one client of the hub's trajectory API (docs/api.md), for the runner, the benchmarks
and the tests: each call sends the request's model and reads the answer into its model
(`services/core/models/api.py`).

A transport sends one request and gives back the status and the body, or raises an
OSError (ConnectionError) or TimeoutError when the hub cannot be reached: httpx by
default; the benchmarks give their own (one aiohttp session for pages and API alike)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx

from runner.errors import InfraError
from services.core.models.api import (
    CloseTrajectory,
    CreatedTrajectory,
    Events,
    NewTrajectory,
    StandStatus,
    TrajectoryMeta,
    Verdict,
)
from services.core.models.base import Boundary, FileFormatError
from services.core.models.run import ReportStatus
from services.core.models.task import Task

Answer = TypeVar("Answer", bound=Boundary)
# What a transport raises when the hub cannot be reached, whatever its library.
TRANSPORT_ERRORS = (OSError, TimeoutError)
Params = dict[str, str | int]
# method, path, JSON body, query -> status, body
Transport = Callable[[str, str, bytes | None, Params | None], Awaitable[tuple[int, bytes]]]


class HubRefused(ValueError):
    """The hub refused the request (a 4xx): the request, not the stand, is wrong."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class HubFailed(InfraError):
    """The hub failed the request (a 5xx, `status`), or could not be reached (`status`
    None): the stand's failure, not the request's."""

    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        self.status = status


def httpx_transport(client: httpx.AsyncClient) -> Transport:
    async def send(
        method: str, path: str, body: bytes | None, params: Params | None
    ) -> tuple[int, bytes]:
        headers = {"content-type": "application/json"} if body is not None else None
        try:
            answer = await client.request(
                method, path, content=body, params=params, headers=headers
            )
        except httpx.TransportError as exc:
            raise ConnectionError(repr(exc)) from exc
        return answer.status_code, answer.content

    return send


@dataclass(frozen=True)
class HubAddress:
    """A stand's hub: where it answers and the admin token it takes."""

    url: str
    token: str

    def connect(self, timeout: float = 60) -> HubClient:
        return HubClient.connect(self.url, self.token, timeout)


class HubClient:
    """The trajectory API. A transport failure or a 5xx is HubFailed (the stand's); a 4xx
    is HubRefused, with the hub's message; an answer not in its model is HubFailed too."""

    def __init__(self, transport: Transport, close: Callable[[], Awaitable[None]] | None = None):
        self.transport = transport
        self._close = close

    @classmethod
    def connect(cls, url: str, token: str, timeout: float = 60) -> HubClient:
        client = httpx.AsyncClient(
            base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=timeout
        )
        return cls(httpx_transport(client), client.aclose)

    async def close(self) -> None:
        if self._close is not None:
            await self._close()

    async def __aenter__(self) -> HubClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def call(
        self,
        method: str,
        path: str,
        answer: type[Answer],
        body: Boundary | None = None,
        params: Params | None = None,
    ) -> Answer:
        content = body.model_dump_json(exclude_none=True).encode() if body is not None else None
        try:
            status, raw = await self.transport(method, path, content, params)
        except TRANSPORT_ERRORS as exc:
            raise HubFailed(None, f"hub unreachable: {exc!r}") from exc
        text = raw.decode("utf-8", "replace")
        if status >= 500:
            raise HubFailed(status, f"hub {method} {path}: {status} {text[:200]}")
        if status >= 400:
            raise HubRefused(status, f"hub {method} {path}: {status} {text[:500]}")
        try:
            return answer.parse(raw, f"hub {method} {path}")
        except FileFormatError as exc:
            raise HubFailed(status, str(exc)) from None

    async def create(
        self,
        task: Task | None = None,
        task_id: str | None = None,
        today: str | None = None,
        ui_variants: dict[str, str] | None = None,
    ) -> CreatedTrajectory:
        body = NewTrajectory(task=task, task_id=task_id, today=today, ui_variants=ui_variants)
        return await self.call("POST", "/api/trajectories", CreatedTrajectory, body)

    async def trajectory(self, tid: str) -> TrajectoryMeta:
        return await self.call("GET", f"/api/trajectories/{tid}", TrajectoryMeta)

    async def events(self, tid: str, after: int = 0, types: str | None = None) -> Events:
        params: Params = {"after": after} | ({"types": types} if types else {})
        return await self.call("GET", f"/api/trajectories/{tid}/events", Events, params=params)

    async def close_trajectory(
        self,
        tid: str,
        completion: bool,
        final_message: str = "",
        report_status: ReportStatus | None = None,
        left: list[str] | None = None,
    ) -> TrajectoryMeta:
        """Close the trajectory; the hub first logs each URL of `left` (`origin_left`, via
        the browser) and, with `report_status`, the agent's report (`agent_report`: that
        status, `final_message` its message)."""
        body = CloseTrajectory(
            completion=completion,
            final_message=final_message,
            report_status=report_status,
            left=left or [],
        )
        return await self.call("POST", f"/api/trajectories/{tid}/close", TrajectoryMeta, body)

    async def check(self, tid: str) -> Verdict:
        return await self.call("GET", f"/api/trajectories/{tid}/check", Verdict)

    async def status(self) -> StandStatus:
        """The stand's status, degraded (503) or not; InfraError when the hub is away."""
        try:
            status, raw = await self.transport("GET", "/api/status", None, None)
        except TRANSPORT_ERRORS as exc:
            raise HubFailed(None, f"unreachable ({type(exc).__name__})") from exc
        try:
            return StandStatus.parse(raw, f"hub /api/status ({status})")
        except FileFormatError as exc:
            raise HubFailed(status, str(exc)) from None
