"""The compose stand (compose.yaml): built by `make images`'s script, started with
`docker compose up -d --wait` under a project of its own on a free port, evaluated by
`runner eval --hub` as a stand it did not start; its agents network reaches the hub and
nothing else; grocery replaced alone keeps its carts and events, the hub answering 503 in
the gap; `docker compose down -v` leaves nothing. Needs a Docker engine: started by
deploy/docker-engine.sh when none answers (root), else the module is skipped."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import httpx
import pytest
import yaml
from support.compose import Stand, docker
from support.metrics import empty_panels, wait_scrapes, wait_scraping
from support.runs import runner

from runner.settings import REPO, free_port

# Building the images cold (the Debian base included) takes minutes, once.
pytestmark = [pytest.mark.timeout(900)]

# One task per site.
TASKS = (
    "grocery_showcase_tea,shop_any_electronics,hotels_pick_city,rail_pick_from,"
    "files_year_datasets_2025,books_author_cheapest_rudneva"
)

# Run inside a container: for each host:port argument, "open" or why it is not.
PROBE = """
import json, socket, sys
out = {}
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=3).close()
        out[target] = "open"
    except OSError as exc:
        out[target] = type(exc).__name__
print(json.dumps(out))
"""


def test_the_oracle_solves_a_task_per_site_on_the_compose_stand(stand: Stand) -> None:
    done = runner(
        stand.home, "eval", "--harness", "oracle", "--hub", stand.hub_url, "--tasks", TASKS
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (run,) = (stand.home / "runs").iterdir()
    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    assert {r["task"]: r["ems"] for r in records} == {name: 1 for name in TASKS.split(",")}


def test_the_agents_network_reaches_the_hub_and_nothing_else(stand: Stand) -> None:
    with stand.admin() as admin:
        tid = admin.post("/api/trajectories", json={"task_id": "grocery_showcase_tea"}).json()[
            "trajectory_id"
        ]
    network = f"{stand.project}_agents"
    assert docker("network", "inspect", "-f", "{{.Internal}}", network).strip() == "true"
    inner = {
        name: docker(
            "inspect",
            "-f",
            f'{{{{(index .NetworkSettings.Networks "{stand.project}_services").IPAddress}}}}',
            f"{stand.project}-{name}-1",
        ).strip()
        for name in ("nats", "events", "verifier", "grocery")
    }
    closed = [
        "nats:4222",
        "events:8000",
        "verifier:8000",
        "grocery:8000",
        f"{inner['nats']}:4222",
        f"{inner['events']}:8000",
        f"{inner['verifier']}:8000",
        f"{inner['grocery']}:8000",
        "203.0.113.1:80",  # an address outside (TEST-NET-3): nothing may leave
    ]
    probe = ["run", "--rm", "--network", network, "--entrypoint", "python", "wpb-hub"]
    answers = json.loads(docker(*probe, "-c", PROBE, "hub:8000", *closed))
    assert answers.pop("hub:8000") == "open"
    assert all(why != "open" for why in answers.values()), answers
    page = docker(
        *probe,
        "-c",
        "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).status)",
        f"http://hub:8000/t/{tid}/",
    )
    assert page.strip() == "200"


def test_grocery_replaced_alone_keeps_carts_and_events(stand: Stand) -> None:
    with stand.admin() as admin:
        tid = admin.post("/api/trajectories", json={"task_id": "grocery_showcase_tea"}).json()[
            "trajectory_id"
        ]
        cart = f"{stand.hub_url}/t/{tid}/grocery/cart"
        for _ in range(2):
            httpx.post(
                f"{cart}/g-0010", data={"op": "inc"}, headers={"Accept": "application/json"}
            ).raise_for_status()
        before = admin.get(f"/api/trajectories/{tid}/events").json()["events"]
        seen: list[int] = []
        stop = threading.Event()

        def watch() -> None:  # the agent, asking for its cart through the gap
            while not stop.is_set():
                seen.append(httpx.get(cart, timeout=10).status_code)
                time.sleep(0.05)

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            stand.compose("up", "-d", "--no-deps", "--force-recreate", "--wait", "grocery")
        finally:
            stop.set()
            watcher.join()
        assert 503 in seen and set(seen) <= {200, 503}, sorted(set(seen))
        page = httpx.get(cart).text
        assert 'data-item="g-0010" data-amount="2"' in page
        answer = httpx.post(
            f"{cart}/g-0010", data={"op": "inc"}, headers={"Accept": "application/json"}
        )
        assert answer.json()["amount"] == 3
        after = admin.get(f"/api/trajectories/{tid}/events").json()["events"]
    assert after[: len(before)] == before
    amounts = [e["params"]["amount"] for e in after if e["type"] == "basket_add"]
    assert amounts == [1, 2, 3]


def test_every_panel_query_returns_data_from_the_metrics_profile(stand: Stand) -> None:
    """Profile `metrics`: our Prometheus image scrapes the services by name with the service
    credential, and the runner's metrics on the host; every Grafana panel has data."""
    stand.compose("--profile", "metrics", "up", "-d", "--wait", "prometheus")
    config = yaml.safe_load((REPO / "deploy/prometheus/prometheus.yml").read_text())
    scrape_s = int(config["global"]["scrape_interval"].removesuffix("s"))
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "runner"]
    runner_port = job["static_configs"][0]["targets"][0].rsplit(":", 1)[1]
    port = stand.env["WPB_PROMETHEUS_PORT"]
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as api:
        # Every service scraped with the credential before the run: the runner's series are
        # read while it runs, and it waits for a last scrape once it has been read.
        wait_scraping(api)
        started = time.time()
        metrics = {"WPB_METRICS_PORT": runner_port, "WPB_METRICS_HOST": "0.0.0.0"}
        evaluation = runner(
            stand.home,
            *("eval", "--harness", "oracle", "--hub", stand.hub_url),
            *("--tasks", "grocery_showcase_tea,files_year_datasets_2025"),
            env=metrics,
        )
        assert evaluation.returncode == 0, evaluation.stdout + evaluation.stderr
        # What the run left is in the series, twice: a series its last task first wrote (a
        # check's histogram) needs two samples for a rate.
        wait_scrapes(api, count=2)
        window = {"start": started, "end": time.time(), "step": "1"}
        empty = empty_panels(api, window, f"{4 * scrape_s}s")
    assert not empty, "panels without data:\n" + "\n".join(empty)


def test_a_bare_compose_up_in_a_fresh_copy_makes_its_credentials(
    stand: Stand, tmp_path: Path
) -> None:
    """`docker compose up` in a copy of the checkout, with no env file and no credential
    in the environment: its `credentials` service makes them, the hub's log names the login
    URL, which opens the pages and whose token the API takes; a second `up` keeps them."""
    copy = tmp_path / "checkout"
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, copy / name)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WPB_", "COMPOSE_"))}
    env["WPB_HUB_PORT"] = str(port)
    project = f"wpb-bare-{os.getpid()}"

    def compose(*args: str) -> str:
        done = subprocess.run(
            ["docker", "compose", "-p", project, *args],
            cwd=copy,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def login() -> str:
        found = re.search(r"the stand's pages: (\S+)", compose("logs", "hub"))
        assert found, compose("logs", "hub")[-2000:]
        return found.group(1)

    try:
        compose("up", "-d", "--wait")
        url = login()
        assert url.startswith(f"http://127.0.0.1:{port}/view/login?token=")
        token = url.split("token=", 1)[1]
        with httpx.Client(timeout=30, follow_redirects=True) as http:
            opened = http.get(url)
            assert opened.status_code == 200 and "/view/" in str(opened.url)
            created = http.post(
                f"http://127.0.0.1:{port}/api/trajectories",
                json={"task_id": "grocery_showcase_tea"},
                headers={"Authorization": f"Bearer {token}"},
            )
        assert created.status_code == 201, created.text
        compose("down")
        compose("up", "-d", "--wait")
        assert login().endswith(token)
    finally:
        compose("down", "-v")


def test_down_leaves_nothing(stand: Stand) -> None:
    stand.compose("--profile", "metrics", "down", "-v")
    label = f"label=com.docker.compose.project={stand.project}"
    assert docker("ps", "-aq", "--filter", label) == ""
    assert docker("volume", "ls", "-q", "--filter", label) == ""
    assert docker("network", "ls", "-q", "--filter", label) == ""
