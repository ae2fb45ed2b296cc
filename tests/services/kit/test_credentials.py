"""The compose stand's credentials (services/kit/credentials.py) and the settings that read
them from its volume (`WPB_SECRETS_DIR`)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from services.kit.credentials import NAMES, make
from services.kit.settings import HubSettings


def test_made_once_kept_after_and_the_environments_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WPB_SERVICE_TOKEN", raising=False)
    monkeypatch.delenv("WPB_ADMIN_TOKEN", raising=False)
    assert make(tmp_path) == list(NAMES)
    first = {name: (tmp_path / name).read_text() for name in NAMES}
    assert all(len(value) >= 32 for value in first.values())
    assert all(stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600 for name in NAMES)
    assert make(tmp_path) == []
    assert {name: (tmp_path / name).read_text() for name in NAMES} == first
    monkeypatch.setenv("WPB_ADMIN_TOKEN", "given-by-make-stand-0123456789")
    assert make(tmp_path) == ["wpb_admin_token"]
    assert (tmp_path / "wpb_admin_token").read_text() == "given-by-make-stand-0123456789"


def test_the_settings_read_the_volume_where_the_variable_is_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service's settings as compose starts it: the variable empty, the file there (its
    folder is WPB_SECRETS_DIR's, read when the settings module is imported)."""
    (tmp_path / "wpb_service_token").write_text("from-the-volume-0123456789")
    (tmp_path / "wpb_admin_token").write_text("admin-from-the-volume-0123456789")
    monkeypatch.setenv("WPB_SERVICE_TOKEN", "")
    monkeypatch.setenv("WPB_ADMIN_TOKEN", "")
    read = HubSettings(_secrets_dir=tmp_path)  # type: ignore[call-arg]
    assert (read.service_token, read.admin_token) == (
        "from-the-volume-0123456789",
        "admin-from-the-volume-0123456789",
    )
    monkeypatch.setenv("WPB_ADMIN_TOKEN", "from-the-environment-0123456789")
    assert HubSettings(_secrets_dir=tmp_path).admin_token == "from-the-environment-0123456789"  # type: ignore[call-arg]
