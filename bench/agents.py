"""The runner's overhead per step for each agent harness, with the test model answering at
once: everything an episode spends outside the model call (the harness's start, the
browser, observing the page, acting), from the steps each agent recorded.

    .venv/bin/python -m bench.agents [--harnesses dom,gui:uitars,browser-use,openhands]
                                     [--tasks grocery_showcase_tea] [--repeat 3]

The baseline is the oracle on the same task in the same run: Playwright in the runner's
own process, no model, no agent process.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import fresh_stack, table
from runner.harnesses.environments import ENVIRONMENTS
from runner.harnesses.harness import get_harness
from runner.models.testmodel.process import background
from runner.run.evaluate import Setup, evaluate, select_tasks
from runner.settings import TASKS_DIR
from runner.stack.stack import Stack
from services.core.models.protocol import STEPS, Step
from services.core.models.run import AgentConfig, Options, Record, RunPlan


def run(stack: Stack, harness: str, agent: AgentConfig, tasks: str, out: Path) -> list[Record]:
    refs = select_tasks(TASKS_DIR, tasks, None)
    result = asyncio.run(
        evaluate(
            stack.address,
            Setup(get_harness(harness), agent),
            refs,
            out,
            RunPlan(workers=1, time_limit=180, today="2026-11-29"),
        )
    )
    return result.records


def episode_figures(out: Path, record: Record) -> dict[str, float]:
    """Start (until the first step's model call returned), and per later step the time
    outside the model call."""
    steps = Step.read_lines(out / str(record.episode) / STEPS)
    model = sum(s.latency_s for s in steps)
    later = [(b.elapsed_s - a.elapsed_s) - b.latency_s for a, b in itertools.pairwise(steps)]
    return {
        "seconds": record.seconds,
        "steps": len(steps),
        "model": model,
        "start": steps[0].elapsed_s if steps else record.seconds,
        "per_step": statistics.fmean(later) if later else 0.0,
        "outside": (record.seconds - model) / max(1, len(steps)),
    }


def measure(args: argparse.Namespace, base_url: str, rows: list[list[str]]) -> float:
    """Each harness `--repeat` times on the tasks, after the oracle; the seconds it took."""
    with fresh_stack() as stack, tempfile.TemporaryDirectory() as folder:
        started = time.monotonic()
        oracle = [
            run(stack, "oracle", AgentConfig(), args.tasks, Path(folder) / f"oracle-{i}")[0]
            for i in range(args.repeat)
        ]
        baseline = statistics.fmean(r.seconds for r in oracle)
        steps = statistics.fmean(r.steps for r in oracle)
        rows.append(
            [
                "oracle (baseline)",
                f"{baseline:.2f}",
                f"{steps:.0f}",
                "—",
                "—",
                f"{baseline / max(1, steps) * 1000:.0f}",
                "1.0",
            ]
        )
        for spec in args.harnesses.split(","):
            name, _, family = spec.partition(":")
            environment = ENVIRONMENTS.get(name)
            if environment is not None and environment.state() is None:
                rows.append([spec, "not installed", "", "", "", "", ""])
                continue
            options: Options = {"family": family, "page_geometry": True} if family else {}
            agent = AgentConfig(model="test", base_url=base_url, options=options, max_steps=15)
            figures = []
            for i in range(args.repeat):
                out = Path(folder) / f"{name}-{family}-{i}"
                record = run(stack, name, agent, args.tasks, out)[0]
                if record.ems != 1:
                    raise SystemExit(f"{spec}: not solved ({record.status}: {record.error})")
                figures.append(episode_figures(out, record))
            mean = {key: statistics.fmean(f[key] for f in figures) for key in figures[0]}
            rows.append(
                [
                    spec,
                    f"{mean['seconds']:.2f}",
                    f"{mean['steps']:.0f}",
                    f"{mean['start']:.2f}",
                    f"{mean['per_step'] * 1000:.0f}",
                    f"{mean['outside'] * 1000:.0f}",
                    f"{mean['seconds'] / baseline:.1f}",
                ]
            )
        return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--harnesses", default="dom,gui:uitars,gui:qwen3vl,browser-use,openhands")
    parser.add_argument("--tasks", default="grocery_showcase_tea")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows: list[list[str]] = []
    with background() as base_url:
        wall = measure(args, base_url, rows)
    table(
        f"Agent harnesses on {args.tasks}, test model answering at once "
        f"(mean of {args.repeat}; {wall:.0f}s in all)",
        [
            "harness",
            "episode s",
            "steps",
            "start s",
            "per later step ms (outside the model)",
            "outside the model ms/step",
            "× oracle",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
