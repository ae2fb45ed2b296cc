"""Episodes per minute with the docker backend (`runner eval --backend docker`): the same
scripted task run again and again by an agent harness in containers, the test model
answering at once, at each number of workers. Needs the compose stand with the test model
(`make images`, then `docker compose --env-file .wpb/compose.env --profile testmodel up -d
--wait`):

    .venv/bin/python -m bench.docker_agents [--hub http://127.0.0.1:8000]
        [--agents-network wpb_agents] [--harness browser-use] [--episodes 6] [--workers 1,2]

Every episode starts and removes its own browser and agent containers, so the figure is the
whole cost of an episode: containers, Chromium, the agent's start, its steps, check().
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bench.common import table
from runner.harnesses.containers import ContainerAgentHarness, DockerBackend, missing
from runner.hub import HubAddress
from runner.run.evaluate import Setup, evaluate, select_tasks
from runner.settings import TASKS_DIR, admin_token, runner_home
from services.core.models.run import AgentConfig, RunPlan

MODEL_URL = "http://testmodel:8011/v1"


def measure(args: argparse.Namespace, workers: int, out: Path) -> tuple[float, int, int]:
    """Seconds for `--episodes` episodes at `workers`; how many solved, how many unscored."""
    backend = DockerBackend(network=args.agents_network)
    (ref,) = select_tasks(TASKS_DIR, args.task, None)
    started = time.monotonic()
    result = asyncio.run(
        evaluate(
            HubAddress(args.hub, admin_token(runner_home())),
            Setup(
                ContainerAgentHarness(args.harness, backend),
                AgentConfig(model="test", base_url=MODEL_URL, max_steps=15),
            ),
            [ref] * args.episodes,
            out,
            RunPlan(workers=workers, time_limit=180),
        )
    )
    records = result.records
    solved = sum(r.ems == 1 for r in records)
    return time.monotonic() - started, solved, sum(r.ems is None for r in records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hub", default="http://127.0.0.1:8000")
    parser.add_argument("--agents-network", default=DockerBackend.network)
    parser.add_argument("--harness", default="browser-use")
    parser.add_argument("--task", default="grocery_showcase_tea")
    parser.add_argument("--episodes", type=int, default=6)
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    why = missing(DockerBackend(network=args.agents_network), args.harness)
    if why:
        raise SystemExit(why)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for workers in (int(n) for n in args.workers.split(",")):
            seconds, solved, unscored = measure(args, workers, Path(folder) / str(workers))
            rows.append(
                [
                    str(workers),
                    f"{seconds:.1f}",
                    f"{args.episodes * 60 / seconds:.1f}",
                    f"{solved}/{args.episodes}",
                    str(unscored),
                ]
            )
    table(
        f"{args.harness} in containers on {args.task}, the test model answering at once",
        ["workers", "seconds", "episodes/min", "EMS 1", "infra errors"],
        rows,
    )


if __name__ == "__main__":
    main()
