"""The errors the runner's parts raise to one another: a failure that is not the agent's, told
apart from the agent's own by whoever catches it (the evaluation, the worker, the CLI)."""

from __future__ import annotations


class InfraError(RuntimeError):
    """The stand or the browser failed, not the agent; the run is retried, never scored."""


class ModelRefused(RuntimeError):
    """The model endpoint refused a request as unsupported (images sent to a text-only
    model): the run's configuration is wrong, so none of its tasks is run or scored."""


class QueueError(RuntimeError):
    """The queue cannot be used as asked (no server answers, a bad pool or run id)."""
