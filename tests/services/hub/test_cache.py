"""What the services keep in memory stays true: trajectory metadata cached in each service
(kit TrajectoryCache) and the logs the collector matches check() on (events RecentLogs)."""

from __future__ import annotations

import httpx
from support.http import create, events_url, wait_events
from support.stand import close_behind_the_hub, refused_soon

from services.events.recent import RecentLogs

KEFIR = "g-0052"


def cart(agent: httpx.Client, tid: str, op: str = "inc") -> httpx.Response:
    return agent.post(
        f"/t/{tid}/grocery/cart/{KEFIR}", data={"op": op}, headers={"Accept": "application/json"}
    )


def test_a_closed_trajectory_is_refused_at_once(hub: httpx.Client, agent: httpx.Client) -> None:
    """The site has the trajectory cached as open; the first request after the close (a
    cart write, a page that writes its screen, a page event) is refused, every time."""
    for _ in range(15):
        tid = create(hub).trajectory_id
        url = events_url(agent, f"/t/{tid}/grocery/")
        assert cart(agent, tid).status_code == 200
        stored = len(wait_events(hub, tid, "basket_add"))
        assert hub.post(f"/api/trajectories/{tid}/close").status_code == 200
        assert cart(agent, tid).status_code == 409
        assert agent.get(f"/t/{tid}/grocery/").status_code == 409
        assert agent.post(url, json={"type": "click", "params": {}}).status_code == 409
        assert len(wait_events(hub, tid, "basket_add")) == stored


def test_a_write_by_another_service_reaches_every_cache(
    stack, hub: httpx.Client, agent: httpx.Client
) -> None:
    tid = create(hub).trajectory_id
    assert cart(agent, tid).status_code == 200  # the hub and the site have it cached, open
    close_behind_the_hub(stack, tid)
    refused_soon(lambda: cart(agent, tid))
    assert hub.get(f"/api/trajectories/{tid}").json()["status"] == "closed"


def test_check_from_memory_agrees_with_the_stored_log(hub: httpx.Client, agent) -> None:
    """check() after every step (the collector's log in memory grows batch by batch) gives
    the verdict the stateless check gives on the whole stored log."""
    conditions = [{"event_name": "basket_add", "parameters": {"item_id": KEFIR, "amount": 3}}]
    task = {"test_data": {"bench_first_domain": "grocery", "task": "x", "conditions": conditions}}
    tid = create(hub, task).trajectory_id
    scores = []
    for step, op in enumerate(["inc", "inc", "dec", "inc", "inc", "dec"], start=1):
        assert cart(agent, tid, op).status_code == 200
        verdict = hub.get(f"/api/trajectories/{tid}/check").json()
        events = hub.get(f"/api/trajectories/{tid}/events").json()["events"]
        assert len([e for e in events if e["type"].startswith("basket_")]) == step
        stateless = hub.post("/api/check", json={"conditions": conditions, "events": events})
        assert {**verdict, "trajectory_id": None} == {**stateless.json(), "trajectory_id": None}
        scores.append(verdict["ems"])
    assert scores == [0, 0, 0, 0, 1, 0]  # 1, 2, 1, 2, 3, 2 in the cart: the last one counts


def row(tid: str, stream_seq: int) -> tuple[dict, int]:
    return {"trajectory_id": tid, "id": f"e{stream_seq}", "type": "click"}, stream_seq


def test_recent_logs_number_grow_and_forget() -> None:
    logs = RecentLogs(limit=5)
    assert logs.get("a") is None
    loaded = logs.load("a", [row("a", 1), row("a", 4)])
    assert [e["seq"] for e in loaded] == [1, 2]
    logs.extend([row("b", 5), row("a", 7), row("a", 6)])  # b is not cached: left to the store
    assert [(e["seq"], e["id"]) for e in logs.get("a") or []] == [
        (1, "e1"),
        (2, "e4"),
        (3, "e6"),
        (4, "e7"),
    ]
    assert "b" not in logs and logs.held == 4
    logs.load("b", [row("b", 5), row("b", 8)])  # over the limit: the least recently used goes
    assert "a" not in logs and logs.held == 2
    logs.extend([row("b", 3)])  # older than the log's last: the log is read again next time
    assert "b" not in logs and logs.held == 0
