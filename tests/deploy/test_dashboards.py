"""The Grafana dashboards against a real Prometheus: Grafana cannot run on this machine, so
every panel's query, read from the dashboard files, is sent to Prometheus's HTTP API while
it scrapes a real embedded stack and a real `runner eval --metrics-port` (`runner
prometheus`, the compose stand's scrape configuration pointed at the stack), and must
return data. The provisioning files must be valid and name the same data source and
dashboards folder."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import httpx
import pytest
import yaml
from support.metrics import DASHBOARDS, empty_panels, query_range, wait_scrapes, wait_scraping

from runner.settings import REPO, free_port
from runner.stack.stack import Stack
from runner.wait import until

GRAFANA = REPO / "deploy" / "grafana"
# Grafana's own variable; with a 1 s scrape interval a rate needs a few seconds of samples.
RATE_INTERVAL = "10s"
TASKS = "grocery_nav_bakery,files_archive_by_date"


def test_provisioning_names_the_datasource_and_folder_of_the_dashboards() -> None:
    sources = yaml.safe_load((GRAFANA / "provisioning/datasources/prometheus.yml").read_text())
    (source,) = sources["datasources"]
    assert source["type"] == "prometheus" and source["url"] == "http://prometheus:9090"
    providers = yaml.safe_load((GRAFANA / "provisioning/dashboards/dashboards.yml").read_text())
    (provider,) = providers["providers"]
    assert provider["type"] == "file"
    assert provider["options"]["path"] == "/var/lib/grafana/dashboards"
    assert len(DASHBOARDS) == 2
    uids = set()
    for path in DASHBOARDS:
        dashboard = json.loads(path.read_text())
        uids.add(dashboard["uid"])
        panels = [p for p in dashboard["panels"] if p["type"] != "row"]
        assert panels, path.name
        for panel in panels:
            assert panel["targets"], (path.name, panel["title"])
            for item in (panel, *panel["targets"]):
                assert item["datasource"] == {"type": "prometheus", "uid": source["uid"]}
    assert len(uids) == len(DASHBOARDS)
    compose = REPO / "compose.yaml"
    if compose.exists():  # the compose stand mounts both where these files say
        text = compose.read_text()
        assert "deploy/grafana/dashboards:/var/lib/grafana/dashboards" in text
        assert "deploy/grafana/provisioning:/etc/grafana/provisioning" in text


@pytest.mark.skipif(shutil.which("prometheus") is None, reason="make setup installs prometheus")
def test_every_panel_query_returns_data(stack: Stack) -> None:
    prometheus_port, runner_port = free_port(), free_port()
    env = {**os.environ, "WPB_HOME": str(stack.home), "WPB_HUB_PORT": str(stack.hub_port)}
    command = [sys.executable, "-m", "runner"]
    server = subprocess.Popen(
        [
            *command,
            "prometheus",
            f"--port={prometheus_port}",
            "--scrape-interval=1s",
            f"--runner-port={runner_port}",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    api = httpx.Client(base_url=f"http://127.0.0.1:{prometheus_port}", timeout=10)
    try:
        wait_ready(api, server)
        wait_scraping(api)
        started = time.time()
        evaluation = subprocess.run(
            [*command, "eval", "--harness", "oracle", "--tasks", TASKS],
            env={**env, "WPB_METRICS_PORT": str(runner_port)},
            capture_output=True,
            text=True,
            timeout=150,
        )
        assert evaluation.returncode == 0, evaluation.stdout + evaluation.stderr
        assert "EMS 1.000" in evaluation.stdout, evaluation.stdout
        wait_scrapes(api, count=2)  # what the run left is in the series
        window = {"start": started, "end": time.time(), "step": "1"}

        empty = empty_panels(api, window, RATE_INTERVAL)
        assert not empty, "panels without data:\n" + "\n".join(empty)

        # What the series say: route labels are templates, never a trajectory's id; the
        # trajectories opened one at a time and all were closed; the oracle passed all.
        routes = query_range(api, "sum by (route) (wpb_http_requests_total)", window)
        assert "/t/{tid}/{domain}/{path:path}" in routes and "/t/{tid}/grocery/" in routes
        assert not [r for r in routes if re.search(r"[0-9a-f]{32}", r)], sorted(routes)
        opened = query_range(api, "max(wpb_trajectories_open)", window)[""]
        assert max(opened) == 1 and opened[-1] == 0, opened
        ems = query_range(api, "sum(wpb_runner_tasks_passed_total)", window)[""]
        assert max(ems) >= 1, ems
    finally:
        server.send_signal(signal.SIGTERM)
        output = server.communicate(timeout=30)[0]
        api.close()
    assert server.returncode == 0, output


def wait_ready(api: httpx.Client, server: subprocess.Popen[bytes], timeout: float = 30) -> None:
    def answers() -> bool:
        assert server.poll() is None, server.communicate()[0]
        with contextlib.suppress(httpx.HTTPError):
            return api.get("/-/ready").status_code == 200
        return False

    until(answers, timeout, "Prometheus ready", every=0.2)
