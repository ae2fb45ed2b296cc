"""The Inspect task `webpagebench`: one sample per task file of a suite, run on the stand the
sandbox holds (`sandbox.py`) with browser tools (`tools.py`), scored by the verifier.

    inspect eval webpagebench/webpagebench -T suite=released -T tasks=grocery \\
        --model openai-api/local/MODEL      # LOCAL_BASE_URL, LOCAL_API_KEY

A sample's input is its task's prompt; at its start (`open_trajectory`) the trajectory is
created, the prompt the stand made for it (its address, its dates) replaces the input, and
the sample's tab opens at its first page. The default solver is Inspect's ReAct agent with
the browser tools; its `submit()` is the agent's report that it is done (no submission:
given up). The scorer closes the trajectory with that answer and reads the verifier: EMS
and completion, the first condition that did not hold as the explanation; a fault of the
stand is the sample's error, never a score of 0.
"""

from __future__ import annotations

import json

from inspect_ai import Task, task
from inspect_ai.agent import react
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import SandboxEnvironmentSpec, sandbox

from runner.run.evaluate import TaskRef, select_tasks, task_set_hash
from runner.settings import TASKS_DIR
from services.core.models.api import Verdict
from services.core.tasks import RELEASED
from webpagebench_inspect.sandbox import StandConfig, StandSandbox
from webpagebench_inspect.tools import web_browser


@task
def webpagebench(
    suite: str = RELEASED,
    tasks: str | list[str] | None = None,
    hub: str | None = None,
    home: str | None = None,
    today: str | None = None,
) -> Task:
    """WebPageBench's `suite` (released, safety, robustness, a generated one), or the tasks of
    it whose name or site `tasks` names (comma-separated, or a list: `-T tasks=a,b`), on the
    stand at `hub` (none: the embedded stack under `home`, started for the task where none
    runs)."""
    wanted = ",".join(tasks) if isinstance(tasks, list) else tasks
    refs = select_tasks(TASKS_DIR, wanted, None, suite)
    if not refs:
        raise ValueError(f"tasks: none of the {suite} suite matches {tasks!r}")
    return Task(
        dataset=dataset(refs),
        setup=open_trajectory(),
        solver=react(tools=web_browser()),
        scorer=verdict(),
        sandbox=SandboxEnvironmentSpec(
            "webpagebench", StandConfig(hub=hub, home=home, today=today)
        ),
    )


def dataset(refs: list[TaskRef]) -> MemoryDataset:
    """A sample per task: its prompt (`%HOST%` until the stand makes its own), its site, UI
    classes, suite and the task set's hash."""
    digest = task_set_hash(refs)
    return MemoryDataset(
        [
            Sample(
                id=ref.name,
                input=str(ref.task["test_data"]["task"]),
                metadata={
                    "task_id": ref.name,
                    "site": ref.site,
                    "ui_primary": ref.ui_primary,
                    "ui_classes": ref.ui_classes,
                    "suite": ref.suite,
                    "task_set_hash": digest,
                },
            )
            for ref in refs
        ],
        name=f"webpagebench-{refs[0].suite}",
    )


@solver
def open_trajectory() -> Solver:
    """The sample's trajectory on the stand and its first page; the stand's prompt as the
    user's message."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        created = await sandbox().as_type(StandSandbox).open(state.metadata["task_id"])
        state.metadata["trajectory_id"] = created.trajectory_id
        state.messages = [ChatMessageUser(content=created.prompt)]
        return state

    return solve


@scorer(metrics={"ems": [mean(), stderr()], "completion": [mean()]})
def verdict() -> Scorer:
    """The verifier's verdict on the sample's trajectory, closed with the agent's answer."""

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion if state.output else ""
        completion = bool(answer.strip())
        judged = await sandbox().as_type(StandSandbox).finish(completion, answer)
        return Score(
            value={"ems": judged.ems, "completion": int(completion)},
            answer=answer,
            explanation=unmet(judged),
            metadata={
                "trajectory_id": state.metadata.get("trajectory_id"),
                "passed": judged.passed,
                "total": judged.total,
            },
        )

    return score


def unmet(verdict: Verdict) -> str:
    """The first condition that did not hold (a forbidden one that fired), in words."""
    for report in verdict.conditions:
        if report.success:
            continue
        said = json.dumps(report.parameters, ensure_ascii=False, sort_keys=True)
        why = "forbidden, and it happened" if report.forbidden else "did not happen"
        return f"{report.event_name} {said}: {why}"
    return f"all {verdict.total} conditions held"
