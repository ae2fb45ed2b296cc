"""An episode as an ATIF trajectory: the Agent Trajectory Interchange Format, v1.7 (Harbor's
RFC 0001), built with the `atif` package's models, written as the episode folder's
`trajectory.json` beside the runner's own files (docs/harnesses.md, "ATIF").

The prompt is the user's first step. Each line of `steps.jsonl` is an agent step: the model's
output its message, its action the tool calls, the page it left (and the action's error) the
observation, its tokens the metrics. The agent's final message (`output.json`), where it made
one, is the last step. The attempt's record (EMS, completion, conditions met, the failure
class), the stand's events, the verifier's conditions and the model calls the runner's proxy
recorded (`calls.jsonl`) are under `extra["webpagebench"]`.

A step's action is whatever its harness recorded; as tool calls: `{"name", "arguments"}` is
one call, a list is one call per item, `{name: arguments}` is a call of `name`, and an action
string (BrowserGym's `click('e12')`) a call of the function it names, with the string as its
`code`.
"""

from __future__ import annotations

import re
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from atif import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    ToolCall,
    Trajectory,
)
from atif import Step as AtifStep
from pydantic import JsonValue, ValidationError

from runner.harnesses.environments import ENVIRONMENTS, distribution
from services.core.models.api import RecordedTrajectory
from services.core.models.base import write_whole
from services.core.models.folder import RunFolder
from services.core.models.protocol import INPUT, OUTPUT, STEPS, AgentInput, AgentOutput, Step
from services.core.models.run import ATIF, CALLS, ModelCall, Record

SCHEMA_VERSION = "ATIF-v1.7"
CALL = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\(")


def episode_trajectory(
    folder: Path,
    record: Record,
    harness: str,
    model: str | None,
    prompt: str | None = None,
) -> Trajectory:
    """The episode in `folder` (its record `record`, run by `harness` with `model`) as an ATIF
    trajectory; `prompt` where the folder holds none (an agent in the runner's process
    writes no input.json)."""
    spec = AgentInput.read_if(folder / INPUT)
    output = AgentOutput.read_if(folder / OUTPUT)
    recorded = RecordedTrajectory.kept(folder)
    calls = ModelCall.read_lines(folder / CALLS)
    task_prompt = prompt if prompt is not None else spec.prompt if spec else ""
    steps = [AtifStep(step_id=1, source="user", message=task_prompt)]
    for step in Step.read_lines(folder / STEPS):
        steps.append(agent_step(len(steps) + 1, step, model))
    if record.final_message or record.report_status:
        steps.append(
            AtifStep(
                step_id=len(steps) + 1,
                source="agent",
                model_name=model,
                message=record.final_message,
                extra={"report": record.report_status},
            )
        )
    usage = record.usage.values()
    return Trajectory(
        schema_version=SCHEMA_VERSION,
        session_id=record.trajectory_id,
        trajectory_id=record.trajectory_id,
        agent=agent(harness, model),
        steps=steps,
        final_metrics=FinalMetrics(
            total_prompt_tokens=sum(u.input_tokens for u in usage),
            total_completion_tokens=sum(u.output_tokens for u in usage),
            total_cost_usd=record.cost if record.priced and (record.cost or usage) else None,
            total_steps=len(steps),
            extra={"model_calls": record.model_calls, "agent_steps": record.steps},
        ),
        extra={"webpagebench": webpagebench(record, recorded, calls, output)},
    )


def agent_step(step_id: int, step: Step, model: str | None) -> AtifStep:
    calls = tool_calls(step.step, step.action)
    result = f"{step.url}\n{step.error}" if step.error else step.url
    observed = [ObservationResult(source_call_id=call.tool_call_id) for call in calls[:1]]
    if observed:
        observed[0].content = result
    else:
        observed = [ObservationResult(content=result)]
    return AtifStep(
        step_id=step_id,
        timestamp=iso(step.time),
        source="agent",
        model_name=model,
        message=step.model_output,
        tool_calls=calls or None,
        observation=Observation(results=observed),
        metrics=Metrics(prompt_tokens=step.input_tokens, completion_tokens=step.output_tokens),
        extra={
            "url": step.url,
            "time": step.time,
            "elapsed_s": step.elapsed_s,
            "latency_s": step.latency_s,
            "error": step.error,
            "screenshot": step.screenshot,
        },
    )


def iso(text: str) -> str | None:
    """`text` where it is an ISO 8601 time, as ATIF's timestamp must be (an external agent
    writes its own steps); None otherwise, the text kept under the step's `extra`."""
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return text


def tool_calls(step: int, action: JsonValue) -> list[ToolCall]:
    """A step's action as tool calls (the module's docstring says how)."""
    parts = action if isinstance(action, list) else [] if action is None else [action]
    calls = []
    for index, part in enumerate(parts, start=1):
        name, arguments = call_of(part)
        calls.append(
            ToolCall(tool_call_id=f"step-{step}-{index}", function_name=name, arguments=arguments)
        )
    return calls


def call_of(part: JsonValue) -> tuple[str, dict[str, Any]]:
    if isinstance(part, dict):
        name, arguments = part.get("name"), part.get("arguments")
        if isinstance(name, str) and isinstance(arguments, dict):
            return name, arguments
        if len(part) == 1:
            ((key, value),) = part.items()
            return key, value if isinstance(value, dict) else {"value": value}
        return "action", part
    if isinstance(part, str):
        named = CALL.match(part)
        return (named.group(1) if named else "action"), {"code": part}
    return "action", {"value": part}


def agent(harness: str, model: str | None) -> Agent:
    """The harness as ATIF's agent: its framework's version as its venv on this host holds
    it (runner/harnesses/environments.py, `ready.json`), else the benchmark's; what it sees
    and how it acts."""
    ours = metadata.version("webpagebench")
    environment = ENVIRONMENTS.get(harness)
    if environment is None:  # the reference solver, an external command
        return Agent(name=harness, version=ours, model_name=model)
    installed = environment.state()
    packages = installed.packages if installed else {}
    framework = distribution(environment.requirements[0]) if environment.requirements else ""
    return Agent(
        name=harness,
        version=packages.get(framework, ours),
        model_name=model,
        extra={
            "observation": environment.observation,
            "action": environment.action,
            "packages": packages,
        },
    )


def webpagebench(
    record: Record,
    recorded: RecordedTrajectory | None,
    calls: list[ModelCall],
    output: AgentOutput | None,
) -> dict[str, Any]:
    """What the attempt was and how it was judged, in the runner's own shapes."""
    judged = record.model_dump(
        mode="json",
        include={
            "task",
            "repeat",
            "site",
            "ui_primary",
            "trajectory_id",
            "ems",
            "completion",
            "passed",
            "total",
            "status",
            "error",
            "report_status",
            "side_effects",
            "steps",
            "seconds",
            "cost",
        },
    )
    failure = record.failure
    return {
        **judged,
        "failure_class": failure.class_ if failure else None,
        "conditions": [c.model_dump(mode="json") for c in record.conditions],
        "events": (recorded.events.model_dump(mode="json")["events"] if recorded else None),
        "model_calls": [c.model_dump(mode="json", exclude={"answer"}) for c in calls],
        "agent_error": output.error.model_dump(mode="json") if output and output.error else None,
    }


def run_trajectories(folder: RunFolder, out: Path) -> int:
    """Every attempt of the run in `folder` that has an episode folder, as `out/<trajectory
    id>.json`: the ATIF file the episode wrote, else (a run from before it) one built from the
    episode's files. How many were written."""
    run = folder.read()
    if run is None:
        raise FileNotFoundError(f"{folder.path}: no manifest")
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for record in run.records:
        episode = folder.episode(record.trajectory_id) if record.trajectory_id else None
        if episode is None or not episode.is_dir():
            continue
        try:
            trajectory = Trajectory.model_validate_json((episode / ATIF).read_bytes())
        except (OSError, ValidationError):
            manifest = run.manifest
            trajectory = episode_trajectory(episode, record, manifest.harness, manifest.model)
        write(trajectory, out / f"{record.trajectory_id}.json")
        written += 1
    return written


def write(trajectory: Trajectory, path: Path) -> None:
    """Written whole at once, unset fields left out."""
    write_whole(path, trajectory.model_dump_json(indent=1, exclude_none=True))
