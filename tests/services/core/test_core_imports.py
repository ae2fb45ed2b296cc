"""The core apart from the framework (issue 22): importing every module of `services.core`
brings in no web framework and no broker client, so an outside tool can read task files,
match logs and build a board with nothing else installed."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import services.core

FRAMEWORK = ("fastapi", "starlette", "uvicorn", "nats", "aiohttp", "httpx", "prometheus_client")


def test_the_core_imports_no_framework_and_no_broker(processes) -> None:
    modules = [
        info.name for info in pkgutil.walk_packages(services.core.__path__, "services.core.")
    ]
    assert {"services.core.tasks", "services.core.matching", "services.core.results.board"} <= set(
        modules
    )
    program = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stdout)
    pulled = sorted(m for m in loaded if m.split(".")[0] in FRAMEWORK)
    assert pulled == [], pulled
    assert not [m for m in loaded if m.startswith("services.kit")]
