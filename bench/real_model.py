"""Each agent harness against a real inference server (llama.cpp's server with Gemma 3
270M, `runner model serve`): per model call, the prompt and completion tokens and the
seconds, from the calls the runner's proxy recorded; and the proxy's own cost per call,
against the same calls sent to the server directly in the same run (the baseline).

    .venv/bin/python -m bench.real_model [--harnesses dom,browser-use,openhands]
                                         [--max-steps 3] [--max-tokens 48] [--calls 20]

The model solves nothing: these are the plumbing's figures, not a score.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from bench.common import fresh_stack, table
from runner.harnesses.environments import ENVIRONMENTS
from runner.harnesses.harness import get_harness
from runner.models import real
from runner.models.proxy import ModelProxy
from runner.run.evaluate import Setup, evaluate, select_tasks
from runner.settings import TASKS_DIR
from services.core.models.run import CALLS, AgentConfig, ModelCall, RunPlan

TASK = "grocery_showcase_tea"


def harness_rows(args: argparse.Namespace, base_url: str) -> list[list[str]]:
    rows = []
    with fresh_stack() as stack, tempfile.TemporaryDirectory() as folder:
        for name in args.harnesses.split(","):
            environment = ENVIRONMENTS.get(name)
            if environment is not None and environment.state() is None:
                rows.append([name, "not installed", "", "", "", "", ""])
                continue
            agent = AgentConfig(
                model=real.MODEL_NAME,
                base_url=base_url,
                max_steps=args.max_steps,
                max_tokens=args.max_tokens,
            )
            out = Path(folder) / name
            run = evaluate(
                stack.address,
                Setup(get_harness(name), agent),
                select_tasks(TASKS_DIR, TASK, None),
                out,
                RunPlan(workers=1, time_limit=args.time_limit, today="2026-11-29"),
            )
            (record,) = asyncio.run(run).records
            calls = ModelCall.read_lines(out / str(record.episode) / CALLS)
            if not calls:
                rows.append([name, record.status, "0", "", "", "", f"{record.seconds:.1f}"])
                continue
            rows.append(
                [
                    name,
                    record.status,
                    f"{len(calls)} / {record.steps}",
                    f"{statistics.fmean(c.input_tokens for c in calls):.0f}",
                    f"{statistics.fmean(c.output_tokens for c in calls):.0f}",
                    f"{statistics.fmean(c.latency_s for c in calls):.2f}",
                    f"{record.seconds:.1f}",
                ]
            )
    return rows


async def proxy_overhead(base_url: str, calls: int, folder: Path) -> tuple[float, float]:
    """Median seconds of one short call sent directly and through the proxy, alternating."""
    body = {
        "model": real.MODEL_NAME,
        "messages": [{"role": "user", "content": "Скажи «да»."}],
        "max_tokens": 1,
    }
    proxy = ModelProxy(base_url)
    direct: list[float] = []
    proxied: list[float] = []
    try:
        async with proxy.episode(folder) as url, httpx.AsyncClient(timeout=60) as client:
            for _ in range(calls):
                for target, sink in ((base_url, direct), (url, proxied)):
                    started = time.perf_counter()
                    (await client.post(f"{target}/chat/completions", json=body)).raise_for_status()
                    sink.append(time.perf_counter() - started)
    finally:
        await proxy.close()
    return statistics.median(direct), statistics.median(proxied)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--harnesses", default="dom,browser-use,openhands")
    parser.add_argument("--max-steps", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--time-limit", type=float, default=240)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "llama-server.log"
        with real.serving(real.ServeSettings(), log) as server:
            direct, proxied = asyncio.run(proxy_overhead(server.base_url, args.calls, Path(folder)))
            rows = harness_rows(args, server.base_url)
    table(
        f"Harnesses against llama-server + {real.MODEL_NAME} on {TASK} "
        f"(max {args.max_steps} steps, {args.max_tokens} completion tokens a call)",
        [
            "harness",
            "status",
            "calls / steps",
            "prompt tokens",
            "completion tokens",
            "s/call",
            "episode s",
        ],
        rows,
    )
    table(
        f"The runner's proxy: median of {args.calls} one-token calls",
        ["path", "ms", "× direct"],
        [
            ["direct (baseline)", f"{direct * 1000:.1f}", "1.00"],
            ["through the proxy", f"{proxied * 1000:.1f}", f"{proxied / direct:.2f}"],
        ],
    )


if __name__ == "__main__":
    main()
