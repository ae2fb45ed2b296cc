"""Harbor trials per minute on exported tasks (`runner export --format harbor`), Harbor's
`oracle` agent solving each through the pages: on the compose stand that every trial shares,
at each number of trials at once, against trials that each start a stand of their own. Needs
the images (`make images`) and the compose stand (`make stand`); Harbor's venv is made once
(runner/harbor/export.py `HARBOR`):

    .venv/bin/python -m bench.harbor [--network wpb_agents] [--trials 6] [--concurrency 1,3]

A trial's cost is all of it: Harbor's compose project (the box and the door, and for an own
stand its eleven services), the trajectory, the solver's Chromium, the verifier.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import table
from runner.harbor.export import HARBOR
from runner.settings import admin_token, runner_home

TASKS = "grocery_showcase_tea,hotels_pick_city,rail_pick_from,books_search_shubin_river"


def export(out: Path, stand: str, tasks: str) -> None:
    argv = [".venv/bin/runner", "export", str(out), "--format", "harbor", "--tasks", tasks]
    subprocess.run([*argv, "--stand", stand], check=True, capture_output=True)


def run(tasks: Path, concurrency: int, network: str, repeats: int) -> tuple[float, int, int]:
    """Seconds for `repeats` attempts of every task under `tasks`; trials solved, errored."""
    jobs = tasks.parent / f"jobs-{tasks.name}-{concurrency}"
    env = {
        **os.environ,
        "HARBOR_TELEMETRY": "0",
        "WPB_ADMIN_TOKEN": admin_token(runner_home()),
        "WPB_STAND_NETWORK": network,
    }
    argv = [str(HARBOR.python().with_name("harbor")), "run", "-p", str(tasks), "-a", "oracle"]
    argv += ["-e", "docker", "-n", str(concurrency), "-k", str(repeats), "-o", str(jobs)]
    argv += ["--job-name", "bench", "-y", "-q"]
    started = time.monotonic()
    subprocess.run(argv, env=env, check=True, capture_output=True)
    seconds = time.monotonic() - started
    results = [json.loads(p.read_text()) for p in (jobs / "bench").glob("*/result.json")]
    solved = sum(
        (r.get("verifier_result") or {}).get("rewards", {}).get("reward") == 1 for r in results
    )
    return seconds, solved, sum(r.get("exception_info") is not None for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--network", default="wpb_agents", help="the compose stand's agents net")
    parser.add_argument("--tasks", default=TASKS)
    parser.add_argument("--repeats", type=int, default=2, help="attempts per task (shared)")
    parser.add_argument("--concurrency", default="1,3")
    args = parser.parse_args()
    HARBOR.install(log=print)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        shared, own = Path(folder) / "shared", Path(folder) / "own"
        export(shared, "shared", args.tasks)
        export(own, "trial", args.tasks.split(",")[0])
        trials = len(args.tasks.split(",")) * args.repeats
        for concurrency in (int(n) for n in args.concurrency.split(",")):
            seconds, solved, errors = run(shared, concurrency, args.network, args.repeats)
            rows.append(
                [
                    "shared",
                    str(concurrency),
                    str(trials),
                    f"{seconds:.1f}",
                    f"{trials * 60 / seconds:.1f}",
                    f"{solved}/{trials}",
                    str(errors),
                ]
            )
        seconds, solved, errors = run(own, 1, args.network, 1)
        rows.append(
            [
                "own stand",
                "1",
                "1",
                f"{seconds:.1f}",
                f"{60 / seconds:.1f}",
                f"{solved}/1",
                str(errors),
            ]
        )
    table(
        "Harbor's oracle on exported tasks: one shared stand against a stand per trial",
        ["stand", "at once", "trials", "wall s", "trials/min", "solved", "errors"],
        rows,
    )


if __name__ == "__main__":
    main()
