"""Harnesses of the queue's tests, declared as a plug-in declares them (the entry-point group
`webpagebench.harnesses`, from tests/): `sleep` holds an episode for `--option sleep_s=S`
seconds and declares it done, as noop does, so that Chromium stays out where the browser is
not the point; `poison` ends the worker's process, as an episode that kills its worker."""

from __future__ import annotations

import asyncio
import os

from runner.harnesses.harness import Episode, Harness, Outcome


class SleepHarness(Harness):
    name = "sleep"
    needs_browser = False

    async def run(self, episode: Episode) -> Outcome:
        await asyncio.sleep(float(episode.agent.options.get("sleep_s", 1.0)))
        return Outcome(completion=True, final_message="Готово.", report="done", steps=1)


class PoisonHarness(Harness):
    name = "poison"
    needs_browser = False

    async def run(self, episode: Episode) -> Outcome:
        os._exit(1)
