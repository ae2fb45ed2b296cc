"""One way to wait, for the runner, the benchmarks and the tests: ask a test again and again
until it holds, or until a deadline has passed.

A test returns what the caller waits for (anything true), or something false to be asked
again; an exception it raises ends the wait at once (a process that died, a container that
stopped: no point in waiting the rest of the time).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class WaitTimeout(TimeoutError):
    """What was waited for did not come within the time given: `what` says what."""

    def __init__(self, what: str, timeout: float) -> None:
        super().__init__(f"not within {timeout:g}s: {what}")
        self.what = what
        self.timeout = timeout


def until(test: Callable[[], T | None], timeout: float, what: str, every: float = 0.1) -> T:
    """The first true value of `test()`, asked every `every` seconds (at least once, and once
    more at the deadline); WaitTimeout after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = test()
        if value:
            return value
        left = deadline - time.monotonic()
        if left <= 0:
            raise WaitTimeout(what, timeout)
        time.sleep(min(every, left))


async def until_async(
    test: Callable[[], Awaitable[T | None]], timeout: float, what: str, every: float = 0.1
) -> T:
    """`until` for a coroutine test, sleeping without blocking the loop."""
    deadline = time.monotonic() + timeout
    while True:
        value = await test()
        if value:
            return value
        left = deadline - time.monotonic()
        if left <= 0:
            raise WaitTimeout(what, timeout)
        await asyncio.sleep(min(every, left))
