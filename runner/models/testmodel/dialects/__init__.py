"""How each harness talks to a model: where its page state sits in a request, and how an
action must be written back. One module per dialect, over what they share (`base`)."""

from __future__ import annotations

from runner.models.testmodel.dialects import (
    agentlab,
    browser_use,
    deepagents,
    dom,
    gui,
    hermes,
    inspect,
    openhands,
)
from runner.models.testmodel.dialects.base import Dialect


def all_dialects() -> list[Dialect]:
    """Every dialect, in detection order."""
    return [
        browser_use.DIALECT,
        openhands.DIALECT,
        gui.DIALECT,
        agentlab.DIALECT,
        dom.DIALECT,
        hermes.DIALECT,
        deepagents.DIALECT,
        inspect.DIALECT,
    ]
