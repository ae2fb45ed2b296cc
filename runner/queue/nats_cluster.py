"""`runner nats-cluster up --nodes 3`: the queue's NATS cluster on one host, for trying the
queue out (and the tests' and bench's cluster): N nats-server processes with routes between
them and JetStream, each with deploy/nats-cluster.conf and an environment of its own, the
client and route passwords kept under $WPB_HOME/nats-cluster/ (0600).

On several hosts, each node runs the same file with its own environment (docs/scaleout.md).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from runner.queue.queue import QUEUE_USER
from runner.settings import REPO, free_port, service_credential, write_private
from runner.stack.stack import nats_server_binary
from runner.wait import WaitTimeout, until

CONFIG = REPO / "deploy" / "nats-cluster.conf"
ROUTE_USER = "wpb-route"
START_S = 30.0


class ClusterError(RuntimeError):
    """The cluster did not start, or is not there."""


@dataclass
class Node:
    name: str
    port: int
    http_port: int
    route_port: int
    pid: int | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"


@dataclass
class NatsCluster:
    """N nodes on loopback under `folder` (their stores, logs, the state file)."""

    folder: Path
    nodes: list[Node] = field(default_factory=list)
    password: str = ""
    route_password: str = ""
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def state_file(self) -> Path:
        return self.folder / "cluster.json"

    @property
    def urls(self) -> str:
        """The client URLs, as `--queue` takes them."""
        return ",".join(node.url for node in self.nodes)

    def env(self) -> dict[str, str]:
        """What a worker or submitter of this cluster needs in its environment."""
        return {"WPB_QUEUE_USER": QUEUE_USER, "WPB_QUEUE_PASSWORD": self.password}

    def start(self, count: int = 3, store: Path | None = None) -> NatsCluster:
        """Start `count` nodes on free ports, JetStream's files under `store` (the folder's
        own by default); ready once every node answers /healthz with JetStream."""
        if count < 1:
            raise ClusterError("--nodes: at least 1")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.password = service_credential()
        self.route_password = service_credential()
        self.nodes = [
            Node(f"n{i}", free_port(), free_port(), free_port()) for i in range(1, count + 1)
        ]
        store = store or self.folder / "store"
        for node in self.nodes:
            self.start_node(node, store / node.name)
        self.wait_ready()
        write_private(
            self.state_file,
            json.dumps(
                {
                    "password": self.password,
                    "route_password": self.route_password,
                    "store": str(store),
                    "nodes": [node.__dict__ for node in self.nodes],
                }
            ),
        )
        return self

    def routes(self) -> str:
        return ",".join(
            f"nats-route://{ROUTE_USER}:{self.route_password}@127.0.0.1:{node.route_port}"
            for node in self.nodes
        )

    def start_node(self, node: Node, store: Path) -> None:
        """Start (or start again) one node with its own environment."""
        store.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "WPB_NATS_NAME": node.name,
            "WPB_NATS_HOST": "127.0.0.1",
            "WPB_NATS_PORT": str(node.port),
            "WPB_NATS_HTTP_PORT": str(node.http_port),
            "WPB_NATS_ROUTE_PORT": str(node.route_port),
            "WPB_NATS_STORE": str(store),
            "WPB_QUEUE_PASSWORD": self.password,
            "WPB_NATS_ROUTE_PASSWORD": self.route_password,
        }
        log = (self.folder / f"{node.name}.log").open("ab")
        process = subprocess.Popen(
            [nats_server_binary(), "-c", str(CONFIG), "--routes", self.routes()],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        node.pid = process.pid
        self.processes[node.name] = process

    def healthy(self, node: Node) -> bool:
        with contextlib.suppress(httpx.HTTPError):
            answer = httpx.get(f"http://127.0.0.1:{node.http_port}/healthz", timeout=2)
            return answer.status_code == 200
        return False

    def wait_ready(self, nodes: list[Node] | None = None) -> None:
        for node in nodes or self.nodes:
            try:
                until(functools.partial(self.healthy, node), START_S, f"{node.name} healthy")
            except WaitTimeout:
                raise ClusterError(
                    f"nats-server {node.name} did not become healthy in {START_S:.0f}s; "
                    f"see {self.folder / (node.name + '.log')}"
                ) from None

    def node(self, name: str) -> Node:
        return next(node for node in self.nodes if node.name == name)

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Signal one node's process (SIGKILL: it dies at once, as a host that fails)."""
        pid = self.node(name).pid
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        process = self.processes.get(name)
        if process is not None and sig == signal.SIGKILL:
            process.wait(10)

    def restart(self, name: str) -> None:
        store = Path(json.loads(self.state_file.read_text())["store"])
        node = self.node(name)
        self.start_node(node, store / name)
        self.wait_ready([node])

    def stop(self) -> None:
        """Stop every node (SIGTERM, then SIGKILL what did not end in 10 s)."""
        for node in self.nodes:
            if node.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(node.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for node in self.nodes:
            while node.pid is not None and alive(node.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if node.pid is not None and alive(node.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(node.pid, signal.SIGKILL)
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
        self.state_file.unlink(missing_ok=True)

    @classmethod
    def running(cls, folder: Path) -> NatsCluster | None:
        """The cluster `up` started under `folder`, where its state file is."""
        try:
            state = json.loads((folder / "cluster.json").read_text())
        except (OSError, ValueError):
            return None
        cluster = cls(folder, [Node(**node) for node in state["nodes"]])
        cluster.password = state["password"]
        cluster.route_password = state["route_password"]
        return cluster


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    return True
