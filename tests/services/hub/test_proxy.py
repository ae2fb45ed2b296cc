"""The hub's proxy against raw sites: one that drops a pooled connection, as uvicorn does
after an error it answered 500 (a GET is sent once more, a POST is not), and one that
answers with a length or in chunks of unknown length (both passed on whole)."""

from __future__ import annotations

import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import Response
from support.http import run_async

from services.hub.proxy import forward
from services.kit.upstream import UPSTREAM_ERRORS, upstream_client


@contextmanager
def raw_site(serve: Callable[[socket.socket], None]) -> Iterator[str]:
    """A site on a plain socket, `serve` given each connection (a thread each); its URL."""
    server = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()


@asynccontextmanager
async def through_the_hub(upstream: str) -> AsyncIterator[httpx.AsyncClient]:
    """An agent's client of a hub whose every path is `forward`ed to `upstream` with the
    services' pooled client (502 where the site cannot be reached)."""
    async with upstream_client("a-service-credential") as pool:
        hub = FastAPI()

        @hub.api_route("/{path:path}", methods=["GET", "POST"])
        async def relay(request: Request) -> Response:
            try:
                return await forward(pool, request, upstream)
            except UPSTREAM_ERRORS:
                return Response("unreachable", 502)

        transport = httpx.ASGITransport(app=hub)
        async with httpx.AsyncClient(transport=transport, base_url="http://hub") as agent:
            yield agent


@pytest.fixture
def dropping_site() -> Iterator[tuple[str, list[str]]]:
    """A site that answers the first request of each connection and closes the connection
    on the second without answering; its URL and the request lines it answered."""
    answered: list[str] = []

    def serve(connection: socket.socket) -> None:
        with connection:
            for number in (1, 2):
                request = b""
                while b"\r\n\r\n" not in request:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    request += chunk
                if number == 2:
                    return  # dropped, unanswered
                answered.append(request.split(b"\r\n")[0].decode())
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    with raw_site(serve) as url:
        yield url, answered


def test_a_dropped_pooled_connection_is_retried_for_get_only(
    dropping_site: tuple[str, list[str]],
) -> None:
    run_async(relay_through_the_proxy(*dropping_site))


async def relay_through_the_proxy(upstream: str, answered: list[str]) -> None:
    async with through_the_hub(upstream) as agent:
        assert (await agent.get("/a")).status_code == 200  # opens the pooled connection
        assert (await agent.get("/b")).status_code == 200  # dropped there, sent again
        assert (await agent.post("/c", content=b"x")).status_code == 502  # not resent
        assert [line.split()[:2] for line in answered] == [["GET", "/a"], ["GET", "/b"]]


@pytest.fixture
def keeping_site() -> Iterator[tuple[str, list[int]]]:
    """A site on kept-alive connections that answers `/chunked` in chunks of unknown total
    length and anything else with a length; its URL and, per connection, the requests it
    answered there."""
    per_connection: list[int] = []

    def serve(connection: socket.socket) -> None:
        per_connection.append(0)
        mine = len(per_connection) - 1
        with connection:
            pending = b""
            while True:
                while b"\r\n\r\n" not in pending:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    pending += chunk
                head, _, pending = pending.partition(b"\r\n\r\n")
                per_connection[mine] += 1
                if head.split()[1] == b"/chunked":
                    connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                    for part in (b"first ", b"second ", b"third"):
                        connection.sendall(b"%x\r\n%s\r\n" % (len(part), part))
                    connection.sendall(b"0\r\n\r\n")
                else:
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nwhole")

    with raw_site(serve) as url:
        yield url, per_connection


def test_answers_read_whole_or_streamed_pass_whole_and_free_the_connection(
    keeping_site: tuple[str, list[int]],
) -> None:
    run_async(relay_whole_and_streamed(*keeping_site))


async def relay_whole_and_streamed(upstream: str, per_connection: list[int]) -> None:
    async with through_the_hub(upstream) as agent:
        for path, body in [("/a", "whole"), ("/chunked", "first second third")] * 2:
            answer = await agent.get(path)
            assert (answer.status_code, answer.text) == (200, body)
    # each answer, read whole or streamed, gave its connection back to the pool
    assert per_connection == [4]
