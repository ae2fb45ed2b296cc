"""The JSON Schemas of the boundary models, checked in under docs/schemas/ for agents and
tools in other languages: `python -m services.core.models.schemas` writes them (a test fails
when a model changes without its schema)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from services.core.models import api, board, protocol, queue, run, stack

DOCS = Path(__file__).resolve().parents[3] / "docs" / "schemas"

# File name -> the model it describes.
FILES: dict[str, type[BaseModel]] = {
    "manifest.json": run.Manifest,
    "record.json": run.Record,
    "summary.json": run.Summary,
    "protocol-input.json": protocol.AgentInput,
    "protocol-step.json": protocol.Step,
    "protocol-output.json": protocol.AgentOutput,
    "model-call.json": run.ModelCall,
    "recorded.json": api.RecordedTrajectory,
    "stack.json": stack.StackFile,
    "board.json": board.BoardFile,
}
# The trajectory API's requests and answers, in one file; with a page's events (`_events`),
# the collector's check (the verifier's call) and the sites' start-state replay (`POST
# /_replay/{tid}`, the hub's call at creation).
API = (
    api.NewTrajectory,
    api.CreatedTrajectory,
    api.TrajectoryMeta,
    api.CloseTrajectory,
    api.StatelessCheck,
    api.TrajectoryCheck,
    api.Verdict,
    api.PageEvent,
    api.Events,
    api.StandStatus,
    api.Replay,
    api.Replayed,
)


# The work queue's episode message, an episode's entry and a run's (docs/scaleout.md).
QUEUE = (queue.EpisodeSpec, queue.Entry, queue.RunEntry)


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> its schema, as docs/schemas/ holds them."""
    # As written (a record's computed `cost_usd` among its fields).
    out = {name: model.model_json_schema(mode="serialization") for name, model in FILES.items()}
    for name, models, title in (
        ("trajectory-api.json", API, "WebPageBench trajectory API"),
        ("queue.json", QUEUE, "WebPageBench work queue"),
    ):
        _, defs = models_json_schema([(model, "validation") for model in models], title=title)
        out[name] = defs
    return out


def text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def main() -> None:
    DOCS.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas().items():
        (DOCS / name).write_text(text(schema), encoding="utf-8")
        print(f"wrote docs/schemas/{name}", file=sys.stderr)


if __name__ == "__main__":
    main()
