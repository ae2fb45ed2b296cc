"""What Inspect finds through the `inspect_ai` entry point: the task and the sandbox."""

from webpagebench_inspect.sandbox import StandSandbox
from webpagebench_inspect.task import webpagebench

__all__ = ["StandSandbox", "webpagebench"]
