"""Generated suites (docs/tasks.md, "Generated suites"): instances generated per second
without proof; proven per minute with the oracle and the audit at 1, 2 and 4 workers, and
the share of that time the oracle takes; the admission rate per family of both.

    .venv/bin/python -m bench.generate [--count 240] [--proven 24] [--workers 1,2,4]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from bench.common import fresh_stack, table
from runner.harnesses.harness import get_harness
from runner.run.evaluate import Setup, TaskRef, evaluate
from runner.settings import TASKS_DIR
from runner.stack.stack import Stack
from runner.suite.audit import audit_suite, collect
from runner.suite.generate import Report, generate, verdicts
from services.core.families import load_families
from services.core.models.run import RunPlan

SEED = 7


class TimedProver:
    """`generate`'s prover on `stack`: the oracle with `workers` at once, then the audit of
    its logs; the seconds each part took."""

    def __init__(self, stack: Stack, workers: int, out: Path) -> None:
        self.stack, self.workers, self.out = stack, workers, out
        self.oracle_s = 0.0
        self.audit_s = 0.0

    def __call__(self, refs: list[TaskRef]) -> dict[str, str | None]:
        started = time.monotonic()
        run = asyncio.run(
            evaluate(
                self.stack.address,
                Setup(get_harness("oracle")),
                refs,
                self.out / f"run-{time.monotonic_ns()}",
                RunPlan(workers=self.workers, time_limit=120),
            )
        )
        self.oracle_s += time.monotonic() - started
        started = time.monotonic()
        items = asyncio.run(collect(self.stack.hub_url, self.stack.token, refs, run.records))
        proofs = verdicts(audit_suite(items))
        self.audit_s += time.monotonic() - started
        return proofs


def rates(report: Report) -> dict[str, str]:
    return {
        f: f"{report.rate(f):.2f}" if report.rate(f) is not None else "—" for f in report.wanted
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--proven", type=int, default=24)
    parser.add_argument("--workers", default="1,2,4")
    args = parser.parse_args()
    families = sorted(load_families(TASKS_DIR))
    with tempfile.TemporaryDirectory(prefix="wpb-bench-generate-") as scratch:
        started = time.monotonic()
        drawn = generate(TASKS_DIR, "all", SEED, args.count, Path(scratch) / "drawn")
        seconds = time.monotonic() - started
        table(
            f"Generation without proof (all {len(families)} families, seed {SEED})",
            ["instances", "seconds", "instances/s", "rejected (by reason)"],
            [
                [
                    str(len(drawn.written)),
                    f"{seconds:.2f}",
                    f"{len(drawn.written) / seconds:.1f}",
                    ", ".join(f"{r} {n}" for r, n in sorted(drawn.rejections().items())) or "—",
                ]
            ],
        )
        proven_rows, proven_rates = [], {}
        for workers in [int(w) for w in args.workers.split(",")]:
            with fresh_stack() as stack:
                prover = TimedProver(stack, workers, Path(scratch) / f"runs-{workers}")
                started = time.monotonic()
                report = generate(
                    TASKS_DIR, "all", SEED, args.proven, Path(scratch) / f"proven-{workers}", prover
                )
                wall = time.monotonic() - started
            proven_rates[workers] = rates(report)
            proving = prover.oracle_s + prover.audit_s
            proven_rows.append(
                [
                    str(workers),
                    str(len(report.written)),
                    f"{wall:.1f}",
                    f"{len(report.written) / wall * 60:.1f}",
                    f"{prover.oracle_s / proving:.0%}" if proving else "—",
                    f"{prover.audit_s / proving:.0%}" if proving else "—",
                    ", ".join(f"{r} {n}" for r, n in sorted(report.rejections().items())) or "—",
                ]
            )
        table(
            f"Proven with --prove ({args.proven} instances, every family)",
            ["workers", "admitted", "wall s", "proven/min", "oracle", "audit", "rejected"],
            proven_rows,
        )
        table(
            "Admission rate per family (admitted of drawn)",
            ["family", "without proof", *(f"proven, {w} workers" for w in proven_rates)],
            [
                [f, rates(drawn)[f], *(by[f] for by in proven_rates.values())]
                for f in sorted(drawn.wanted)
            ],
        )


if __name__ == "__main__":
    main()
