"""The stand a BrowserGym episode runs on, read from the environment, and the few calls of
its trajectory API (docs/api.md) that an episode makes, over the standard library:

- `WPB_HUB_URL`: the hub (default `http://127.0.0.1:8000`);
- `WPB_ADMIN_TOKEN`: the admin token, else the file `$WPB_HOME/admin-token` that `runner up`
  writes (`WPB_HOME` defaults to `./.wpb`);
- `WPB_TASKS_DIR`: the task files whose names are registered (default: the `tasks/` folder of
  the checkout this package was installed from);
- `WPB_CHROMIUM`: the Chromium binary BrowserGym launches (default: Playwright's own build,
  else `/usr/bin/chromium`).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

DEFAULT_HUB = "http://127.0.0.1:8000"
SYSTEM_CHROMIUM = Path("/usr/bin/chromium")
# The checkout's task files, for a package installed from it in place (`pip install -e`).
CHECKOUT_TASKS = Path(__file__).resolve().parents[3] / "tasks"


class StandError(RuntimeError):
    """The hub refused a call (`status` 4xx), failed it (5xx) or could not be reached (None)."""

    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(message)
        self.status = status


def tasks_dir() -> Path:
    configured = os.environ.get("WPB_TASKS_DIR")
    return Path(configured) if configured else CHECKOUT_TASKS


def task_names(folder: Path) -> list[str]:
    """The names of the task files under `folder` (file stems; names starting with `_` are
    not tasks), sorted; none when the folder does not exist."""
    return sorted({p.stem for p in folder.rglob("*.json") if not p.name.startswith("_")})


def chromium(bundled: str) -> str | None:
    """The Chromium to launch: `WPB_CHROMIUM`; else None (Playwright's own build, at
    `bundled`) where it is installed; else the system's where that exists."""
    configured = os.environ.get("WPB_CHROMIUM")
    if configured:
        return configured
    if Path(bundled).exists() or not SYSTEM_CHROMIUM.exists():
        return None
    return str(SYSTEM_CHROMIUM)


class Stand:
    """The hub's trajectory API with the admin token."""

    def __init__(self, url: str, token: str, timeout: float = 60) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    @classmethod
    def from_env(cls) -> Stand:
        token = os.environ.get("WPB_ADMIN_TOKEN")
        if not token:
            path = Path(os.environ.get("WPB_HOME", ".wpb")) / "admin-token"
            try:
                token = path.read_text().strip()
            except OSError:
                raise StandError(
                    None, f"no admin token: set WPB_ADMIN_TOKEN or run `runner up` ({path})"
                ) from None
        return cls(os.environ.get("WPB_HUB_URL", DEFAULT_HUB), token)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")[:500]
            raise StandError(exc.code, f"hub {method} {path}: {exc.code} {text}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise StandError(None, f"hub {self.url} unreachable: {exc}") from None

    def create(self, task_id: str) -> dict[str, Any]:
        """A new trajectory of the task file `task_id`: its `trajectory_id`, `url`, `prompt`."""
        return dict(self.call("POST", "/api/trajectories", {"task_id": task_id}))

    def check(self, tid: str) -> dict[str, Any]:
        """The verdict: `ems`, `passed`, `total` and each condition's."""
        return dict(self.call("GET", f"/api/trajectories/{tid}/check"))

    def close(
        self, tid: str, completion: bool, final_message: str, report_status: str | None = None
    ) -> dict[str, Any]:
        """Close the trajectory; with `report_status` the hub logs the agent's report first."""
        body = {
            "completion": completion,
            "final_message": final_message,
            "report_status": report_status,
        }
        return dict(self.call("POST", f"/api/trajectories/{tid}/close", body))
