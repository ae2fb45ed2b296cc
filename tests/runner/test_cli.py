"""The `runner` command as a user types it: up --detach, status, down, eval, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import runner

from runner.stack import free_port

pytestmark = pytest.mark.slow


def test_up_status_eval_down(tmp_path: Path) -> None:
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
        assert len(list((tmp_path / "runs").iterdir())) == 1
    finally:
        down = runner(tmp_path, "down", port=port)
    assert down.returncode == 0 and "stopped" in down.stdout
    assert runner(tmp_path, "status", port=port).returncode == 2


def test_bad_arguments_fail_clearly(tmp_path: Path) -> None:
    unknown = runner(tmp_path, "eval", "--harness", "nope")
    assert unknown.returncode == 2 and "unknown harness 'nope'" in unknown.stdout
    nothing = runner(tmp_path, "eval", "--harness", "noop", "--tasks", "zzz")
    assert nothing.returncode == 2 and "no task matches" in nothing.stdout
    workers = runner(tmp_path, "eval", "--harness", "noop", "--workers", "0")
    assert workers.returncode == 2
