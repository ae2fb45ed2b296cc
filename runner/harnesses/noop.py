"""`noop`: declares the task done at once; its EMS is the floor a real agent must beat."""

from __future__ import annotations

from runner.harnesses.harness import Episode, Harness, Outcome


class NoopHarness(Harness):
    name = "noop"
    needs_browser = False
    observation = "none"
    action = "none: it says done at once"

    async def run(self, episode: Episode) -> Outcome:
        return Outcome(completion=True, final_message="Готово.", report="done", steps=0)
