"""The collector's query API: order, per-trajectory seq, type selection."""

from __future__ import annotations

import httpx
import pytest
from helpers import create

pytestmark = pytest.mark.slow
JSON = {"Accept": "application/json"}


def test_types_select_events_and_keep_their_seq(hub: httpx.Client, stack) -> None:
    tid = create(hub)["trajectory_id"]
    base = f"{stack.hub_url}/t/{tid}/grocery"
    httpx.post(f"{base}/_events", json={"type": "click", "params": {"x": 1}}).raise_for_status()
    httpx.post(f"{base}/cart/g-0002", data={"op": "add"}, headers=JSON).raise_for_status()
    httpx.post(f"{base}/_events", json={"type": "scroll", "params": {"y": 1}}).raise_for_status()
    httpx.post(f"{base}/cart/g-0002", data={"op": "dec"}, headers=JSON).raise_for_status()
    events_url = f"{stack.processes['events'].url}/trajectories/{tid}/events"
    everything = httpx.get(events_url).json()["events"]
    assert [e["seq"] for e in everything] == list(range(1, len(everything) + 1))
    picked = httpx.get(events_url, params={"types": "basket_add,basket_remove"}).json()["events"]
    by_id = {e["id"]: e for e in everything}
    assert [e["type"] for e in picked] == ["basket_add", "basket_remove"]
    assert all(by_id[e["id"]] == e for e in picked)  # same seq as in the whole log
    later = httpx.get(events_url, params={"after": picked[0]["seq"]}).json()["events"]
    assert [e["seq"] for e in later] == list(range(picked[0]["seq"] + 1, len(everything) + 1))
    assert httpx.get(f"{stack.processes['events'].url}/trajectories/xyz/events").status_code == 404
