"""The `runner` command as a user types it: up --detach, status, down, eval, and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import httpx
from support.runs import runner

from runner.settings import free_port
from runner.wait import until
from services.core.models.run import Summary


def test_up_status_eval_down(processes, tmp_path: Path) -> None:
    port = free_port()
    started = runner(tmp_path, "up", "--detach", port=port)
    assert started.returncode == 0, started.stderr + started.stdout
    assert f"http://127.0.0.1:{port}" in started.stdout
    token = tmp_path / "admin-token"
    assert token.stat().st_mode & 0o777 == 0o600
    try:
        status = runner(tmp_path, "status", port=port)
        assert status.returncode == 0 and "site:grocery" in status.stdout
        again = runner(tmp_path, "up", "--detach", port=port)
        assert again.returncode == 2 and "already running" in again.stdout
        noop = runner(
            tmp_path, "eval", "--harness", "noop", "--tasks", "grocery_nav_bakery", port=port
        )
        assert noop.returncode == 0, noop.stdout + noop.stderr
        assert "grocery_nav_bakery" in noop.stdout and "EMS 0.000" in noop.stdout
        assert "Unmet conditions" in noop.stdout and "opened: " in noop.stdout
        assert len(list((tmp_path / "runs").iterdir())) == 1
        # --json: the run's summary alone on stdout, what it says meanwhile on stderr.
        as_json = runner(
            tmp_path,
            "eval",
            "--harness",
            "noop",
            "--tasks",
            "grocery_nav_bakery",
            "--json",
            port=port,
        )
        assert as_json.returncode == 0, as_json.stderr
        summary = Summary.model_validate_json(as_json.stdout)
        assert summary.overall.ems == 0 and summary.overall.tasks == 1
        assert "run directory" in as_json.stderr
    finally:
        down = runner(tmp_path, "down", port=port)
    assert down.returncode == 0 and "stopped" in down.stdout
    assert runner(tmp_path, "status", port=port).returncode == 2


def test_bad_arguments_fail_clearly(processes, tmp_path: Path) -> None:
    unknown = runner(tmp_path, "eval", "--harness", "nope")
    assert unknown.returncode == 2 and "unknown harness 'nope'" in unknown.stdout
    nothing = runner(tmp_path, "eval", "--harness", "noop", "--tasks", "zzz")
    assert nothing.returncode == 2 and "no task matches" in nothing.stdout
    workers = runner(tmp_path, "eval", "--harness", "noop", "--workers", "0")
    assert workers.returncode == 2
    docker = ("eval", "--backend", "docker", "--model", "m", "--base-url", "http://llm:8000/v1")
    no_hub = runner(tmp_path, *docker, "--harness", "dom")
    assert no_hub.returncode == 2 and "--hub, the compose stand's hub" in no_hub.stdout
    no_image = runner(
        tmp_path,
        *docker,
        *("--harness", "external", "--agent-cmd", "python my_agent.py"),
        *("--hub", "http://127.0.0.1:9"),
    )
    assert no_image.returncode == 2 and "not 'external'" in no_image.stdout


def test_detached_stack_is_supervised(processes, tmp_path: Path) -> None:
    """A service killed under `runner up --detach` comes back and is counted; `runner restart`
    restarts one; `runner down` stops the supervisor and every service."""
    port = free_port()
    started = runner(tmp_path, "up", "--detach", port=port)
    assert started.returncode == 0, started.stderr + started.stdout
    state_file = tmp_path / "stack.json"
    state = json.loads(state_file.read_text())
    try:
        killed = state["processes"]["site-grocery"]["pid"]
        os.kill(killed, signal.SIGKILL)

        def started_again() -> tuple[dict, subprocess.CompletedProcess[str]] | None:
            now = json.loads(state_file.read_text())["processes"]["site-grocery"]
            status = runner(tmp_path, "status", port=port)
            return (now, status) if now["pid"] != killed and status.returncode == 0 else None

        now, status = until(started_again, 30, "site-grocery started again", every=0.5)
        assert now["restarts"] == 1
        line = next(x for x in status.stdout.splitlines() if x.startswith("site:grocery"))
        assert "ready" in line and "restarts 1" in line
        restarted = runner(tmp_path, "restart", "site-grocery", port=port)
        assert restarted.returncode == 0, restarted.stdout
        assert "2 restarts" in restarted.stdout
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        assert 'wpb_service_restarts_total{service="site-grocery"} 2.0' in metrics
        unknown = runner(tmp_path, "restart", "site-nope", port=port)
        assert unknown.returncode == 2 and "no service 'site-nope'" in unknown.stdout
        assert "site-grocery exited with -9" in (tmp_path / "logs" / "runner.log").read_text()
    finally:
        final = json.loads(state_file.read_text())
        down = runner(tmp_path, "down", port=port)
    assert down.returncode == 0 and "stopped" in down.stdout
    assert not state_file.exists()
    pids = [final["supervisor"], *(p["pid"] for p in final["processes"].values())]
    assert not [pid for pid in pids if running(pid)]


def running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its parent does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False
