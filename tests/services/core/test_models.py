"""The boundary models: their checked-in JSON Schemas, files from older versions, malformed
files, and what the runner and an agent write validated against the schemas by another
implementation of JSON Schema (jsonschema-rs, in Rust)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs
import pytest

from services.core.models import schemas
from services.core.models.api import TrajectoryMeta
from services.core.models.base import FileFormatError
from services.core.models.protocol import AgentInput, AgentOutput, Limits, ModelSettings, Step
from services.core.models.run import Manifest, Record, Status, Summary, Usage, read_records
from services.core.models.stack import StackFile


def test_every_schema_is_checked_in_as_the_models_give_it() -> None:
    wanted = schemas.schemas()
    on_disk = {path.name for path in schemas.DOCS.glob("*.json")}
    assert on_disk == set(wanted), "python -m services.core.models.schemas"
    for name, schema in wanted.items():
        committed = (schemas.DOCS / name).read_text(encoding="utf-8")
        assert committed == schemas.text(schema), (
            f"docs/schemas/{name} is stale: python -m services.core.models.schemas"
        )


def test_a_file_an_older_version_wrote_loads_with_defaults(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text('{"harness": "oracle", "tasks": 3}')
    manifest = Manifest.read(tmp_path / "manifest.json")
    assert (manifest.harness, manifest.tasks, manifest.repeat) == ("oracle", 3, 1)
    assert manifest.backend == {"kind": "local"} and manifest.versions.python == ""
    (tmp_path / "records.jsonl").write_text('{"task": "t", "ems": 1}\n\n{"task": "u"}\n')
    first, second = read_records(tmp_path / "records.jsonl")
    assert (first.ems, first.status, first.usage, first.repeat) == (1, Status.OK, {}, 1)
    assert second.ems is None and not second.scored
    # A field a newer version added is ignored by this one.
    assert Summary.parse('{"overall": {"tasks": 2}, "by_day": {}}', "x").overall.tasks == 2


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"harness": "oracle", "tasks": "many"}', "tasks"),
        ('{"tasks": 3}', "harness"),
        ('{"harness": "dom", "agent": {"temperature": "hot"}}', "agent.temperature"),
        ("[1, 2]", "(the whole value)"),
    ],
)
def test_a_malformed_manifest_is_refused_naming_the_file_and_field(
    tmp_path: Path, text: str, field: str
) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(text)
    with pytest.raises(FileFormatError) as caught:
        Manifest.read(path)
    assert str(caught.value).startswith(f"{path}: {field}: ")


def test_a_malformed_record_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text('{"task": "a"}\n{"task": "b", "status": "lost"}\n')
    with pytest.raises(FileFormatError, match=r"records\.jsonl:2: status: Input should be"):
        read_records(path)


def test_a_protocol_version_the_agent_does_not_speak_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "input.json"
    path.write_text(json.dumps({**agent_input(tmp_path).model_dump(mode="json"), "protocol": 3}))
    with pytest.raises(FileFormatError, match=r"input\.json: protocol: Input should be 1 or 2"):
        AgentInput.read(path)


def test_a_protocol_1_output_still_loads_its_report_read_from_completion() -> None:
    """An agent written for version 1 keeps working: completion true is `done`, false
    `gave_up`; one that broke made no report."""
    done = AgentOutput.parse('{"protocol": 1, "completion": true, "final_message": "Ок"}', "o")
    assert (done.claimed, done.report, done.final_message) == (True, "done", "Ок")
    stopped = AgentOutput.parse('{"protocol": 1, "completion": false}', "o")
    assert (stopped.claimed, stopped.report) == (False, "gave_up")
    broke = '{"protocol": 1, "completion": false, "error": {"kind": "agent", "message": "x"}}'
    assert AgentOutput.parse(broke, "o").report is None
    with pytest.raises(FileFormatError, match=r"o: completion: .*protocol 1 requires completion"):
        AgentOutput.parse('{"protocol": 1}', "o")
    with pytest.raises(FileFormatError, match=r"o: status: .*protocol 1 has no status"):
        AgentOutput.parse('{"protocol": 1, "completion": true, "status": "done"}', "o")


def test_a_protocol_2_output_reports_its_status() -> None:
    infeasible = AgentOutput.parse('{"protocol": 2, "status": "infeasible"}', "o")
    assert (infeasible.claimed, infeasible.report) == (False, "infeasible")
    done = AgentOutput.parse('{"protocol": 2, "status": "done", "completion": true}', "o")
    assert (done.claimed, done.report) == (True, "done")
    silent = AgentOutput.parse('{"protocol": 2, "completion": false}', "o")
    assert silent.report is None  # stopped by a limit, or broke: no report
    with pytest.raises(FileFormatError, match=r"o: status: Input should be 'done', 'infeasible'"):
        AgentOutput.parse('{"protocol": 2, "status": "finished"}', "o")
    with pytest.raises(FileFormatError, match=r"o: status: .*'needs_input' with completion true"):
        AgentOutput.parse('{"protocol": 2, "status": "needs_input", "completion": true}', "o")


def agent_input(folder: Path) -> AgentInput:
    return AgentInput(
        task_id="grocery_showcase_tea",
        prompt="Открой …",
        start_url="http://127.0.0.1:8000/t/x/",
        cdp_url="http://127.0.0.1:39123",
        model=ModelSettings(name="test", api_key_env="OPENAI_API_KEY"),
        limits=Limits(max_steps=30, time_limit_s=180),
        output_dir=folder,
        options={"family": "uitars"},
    )


def valid(schema_file: str, instance: object) -> None:
    schema = json.loads((schemas.DOCS / schema_file).read_text(encoding="utf-8"))
    jsonschema_rs.validator_for(schema).validate(instance)


def test_what_the_runner_and_an_agent_write_meets_the_schemas(tmp_path: Path) -> None:
    spec = agent_input(tmp_path)
    spec.write(tmp_path / "input.json")
    valid("protocol-input.json", json.loads((tmp_path / "input.json").read_text()))
    step = Step(step=1, time="2026-11-30T10:15:02.120+00:00", action={"click": {"ref": "e41"}})
    valid("protocol-step.json", json.loads(step.dumps(None)))
    answer = AgentOutput(completion=True, final_message="Готово", usage={"m": Usage(calls=1)})
    valid("protocol-output.json", json.loads(answer.dumps()))
    record = Record(task="t", ems=0, status=Status.STEP_LIMIT, usage={"m": Usage(calls=2)})
    valid("record.json", json.loads(record.dumps(None)))
    valid("manifest.json", json.loads(Manifest(harness="noop").dumps()))
    valid("summary.json", json.loads(Summary().dumps()))
    stack = StackFile.parse('{"hub_url": "http://127.0.0.1:8000", "processes": {}}', "x")
    valid("stack.json", json.loads(stack.dumps()))
    with pytest.raises(jsonschema_rs.ValidationError):
        valid("record.json", {"task": "t", "status": "lost"})


def test_the_api_schema_holds_each_request_and_answer() -> None:
    defs = json.loads((schemas.DOCS / "trajectory-api.json").read_text())["$defs"]
    assert {m.__name__ for m in schemas.API} <= set(defs)
    meta = {
        "trajectory_id": "a" * 32,
        "url": "http://127.0.0.1:8000/t/x/",
        "prompt": "…",
        "date_shift_days": 7,
        "status": "open",
        "created_at": 1.5,
        "today": "2026-11-30",
    }
    schema = {"$defs": defs, "$ref": "#/$defs/TrajectoryMeta"}
    jsonschema_rs.validator_for(schema).validate(meta)
    assert TrajectoryMeta.model_validate(meta).infra_faults == []
