"""Which Chromium a launch gets (runner/stack/chromium.py): WPB_CHROMIUM when set, else
Playwright's download when present, else the system's: its headless shell for the runner's
own headless launches, the browser for a harness that starts its own."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from runner.stack import chromium


def installed(tmp_path: Path, monkeypatch, *names: str) -> SimpleNamespace:
    """A machine with these system binaries and no Playwright download; its `playwright`."""
    for name in names:
        (tmp_path / name).touch()
    monkeypatch.setattr(chromium, "HEADLESS_SHELL", str(tmp_path / "chromium-headless-shell"))
    monkeypatch.setattr(chromium, "SYSTEM_CHROMIUM", (str(tmp_path / "chromium"),))
    monkeypatch.delenv("WPB_CHROMIUM", raising=False)
    return SimpleNamespace(chromium=SimpleNamespace(executable_path=str(tmp_path / "none")))


def test_the_runner_launches_the_headless_shell_and_a_harness_gets_the_browser(
    tmp_path, monkeypatch
) -> None:
    playwright = installed(tmp_path, monkeypatch, "chromium", "chromium-headless-shell")
    assert chromium.chromium_path(playwright) == str(tmp_path / "chromium-headless-shell")
    assert chromium.executable(playwright) == str(tmp_path / "chromium")


def test_without_the_shell_both_get_the_browser(tmp_path, monkeypatch) -> None:
    playwright = installed(tmp_path, monkeypatch, "chromium")
    assert chromium.chromium_path(playwright) == str(tmp_path / "chromium")
    assert chromium.executable(playwright) == str(tmp_path / "chromium")


@pytest.mark.parametrize("shell", [True, False])
def test_wpb_chromium_is_every_launchs(tmp_path, monkeypatch, shell: bool) -> None:
    playwright = installed(tmp_path, monkeypatch, "chromium", "chromium-headless-shell")
    monkeypatch.setenv("WPB_CHROMIUM", "/opt/chromium/chrome")
    assert chromium.chromium_path(playwright, shell) == "/opt/chromium/chrome"


def test_playwrights_download_is_left_to_playwright(tmp_path, monkeypatch) -> None:
    playwright = installed(tmp_path, monkeypatch, "chromium", "chromium-headless-shell", "none")
    assert chromium.chromium_path(playwright) is None
    assert chromium.executable(playwright) == str(tmp_path / "none")
