"""The one way to wait (runner/wait.py): the first true value, a timeout that names what was
waited for, an error that ends the wait at once, the same for coroutines."""

from __future__ import annotations

import time

import pytest
from helpers import run_async

from runner.wait import WaitTimeout, until, until_async


def counter(true_from: int) -> tuple[list[int], object]:
    calls: list[int] = []

    def test() -> int | None:
        calls.append(1)
        return len(calls) if len(calls) >= true_from else None

    return calls, test


def test_the_first_true_value_is_returned() -> None:
    calls, test = counter(3)
    assert until(test, 5, "three calls", every=0.001) == 3  # type: ignore[arg-type]
    assert len(calls) == 3


def test_a_wait_past_its_time_names_what_it_waited_for() -> None:
    calls, test = counter(10**9)
    started = time.monotonic()
    with pytest.raises(WaitTimeout, match=r"not within 0\.2s: the impossible") as caught:
        until(test, 0.2, "the impossible", every=0.05)  # type: ignore[arg-type]
    assert 0.2 <= time.monotonic() - started < 1
    assert caught.value.what == "the impossible" and isinstance(caught.value, TimeoutError)
    assert 4 <= len(calls) <= 6  # asked every 0.05 s, and once more at the deadline


def test_an_error_of_the_test_ends_the_wait_at_once() -> None:
    def died() -> bool:
        raise RuntimeError("the process exited")

    started = time.monotonic()
    with pytest.raises(RuntimeError, match="exited"):
        until(died, 30, "a dead process")
    assert time.monotonic() - started < 1


def test_a_timeout_of_zero_asks_once() -> None:
    calls, test = counter(1)
    assert until(test, 0, "now") == 1  # type: ignore[arg-type]
    calls, test = counter(2)
    with pytest.raises(WaitTimeout):
        until(test, 0, "now")  # type: ignore[arg-type]
    assert len(calls) == 1


def test_coroutines_wait_the_same_way() -> None:
    calls: list[int] = []

    async def third() -> str | None:
        calls.append(1)
        return "yes" if len(calls) == 3 else None

    assert run_async(until_async(third, 5, "three calls", every=0.001)) == "yes"

    async def never() -> bool:
        return False

    with pytest.raises(WaitTimeout, match=r"not within 0\.1s: never"):
        run_async(until_async(never, 0.1, "never", every=0.02))
