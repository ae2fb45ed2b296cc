"""WebPageBench as an OpenEnv environment (docs/training.md): the client and the wire types.
The server (`webpagebench_env.server`) runs beside the stand, in the benchmark's venv."""

from __future__ import annotations

from webpagebench_env.client import WebpagebenchEnv
from webpagebench_env.models import (
    WebpagebenchAction,
    WebpagebenchObservation,
    WebpagebenchState,
)

__all__ = ["WebpagebenchAction", "WebpagebenchEnv", "WebpagebenchObservation", "WebpagebenchState"]
