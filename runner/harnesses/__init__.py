"""Built-in harnesses: `oracle` (reference solver through the real UI) and `noop`."""

from runner.harnesses import noop, oracle  # noqa: F401
