"""A stand starts again right after a run (issue 21): the connections a run leaves in
TIME_WAIT on the hub's port do not make it busy; a port something listens on does, named.
The ports the stack picks for its services are never ones an outgoing connection may take."""

from __future__ import annotations

import socket
from pathlib import Path

from support.runs import runner
from support.stand import running_stack

from runner.settings import ephemeral_ports, free_port, port_is_free

CONNECTIONS = 2000


def test_a_free_port_is_outside_the_ephemeral_range_and_never_given_twice() -> None:
    low, high = ephemeral_ports()
    ports = [free_port() for _ in range(300)]
    assert len(set(ports)) == len(ports)
    assert all(p < low or p > high for p in ports)
    with socket.socket() as outgoing:  # what connect() takes is in the kernel's range
        outgoing.bind(("127.0.0.1", 0))
        assert low <= outgoing.getsockname()[1] <= high


def closed_by_the_server(port: int, count: int) -> None:
    """`count` requests that the hub answers and then closes (`Connection: close`): the
    hub's side of each stays in TIME_WAIT on `port` for a minute."""
    request = b"GET /alive HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    for _ in range(count):
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(request)
            while sock.recv(4096):
                pass


def time_wait_on(port: int) -> int:
    """Sockets in TIME_WAIT (state 06) whose local port is `port`, from /proc/net/tcp."""
    lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(
        1
        for line in lines
        if int(line.split()[1].rsplit(":", 1)[1], 16) == port and line.split()[3] == "06"
    )


def test_a_stand_starts_again_at_once_after_many_closed_connections(
    processes, tmp_path: Path
) -> None:
    port = free_port()
    with running_stack(tmp_path / "run", hub_port=port) as stack:
        closed_by_the_server(stack.hub_port, CONNECTIONS)
    assert time_wait_on(port) >= CONNECTIONS // 2
    assert port_is_free(port)
    with running_stack(tmp_path / "again", hub_port=port) as again:
        assert again.hub_port == port


def test_a_port_something_listens_on_is_refused_with_its_name(processes, tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        assert not port_is_free(port)
        done = runner(tmp_path, "up", "--detach", port=port)
    assert done.returncode != 0
    assert f"port {port} is busy" in done.stdout + done.stderr
