"""The runner's configuration: `WPB_*` variables like every service's, the checkout's paths,
the cache shared by every checkout on this machine, the ports on this machine and the
credentials kept under $WPB_HOME."""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import socket
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

REPO = Path(__file__).resolve().parent.parent
TASKS_DIR = REPO / "tasks"
# nats-server's configuration, the nats image's too: its one user's password is the
# service credential, read from WPB_SERVICE_TOKEN in nats-server's environment.
NATS_CONFIG = REPO / "deploy" / "nats.conf"


class RunnerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WPB_", env_file=".env", extra="ignore")

    home: Path = Path(".wpb")
    hub_port: int = 8000
    # The address agents are given; the hub's own address by default.
    public_url: str | None = None
    today: str | None = None
    admin_token: str | None = None
    # Which sites the embedded stack starts (comma-separated domains); all built ones if unset.
    stack_sites: str | None = None
    chromium: str | None = None
    # The runner's own metrics during `runner eval` (off when unset; the Prometheus configs
    # look for it at 9108) and the address they listen on.
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    # Liveness apart from readiness: the supervisor restarts a running service whose /ready
    # has failed for this many seconds while NATS answers (it is up, but cut off).
    ready_grace_s: float = 30.0
    # How long `runner eval` waits for a stand that is not ready, before the run and before
    # each attempt (then it refuses the run, or counts the attempt as infra_error).
    ready_wait_s: float = 120.0

    def today_date(self) -> date:
        return date.fromisoformat(self.today) if self.today else date.today()


def runner_home() -> Path:
    """$WPB_HOME, absolute: the runs, logs, stack file and credentials of this runner."""
    return RunnerSettings().home.resolve()


# -- the cache -------------------------------------------------------------------------


def cache_home() -> Path:
    """What every checkout on this machine may share, each entry keyed by what it is made
    from (`$WPB_CACHE`, else `~/.cache/webpagebench`): the harnesses' venvs, llama-server
    and its model."""
    base = os.environ.get("WPB_CACHE")
    if base:
        return Path(base)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "webpagebench"


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """One builder of a cache entry at a time (two test sessions, CI and a user): the others
    wait."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# -- ports -----------------------------------------------------------------------------


# Ports handed out by this process: never twice, even once the first taker has let go.
_HANDED: set[int] = set()
# Below the ephemeral range: where no listener's port is ever handed out by the kernel.
LOWEST_PORT = 10000


def ephemeral_ports() -> tuple[int, int]:
    """The range the kernel takes the local ports of outgoing connections from."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A port nothing listens on now, for a server started next. Outside the kernel's
    ephemeral range, so that no outgoing connection (thousands in an evaluation) takes it
    before the server binds, as one may take a port the kernel just gave for `bind(0)`;
    chosen at random, so that two test sessions on one machine rarely try the same; never
    one this process gave before."""
    low, _ = ephemeral_ports()
    while True:
        port = secrets.choice(range(LOWEST_PORT, max(low, LOWEST_PORT + 1000)))
        if port not in _HANDED and port_is_free(port):
            _HANDED.add(port)
            return port


def port_is_free(port: int) -> bool:
    """Whether a server could listen on the port now: nothing listens there. Bound as a
    server binds (uvicorn too), with SO_REUSEADDR, so that the connections of a run that
    just ended, left in TIME_WAIT for a minute, do not count."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


# -- credentials -----------------------------------------------------------------------


def admin_token(home: Path) -> str:
    """WPB_ADMIN_TOKEN, or the token kept in $WPB_HOME/admin-token (made on first use, 0600)."""
    configured = RunnerSettings().admin_token
    if configured:
        return configured
    path = home / "admin-token"
    if not path.exists():
        write_private(path, secrets.token_urlsafe(32))
    return path.read_text().strip()


def service_token_file(home: Path) -> Path:
    """Where the running stack keeps its service credential (0600, new at every start)."""
    return home / "service-token"


def service_credential() -> str:
    """A new service credential. nats-server reads it from its environment as a value of its
    configuration, where one that begins with `-`, or looks like a number, a size (`1k`) or
    a boolean, is not text: this one begins with letters."""
    return "wpb" + secrets.token_urlsafe(32)


def write_private(path: Path, text: str) -> None:
    """Write `text` to a file only its owner can read (0600), replacing what was there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
