"""A lost NATS connection heals, or the service goes and is started again (issue 21).

- NATS stopped for longer than a service's first-connect window (60 attempts, ~15 s) and
  started again: every service serves again, none restarted by anyone.
- One service's connection runs through a TCP relay in front of the real nats-server, so the
  test can do to that connection what a server does: drop it (as a kick through the system
  account does: the client reconnects), send it a protocol error and close it (as the server
  did for a subject over its control-line limit: nats-py then closes the connection for good,
  and the service exits 75 for its supervisor to start it again), or stop answering on it
  (the service is up but cut off: the supervisor restarts it once its /ready has failed past
  the grace).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.runs import runner
from support.stand import admin_client, running_stack, serves_a_trajectory

from runner.stack.stack import Stack, probe_ready
from runner.wait import until
from services.kit.web import EXIT_NATS_CLOSED

OUTAGE_S = 20  # longer than a service's first connection waits for NATS (60 × 0.25 s)
GRACE_S = 3  # the supervisor's WPB_READY_GRACE_S in this module
SERVICE = "site-grocery"  # the one whose connection goes through the relay


class Relay:
    """A TCP relay from 127.0.0.1:`port` to nats-server: passes bytes both ways, and can
    drop every connection, end each with bytes of its own to the client, or swallow all
    traffic (connections stay open, nothing arrives)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.swallow = threading.Event()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self.pairs.append((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if not self.swallow.is_set():
                    sink.sendall(data)
        self._end(source, sink)

    @staticmethod
    def _end(*sockets: socket.socket) -> None:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def end_all(self, last_words: bytes = b"") -> int:
        """End every connection (after sending `last_words` to its client); how many."""
        with self._lock:
            pairs, self.pairs = self.pairs, []
        for client, upstream in pairs:
            with contextlib.suppress(OSError):
                client.sendall(last_words)
            self._end(client, upstream)
        return len(pairs)

    def close(self) -> None:
        self.listener.close()
        self.end_all()


def pid(stack: Stack, name: str) -> int | None:
    return stack.processes[name].pid


def status(stack: Stack) -> dict:
    with admin_client(stack) as hub:
        return hub.get("/api/status").json()  # type: ignore[no-any-return]


def test_every_service_serves_again_after_a_long_nats_outage(processes, tmp_path: Path) -> None:
    with running_stack(tmp_path / "outage") as stack:
        before = {name: pid(stack, name) for name in stack.processes if name != "nats"}
        stack.kill("nats")
        down = {}

        def all_disconnected() -> bool:
            down.update(status(stack)["services"])
            return all(not item["ready"] for item in down.values())

        lost = time.monotonic()
        until(all_disconnected, 30, "every service reports NATS lost")
        # Each names what it lost, the hub for itself too; so does `runner status`, and
        # `runner eval` refuses to start, naming them.
        assert "NATS" in down["site:grocery"]["error"], down
        assert "NATS" in down["hub"]["error"], down
        shown = runner(stack.home, "status")
        assert shown.returncode == 1, shown.stdout
        assert "site:grocery" in shown.stdout and "NATS reconnecting" in shown.stdout
        refused = runner(
            stack.home,
            "eval",
            "--harness",
            "noop",
            "--tasks",
            "grocery_nav_bakery",
            env={"WPB_READY_WAIT_S": "1"},
        )
        assert refused.returncode == 2, refused.stdout + refused.stderr
        said = " ".join(refused.stdout.split())  # as one line, however rich wrapped it
        assert "not ready within 1s" in said and "site:books: NATS reconnecting" in said
        assert not (stack.home / "runs").exists()
        time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - lost)))
        stack.spawn("nats")
        until(lambda: status(stack)["status"] == "ready", 60, "the stand ready again")
        assert {name: pid(stack, name) for name in before} == before  # nobody restarted
        serves_a_trajectory(stack)


@pytest.fixture(scope="module")
def relayed(
    processes: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Stack, Relay]]:
    """A supervised stack whose SERVICE reaches NATS through a Relay."""
    os.environ["WPB_READY_GRACE_S"] = str(GRACE_S)
    try:
        with running_stack(tmp_path_factory.mktemp("wpb-relay"), supervise=True) as stack:
            relay = Relay(stack.processes["nats"].port)
            stack.processes[SERVICE].env["WPB_NATS_URL"] = f"nats://127.0.0.1:{relay.port}"
            stack.restart(SERVICE)
            try:
                yield stack, relay
            finally:
                relay.close()
    finally:
        del os.environ["WPB_READY_GRACE_S"]


def service_ready(stack: Stack) -> bool:
    return probe_ready(stack.processes[SERVICE].url, timeout=1)


def log_of(stack: Stack, name: str) -> str:
    return (stack.home / "logs" / f"{name}.log").read_text(errors="replace")


def test_a_dropped_connection_reconnects(relayed: tuple[Stack, Relay]) -> None:
    stack, relay = relayed
    before, restarts = pid(stack, SERVICE), stack.processes[SERVICE].restarts
    assert relay.end_all() >= 1
    until(lambda: service_ready(stack), 30, f"{SERVICE} reconnected")
    assert pid(stack, SERVICE) == before
    assert stack.processes[SERVICE].restarts == restarts
    serves_a_trajectory(stack)


def test_a_connection_closed_for_good_exits_and_is_started_again(
    relayed: tuple[Stack, Relay],
) -> None:
    stack, relay = relayed
    before, restarts = pid(stack, SERVICE), stack.processes[SERVICE].restarts
    relay.end_all(b"-ERR 'maximum control line exceeded'\r\n")
    until(lambda: pid(stack, SERVICE) not in (before, None), 30, f"{SERVICE} started again")
    until(lambda: service_ready(stack), 30, f"{SERVICE} ready again")
    assert stack.processes[SERVICE].restarts == restarts + 1
    log = log_of(stack, SERVICE)
    assert f"exiting with {EXIT_NATS_CLOSED}" in log and "maximum control line" in log
    serves_a_trajectory(stack)


def test_a_service_cut_off_from_nats_is_restarted_past_the_grace(
    relayed: tuple[Stack, Relay], capfd: pytest.CaptureFixture[str]
) -> None:
    stack, relay = relayed
    before, restarts = pid(stack, SERVICE), stack.processes[SERVICE].restarts
    relay.swallow.set()  # nothing arrives: pings go unanswered, reconnects time out
    try:
        until(lambda: not service_ready(stack), 40, f"{SERVICE} notices")
        until(
            lambda: stack.processes[SERVICE].restarts > restarts,
            GRACE_S + 20,
            f"{SERVICE} restarted by the supervisor",
        )
        with admin_client(stack) as hub:
            item = hub.get("/api/status").json()["services"]["site:grocery"]
        assert not item["ready"] and item["error"], item
    finally:
        relay.swallow.clear()
    until(lambda: service_ready(stack), 60, f"{SERVICE} ready again")
    assert pid(stack, SERVICE) != before
    assert "has not been ready" in capfd.readouterr().out
    with httpx.Client(base_url=stack.hub_url) as agent:
        assert agent.get("/api/status").status_code == 200
    serves_a_trajectory(stack)
