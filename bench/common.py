"""What the benchmarks share: a fresh embedded stack, one HTTP session on its hub, and
percentile helpers."""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import aiohttp
from rich.console import Console
from rich.table import Table

from runner.hub import HubClient, Params
from runner.settings import free_port
from runner.stack.stack import Stack, built_sites

console = Console(width=120)


@contextmanager
def fresh_stack(sites: str | None = None) -> Iterator[Stack]:
    with tempfile.TemporaryDirectory(prefix="wpb-bench-") as home:
        stack = Stack(
            Path(home),
            hub_port=free_port(),
            today="2026-11-29",
            sites=None if sites is None else built_sites(sites),
        )
        stack.start()
        try:
            yield stack
        finally:
            stack.stop()


@dataclass
class Answer:
    """A response read whole: its status and its body."""

    status: int
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")

    def json(self) -> Any:
        return json.loads(self.body)

    def raise_for_status(self) -> None:
        if self.status >= 400:
            raise RuntimeError(f"answered {self.status}: {self.text[:300]}")


@dataclass
class Hub:
    """The generator's one session (paths are the hub's), and the trajectory API through it
    with the admin token (`api`, the runner's client over this session)."""

    session: aiohttp.ClientSession
    admin: dict[str, str]

    async def send(self, method: str, url: str, **options: Any) -> Answer:
        """One request, its body read whole. A redirect is not followed: a form post's 303
        is its answer, as the browser's next page is a step of its own in the trace."""
        request = self.session.request(method, url, allow_redirects=False, **options)
        async with request as response:
            return Answer(response.status, await response.read())

    @cached_property
    def api(self) -> HubClient:
        async def transport(
            method: str, path: str, body: bytes | None, params: Params | None
        ) -> tuple[int, bytes]:
            headers = self.admin | ({"Content-Type": "application/json"} if body else {})
            try:
                answer = await self.send(method, path, data=body, params=params, headers=headers)
            except aiohttp.ClientError as exc:
                raise ConnectionError(repr(exc)) from exc
            return answer.status, answer.body

        return HubClient(transport)


@asynccontextmanager
async def hub_session(stack: Stack, connections: int = 20) -> AsyncIterator[Hub]:
    """One aiohttp session on the stack's hub (httpx's pool costs milliseconds of CPU a
    request under concurrency: the benchmarks share the stand's cores). Idle connections are
    dropped before uvicorn's keep-alive timeout (5 s) can close one under a request about to
    be sent on it; no cookie jar (the stand sets cookies only for the results viewer)."""
    async with aiohttp.ClientSession(
        base_url=stack.hub_url,
        connector=aiohttp.TCPConnector(limit=connections, keepalive_timeout=2),
        timeout=aiohttp.ClientTimeout(total=60),
        cookie_jar=aiohttp.DummyCookieJar(),
    ) as session:
        yield Hub(session, {"Authorization": f"Bearer {stack.token}"})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary_ms(values: list[float]) -> tuple[str, str, str]:
    ms = [v * 1000 for v in values]
    return (f"{percentile(ms, 50):.2f}", f"{percentile(ms, 99):.2f}", f"{statistics.fmean(ms):.2f}")


def table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    out = Table(title=title)
    for column in columns:
        out.add_column(column)
    for row in rows:
        out.add_row(*row)
    console.print(out)
