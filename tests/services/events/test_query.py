"""The collector's query API: order, per-trajectory seq, type selection."""

from __future__ import annotations

import httpx
from support.http import create, events_url

from services.kit.web import service_headers

JSON = {"Accept": "application/json"}


def test_types_select_events_and_keep_their_seq(hub: httpx.Client, stack) -> None:
    tid = create(hub).trajectory_id
    base = f"{stack.hub_url}/t/{tid}/grocery"
    page = events_url(hub, f"{base}/")
    agent = httpx.Client(base_url=stack.hub_url)
    agent.post(page, json={"type": "click", "params": {"x": 1}}).raise_for_status()
    agent.post(f"{base}/cart/g-0002", data={"op": "add"}, headers=JSON).raise_for_status()
    agent.post(page, json={"type": "scroll", "params": {"y": 1}}).raise_for_status()
    agent.post(f"{base}/cart/g-0002", data={"op": "dec"}, headers=JSON).raise_for_status()
    collector = httpx.Client(
        base_url=stack.processes["events"].url, headers=service_headers(stack.service_token)
    )
    url = f"/trajectories/{tid}/events"
    everything = collector.get(url).json()["events"]
    assert [e["seq"] for e in everything] == list(range(1, len(everything) + 1))
    picked = collector.get(url, params={"types": "basket_add,basket_remove"}).json()["events"]
    by_id = {e["id"]: e for e in everything}
    assert [e["type"] for e in picked] == ["basket_add", "basket_remove"]
    assert all(by_id[e["id"]] == e for e in picked)  # same seq as in the whole log
    later = collector.get(url, params={"after": picked[0]["seq"]}).json()["events"]
    assert [e["seq"] for e in later] == list(range(picked[0]["seq"] + 1, len(everything) + 1))
    assert collector.get("/trajectories/xyz/events").status_code == 404
