"""`runner testmodel` as a process of its own, for the tests and the benchmarks. Apart from
the server module: the test model's image runs that alone, without the runner's packages."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator

import httpx

from runner.settings import free_port
from runner.wait import until


@contextlib.contextmanager
def background(port: int | None = None) -> Iterator[str]:
    """The test model on `port` (a free one by default) until the block ends; its base URL."""
    port = port or free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "runner", "testmodel", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}/v1"

    def answers() -> bool:
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{base_url}/models", timeout=1).status_code == 200
        return False

    try:
        until(answers, 15, f"the test model answering at {base_url}")
        yield base_url
    finally:
        server.terminate()
        server.wait(10)
