"""How fast the stand heals (issue 21): after NATS was away for 1, 5 and 20 s, the seconds
from nats-server started again to every service ready (`/api/status` 200) and
to the first trajectory created and served; beside them, in the same run, the baseline of a
plain restart of one site (`Stack.restart`, ready again) and of the whole stand's cold start.
The services are never restarted during an outage: each reconnects by itself.

    .venv/bin/python -m bench.recovery
"""

from __future__ import annotations

import time

import httpx
from rich.table import Table

from bench.common import console, fresh_stack
from runner.wait import until

OUTAGES_S = (1, 5, 20)


def ready(client: httpx.Client) -> float:
    """Seconds until `/api/status` answers 200."""
    started = time.monotonic()
    until(lambda: client.get("/api/status").status_code == 200, 60, "the stand ready", 0.02)
    return time.monotonic() - started


def served(client: httpx.Client) -> None:
    """A trajectory created and its first page served."""
    task = {
        "test_data": {
            "bench_first_domain": "grocery",
            "task": "%HOST%",
            "conditions": [{"event_name": "state_changed"}],
        }
    }

    def create() -> httpx.Response | None:
        answer = client.post("/api/trajectories", json={"task": task})
        return answer if answer.status_code == 201 else None

    tid = until(create, 60, "a trajectory created", 0.02).json()["trajectory_id"]
    assert client.get(f"/t/{tid}/grocery/").status_code == 200


def main() -> None:
    table = Table(title="Healing after NATS was away (issue 21)")
    for column in ("what", "to ready, s", "to a trajectory served, s", "× a site's restart"):
        table.add_column(column, justify="right" if column != "what" else "left")
    cold = time.monotonic()
    with fresh_stack() as stack:
        cold_s = time.monotonic() - cold
        headers = {"Authorization": f"Bearer {stack.token}"}
        with httpx.Client(base_url=stack.hub_url, headers=headers, timeout=30) as client:
            started = time.monotonic()
            stack.restart("site-grocery")
            ready(client)
            baseline = time.monotonic() - started
            rows: list[tuple[str, float, float | None]] = [
                ("a site restarted (baseline)", baseline, None)
            ]
            for outage in OUTAGES_S:
                stack.kill("nats")
                time.sleep(outage)
                back = time.monotonic()
                stack.spawn("nats")
                to_ready = ready(client)
                served(client)
                rows.append((f"NATS away {outage} s", to_ready, time.monotonic() - back))
    for what, to_ready, to_served in rows:
        table.add_row(
            what,
            f"{to_ready:.2f}",
            "" if to_served is None else f"{to_served:.2f}",
            f"{to_ready / baseline:.2f}",
        )
    table.add_row("the stand's cold start", f"{cold_s:.2f}", "", f"{cold_s / baseline:.2f}")
    console.print(table)


if __name__ == "__main__":
    main()
