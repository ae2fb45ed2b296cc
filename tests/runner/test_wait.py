"""The one way to wait (runner/wait.py): the first true value, a timeout that names what was
waited for, an error that ends the wait at once, the same for coroutines. Time is a clock of
the test's own, which only the waits move: what is asked when holds on any machine, however
busy."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from support.http import run_async

from runner import wait
from runner.wait import WaitTimeout, until, until_async


@dataclass
class Clock:
    """Monotonic time that passes only when the code under test sleeps."""

    now: float = 0.0
    sleeps: list[float] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    made = Clock()
    monkeypatch.setattr(wait.time, "monotonic", made.monotonic)
    monkeypatch.setattr(wait.time, "sleep", made.sleep)
    return made


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


def test_a_wait_past_its_time_names_what_it_waited_for(clock: Clock) -> None:
    calls, test = counter(10**9)
    with pytest.raises(WaitTimeout, match=r"not within 0\.2s: the impossible") as caught:
        until(test, 0.2, "the impossible", every=0.075)  # type: ignore[arg-type]
    assert caught.value.what == "the impossible" and isinstance(caught.value, TimeoutError)
    # asked at 0, 0.075 and 0.15, and once more at the deadline (the last sleep is shorter)
    assert len(calls) == 4 and clock.sleeps == pytest.approx([0.075, 0.075, 0.05])
    assert clock.now == pytest.approx(0.2)


def test_an_error_of_the_test_ends_the_wait_at_once(clock: Clock) -> None:
    def died() -> bool:
        raise RuntimeError("the process exited")

    with pytest.raises(RuntimeError, match="exited"):
        until(died, 30, "a dead process")
    assert clock.sleeps == []


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
