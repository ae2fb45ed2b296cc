"""The OpenEnv server (integrations/openenv) as a trainer meets it: a real process on a test
stack, and the element ids a scripted policy reads from an observation's tree."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import httpx

from runner.settings import free_port
from runner.stack.stack import Stack
from runner.wait import until

# openenv imports Gradio: a server answers after seconds, more on a busy machine.
READY_S = 90


@contextlib.contextmanager
def serving(stack: Stack, *options: str) -> Iterator[str]:
    """`python -m webpagebench_env.server.app` on `stack`, on a free port; its address."""
    port = free_port()
    command = [sys.executable, "-m", "webpagebench_env.server.app", "--hub", stack.hub_url]
    env = {**os.environ, "WPB_ADMIN_TOKEN": stack.token}
    server = subprocess.Popen(
        [*command, "--port", str(port), *options],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        until(lambda: answers(url) or server.poll() is not None, READY_S, "the OpenEnv server")
        assert server.poll() is None, server.stdout.read() if server.stdout else ""
        yield url
    finally:
        server.terminate()
        server.wait(30)


def answers(url: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    return False


def ref(tree: str, role: str, name: str) -> str:
    """The element id of the first `role` named exactly `name` in an observation's tree."""
    found = re.search(rf'{role} "{re.escape(name)}"[^\n]*?\[ref=(\w+)\]', tree)
    assert found, f"no {role} {name!r} in:\n{tree[:3000]}"
    return found.group(1)


def refs(tree: str, role: str, prefix: str) -> list[tuple[str, str]]:
    """Every `role` whose name starts with `prefix`: (name, element id), in the tree's order."""
    pattern = rf'{role} "({re.escape(prefix)}[^"]*)"[^\n]*?\[ref=(\w+)\]'
    return re.findall(pattern, tree)
