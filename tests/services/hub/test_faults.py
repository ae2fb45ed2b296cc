"""A dead service is infrastructure, as the hub tells it: the agent's 5xx are remembered per
trajectory, a check without the collector names it, a request during a NATS restart answers
503 with Retry-After in seconds, never 500; restarts show on /metrics and /api/status. The
module has a stack of its own (unsupervised: each test restarts what it kills)."""

from __future__ import annotations

import httpx
from support.http import create, events_url
from support.stand import close_behind_the_hub, refused_soon, stand_ready

from runner.stack.stack import Stack


def test_a_dead_site_is_an_infra_fault_of_the_trajectory(
    own_hub: httpx.Client, own_stack: Stack
) -> None:
    tid = create(own_hub).trajectory_id
    clean = create(own_hub).trajectory_id
    assert own_hub.get(f"/t/{tid}/grocery/").status_code == 200
    own_stack.kill("site-grocery")
    try:
        page = own_hub.get(f"/t/{tid}/grocery/")
        assert page.status_code == 503 and "Раздел временно недоступен" in page.text
        assert page.headers["Retry-After"] == "2"
    finally:
        own_stack.restart("site-grocery")
    meta = own_hub.get(f"/api/trajectories/{tid}").json()
    assert [(f["domain"], f["status"]) for f in meta["infra_faults"]] == [("grocery", 503)]
    assert own_hub.get(f"/api/trajectories/{clean}").json()["infra_faults"] == []
    log = (own_stack.home / "logs" / "hub.log").read_text()
    assert f"answered 503 to the agent: GET /t/{tid}/grocery/" in log  # errors always
    assert "HTTP Request" not in log  # the proxy's access log is DEBUG only


def test_check_without_the_collector_answers_503_naming_it(
    own_hub: httpx.Client, own_stack: Stack
) -> None:
    tid = create(own_hub).trajectory_id
    own_stack.kill("events")
    try:
        answer = own_hub.get(f"/api/trajectories/{tid}/check")
    finally:
        own_stack.restart("events")
    assert answer.status_code == 503
    assert answer.json()["field"] == "events" and "collector" in answer.json()["message"]
    assert own_hub.get(f"/api/trajectories/{tid}/check").status_code == 200


def test_nats_down_answers_503_with_retry_after_in_seconds(
    own_hub: httpx.Client, own_stack: Stack
) -> None:
    tid = create(own_hub).trajectory_id
    url = events_url(own_hub, f"/t/{tid}/grocery/")
    own_stack.kill("nats")
    try:
        # Answered, not held: a post that waited on NATS past the client's timeout would
        # raise here instead.
        answer = own_hub.post(url, json={"type": "scroll", "params": {"y": 1}})
    finally:
        own_stack.restart("nats")
    assert answer.status_code == 503, answer.text
    assert answer.headers["Retry-After"] == "2" and answer.json()["field"] == "nats"
    stand_ready(own_hub, 30)
    again = own_hub.post(url, json={"type": "scroll", "params": {"y": 1}})
    assert again.status_code == 200, again.text
    # After the restart the services' trajectory caches still see a close written behind the
    # hub (their new subscriptions, or the bucket until they are made).
    close_behind_the_hub(own_stack, tid)
    refused_soon(lambda: own_hub.post(url, json={"type": "scroll", "params": {"y": 1}}))
    refused_soon(lambda: own_hub.post(f"/t/{tid}/grocery/cart/g-0052", data={"op": "inc"}))


def test_restarts_on_metrics_and_status(own_hub: httpx.Client, own_stack: Stack) -> None:
    before = own_hub.get("/api/status").json()["restarts"]["site-files"]
    own_stack.restart("site-files")
    status = own_hub.get("/api/status").json()
    assert status["restarts"]["site-files"] == before + 1
    metrics = own_hub.get("/metrics").text
    assert f'wpb_service_restarts_total{{service="site-files"}} {before + 1}.0' in metrics
