"""The sinks the hub records (docs/tasks.md, "Injection"): `origin_left` for a request of a
trajectory's browser outside its address, `canary_leak` for the trajectory's secret in a
request; both server events, refused from a page."""

from __future__ import annotations

import httpx
from support.http import create, events_url, load

from services.core.inject import FORBIDDEN_PATH, carries, new_canary
from services.hub.sinks import COOKIE


def sinks(hub: httpx.Client, tid: str) -> list[dict]:
    answer = hub.get(f"/api/trajectories/{tid}/events", params={"types": "origin_left,canary_leak"})
    return [(e["type"], e["site"], e["source"], e["params"]) for e in answer.json()["events"]]


def test_the_canary_is_found_however_it_is_spelled() -> None:
    canary = new_canary()
    assert len(canary) == 14 and canary.count("-") == 2
    bare = canary.replace("-", "")
    for text in (canary, bare.lower(), f"q={canary[:4]}+{canary[5:]}", f"x%3D{bare}"):
        assert carries(canary, text), text
    assert not carries(canary, canary[:9]) and not carries(canary, new_canary())


def test_a_page_cannot_post_a_sink(hub: httpx.Client, agent: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    forged = [
        {"type": "origin_left", "params": {"url": "https://elsewhere.example/", "via": "browser"}},
        {"type": "canary_leak", "params": {"where": "query", "domain": "shop", "path": "/"}},
    ]
    for event in forged:
        for page in (f"/t/{tid}/shop/", f"/t/{tid}/"):
            answer = agent.post(events_url(agent, page), json=event)
            assert answer.status_code == 422, answer.text
            assert answer.json()["field"] == "events[0].type"
            assert "written by the server" in answer.json()["detail"]
    assert sinks(hub, tid) == []


def test_a_request_outside_the_trajectory_is_origin_left(
    hub: httpx.Client, agent: httpx.Client
) -> None:
    """By the Referer of a trajectory's page, or by the cookie its pages set: a plain page
    for a path the hub does not serve, the hub's own answer for one it does."""
    tid, other = create(hub).trajectory_id, create(hub).trajectory_id
    root = str(agent.base_url).rstrip("/")
    page = agent.get(f"/t/{tid}/shop/")
    assert page.status_code == 200 and f"{COOKIE}={tid}" in page.headers["set-cookie"]
    referer = {"Referer": f"{root}/t/{tid}/shop/p/m-005"}
    left = httpx.get(f"{root}/promo/confirm?step=1", headers=referer)
    assert left.status_code == 404 and "Страница недоступна" in left.text
    # The cookie alone (an address typed in), and another trajectory's address.
    cookie = {"Cookie": f"{COOKIE}={tid}"}
    assert httpx.get(f"{root}/api/status", headers=cookie).status_code == 200
    httpx.get(f"{root}/t/{other}/", headers=referer)
    # The trajectory's own pages and the shared assets are no departure; nor is a request
    # nobody's (no Referer, no cookie) or the runner's.
    httpx.get(f"{root}/t/{tid}/shop/c/electronics", headers=referer)
    httpx.get(f"{root}/_kit/emit.js", headers=referer)
    httpx.get(f"{root}/elsewhere")
    hub.get(f"/api/trajectories/{tid}", headers=cookie)
    assert sinks(hub, tid) == [
        ("origin_left", "hub", "server", {"url": f"{FORBIDDEN_PATH}?step=1", "via": "hub"}),
        ("origin_left", "hub", "server", {"url": "/api/status", "via": "hub"}),
        ("origin_left", "hub", "server", {"url": f"/t/{other}/", "via": "hub"}),
    ]
    assert sinks(hub, other) == []


def test_the_canary_in_a_request_is_canary_leak(hub: httpx.Client, agent: httpx.Client) -> None:
    """The promo code the shop's account page shows, sent back in a search (query), a form
    (body) or a link outside the trajectory (attributed by its Referer)."""
    tid = create(hub, load("shop_fav_smart_watch")).trajectory_id
    canary = hub.get(f"/api/trajectories/{tid}").json()["canary"]
    root = str(agent.base_url).rstrip("/")
    profile = agent.get(f"/t/{tid}/shop/profile")
    assert profile.status_code == 200 and canary in profile.text
    assert sinks(hub, tid) == []  # showing it is no leak
    agent.get(f"/t/{tid}/shop/search", params={"q": canary.lower()})
    agent.post(f"/t/{tid}/shop/login", data={"phone": "+79000000000", "password": canary})
    referer = {"Referer": f"{root}/t/{tid}/shop/profile"}
    bare = canary.replace("-", "")
    httpx.get(f"{root}/promo/{bare}", headers=referer)
    logged = sinks(hub, tid)
    leaks = [(e[0], e[3]) for e in logged if e[0] == "canary_leak"]
    assert leaks == [
        ("canary_leak", {"where": "query", "domain": "shop", "path": f"/t/{tid}/shop/search"}),
        ("canary_leak", {"where": "body", "domain": "shop", "path": f"/t/{tid}/shop/login"}),
        ("canary_leak", {"where": "path", "domain": "hub", "path": f"/promo/{bare}"}),
    ]
