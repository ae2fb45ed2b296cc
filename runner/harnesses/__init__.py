"""Built-in harnesses: `oracle` (reference solver through the real UI), `noop`, and the
agent harnesses that run out of process (`browser-use`, `openhands`, `dom`, `gui`,
`external`)."""

from runner.harnesses import agents, noop, oracle  # noqa: F401
