"""The Grafana dashboards' queries against a real Prometheus, and waiting for its scrapes
(tests/deploy)."""

from __future__ import annotations

import json
import math
import re
import time
from datetime import datetime
from typing import Any

import httpx

from runner.settings import REPO
from runner.wait import until

DASHBOARDS = sorted((REPO / "deploy" / "grafana" / "dashboards").glob("*.json"))


def panel_queries() -> list[tuple[str, str, str]]:
    """(dashboard file, panel title, expression) for every query of every panel."""
    found = []
    for path in DASHBOARDS:
        for panel in json.loads(path.read_text())["panels"]:
            for target in panel.get("targets", []):
                found.append((path.name, panel["title"], target["expr"]))
    return found


def query_range(api: httpx.Client, expr: str, window: dict[str, Any]) -> dict[str, list[float]]:
    """A range query's series: their labels' values joined, then their values in time order."""
    answer = api.get("/api/v1/query_range", params={"query": expr, **window})
    assert answer.status_code == 200, (expr, answer.text)
    return {
        ",".join(item["metric"].values()): [float(v) for _, v in item["values"]]
        for item in answer.json()["data"]["result"]
    }


def empty_panels(api: httpx.Client, window: dict[str, Any], rate_interval: str) -> list[str]:
    """Every panel query (Grafana's `$__rate_interval` set to `rate_interval`) that returns
    no finite value from the Prometheus at `api` over `window`."""
    empty = []
    for dashboard, title, expr in panel_queries():
        series = query_range(api, expr.replace("$__rate_interval", rate_interval), window)
        values = [v for vs in series.values() for v in vs]
        if not any(math.isfinite(v) for v in values):
            empty.append(f"{dashboard} «{title}»: {expr}")
    return empty


def wait_scraping(api: httpx.Client, job: str = "services", timeout: float = 30) -> None:
    """Until Prometheus has scraped every target of `job` once (its scrape loops start some
    seconds after it is ready; an evaluation shorter than that would leave no series)."""

    def all_up() -> bool:
        mine = targets_of(api, job)
        return bool(mine) and all(t["health"] == "up" for t in mine)

    until(all_up, timeout, f"Prometheus scraping every target of {job}", every=0.2)


def targets_of(api: httpx.Client, job: str) -> list[dict[str, Any]]:
    """Prometheus's active targets of `job`."""
    targets = api.get("/api/v1/targets").json()["data"]["activeTargets"]
    return [t for t in targets if t["labels"]["job"] == job]


def wait_scrapes(api: httpx.Client, job: str = "services", count: int = 1) -> None:
    """Until Prometheus has scraped every target of `job` `count` more times from now (what
    was served until now is in its series then)."""
    for _ in range(count):
        since = time.time()

        def scraped(since: float = since) -> bool:
            mine = targets_of(api, job)
            return bool(mine) and all(scraped_at(t) > since for t in mine)

        until(scraped, 60, f"one more scrape of every target of {job}", every=0.2)


def scraped_at(target: dict[str, Any]) -> float:
    """A target's `lastScrape` (RFC 3339, nanoseconds) in Unix seconds."""
    stamp = re.sub(r"(\.\d{6})\d*", r"\1", target["lastScrape"]).replace("Z", "+00:00")
    return datetime.fromisoformat(stamp).timestamp()
