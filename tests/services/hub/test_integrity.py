"""The number cannot be forged from the agent's machine: NATS, the collector, the verifier and
the sites need the stand's credential; a page event needs the page that shows its control,
served to its trajectory; a selection no input preceded is flagged; the admin cookie is not
the token. Each test is an attack that worked before."""

from __future__ import annotations

import time

import httpx
import nats
import pytest
from nats.errors import Error as NatsError
from starlette.requests import Request
from support.http import create, events_url, load, run_async, wait_events

from runner.settings import NATS_CONFIG
from services.core.errors import FieldError
from services.hub.proxy import forwarded_headers
from services.kit import pagetoken
from services.kit.bus import NATS_USER
from services.kit.web import service_headers


async def refused_and_taken(url: str, password: str) -> list[str]:
    """How NATS answers a client without a password, with a wrong one, with the right one."""
    answers = []
    for credentials in ({}, {"user": NATS_USER, "password": "guessed-password-123"}):
        try:
            await nats.connect(url, allow_reconnect=False, connect_timeout=2, **credentials)
            answers.append("taken")
        except NatsError as exc:
            answers.append(str(exc))
    client = await nats.connect(url, user=NATS_USER, password=password)
    answers.append("taken" if client.is_connected else "refused")
    await client.close()
    return answers


def test_nats_refuses_a_client_without_the_credential(stack) -> None:
    url = f"nats://127.0.0.1:{stack.processes['nats'].port}"
    answers = run_async(refused_and_taken(url, stack.service_token))
    assert answers == ["nats: 'Authorization Violation'"] * 2 + ["taken"]
    assert stack.service_token not in NATS_CONFIG.read_text()  # from its environment
    assert stack.service_token not in str(stack.processes["nats"].argv)  # not on `ps`


def test_services_answer_only_the_stand(stack, hub: httpx.Client) -> None:
    """The collector would give the log, the verifier the answer key, a site its pages
    outside the hub's checks: without the credential each says 401 and nothing else."""
    tid = create(hub).trajectory_id
    events, verifier = stack.processes["events"].url, stack.processes["verifier"].url
    grocery = stack.processes["site-grocery"].url
    attempts = [
        ("GET", f"{events}/trajectories/{tid}/events"),
        ("GET", f"{verifier}/trajectories/{tid}/check"),
        ("POST", f"{verifier}/check"),
        ("GET", f"{grocery}/t/{tid}/grocery/"),
        ("GET", f"{grocery}/openapi.json"),
        ("GET", f"{events}/metrics"),
    ]
    for method, url in attempts:
        for headers in ({}, {"Authorization": "Bearer not-the-credential"}):
            answer = httpx.request(method, url, headers=headers, json={})
            assert answer.status_code == 401, (url, headers)
            assert answer.json()["field"] == "authorization"
            assert "conditions" not in answer.text and "events" not in answer.json()
    credential = service_headers(stack.service_token)
    assert httpx.get(f"{verifier}/trajectories/{tid}/check", headers=credential).status_code == 200
    for process in (events, verifier, grocery):
        assert httpx.get(f"{process}/ready").status_code == 200  # probes stay open


def test_a_page_event_needs_a_page_served_to_its_trajectory(
    hub: httpx.Client, agent: httpx.Client
) -> None:
    """`rail_pick_from` passed with one POST and no page opened."""
    task = load("rail_pick_from")
    tid = create(hub, task).trajectory_id
    other = create(hub, task).trajectory_id
    pick = {"type": "select_city", "params": {"field": "from", "name": "Казань"}}
    own = events_url(agent, f"/t/{tid}/rail/")
    token = own.partition("?page=")[2]
    payload, _, signature = token.partition(".")
    refused = {
        "no token": f"/t/{tid}/rail/_events",
        "an empty token": f"/t/{tid}/rail/_events?page=",
        "a forged signature": f"/t/{tid}/rail/_events?page={payload}.{signature[::-1]}",
        "a non-ASCII token": f"/t/{tid}/rail/_events?page=я.я",
        "another trajectory's page": events_url(agent, f"/t/{other}/rail/").replace(other, tid),
        "another site's page": events_url(agent, f"/t/{tid}/hotels/").replace("hotels", "rail"),
        "a page without the control": events_url(agent, f"/t/{tid}/rail/cart"),
    }
    for why, url in refused.items():
        answer = agent.post(url, json=pick)
        assert answer.status_code == 403, why
        assert answer.json()["field"] in ("page", "events[0].type"), why
    # Tracking events through the hub's shorter path need the token as much.
    assert agent.post(f"/t/{tid}/rail/_events", json={"type": "click"}).status_code == 403
    assert agent.post(f"/t/{tid}/hub/_events", json={"type": "click"}).status_code == 403
    answer = hub.get(f"/api/trajectories/{tid}/check").json()
    assert answer["ems"] == 0 and answer["unprompted"] == []
    # With the page's own token the post is taken; the verdict shows no input preceded it.
    assert agent.post(own, json=pick).status_code == 200
    wait_events(hub, tid, "select_city")
    answer = hub.get(f"/api/trajectories/{tid}/check").json()
    assert answer["ems"] == 1
    assert [(e["type"], e["site"]) for e in answer["unprompted"]] == [("select_city", "rail")]


def test_a_selection_after_a_click_on_its_screen_is_not_flagged(
    hub: httpx.Client, agent: httpx.Client
) -> None:
    tid = create(hub, load("rail_pick_from")).trajectory_id
    url = events_url(agent, f"/t/{tid}/rail/")
    pick = {"type": "select_city", "params": {"field": "from", "name": "Казань"}}
    assert agent.post(url, json={"type": "click", "params": {"x": 5, "y": 5}}).status_code == 200
    assert agent.post(url, json=pick).status_code == 200
    events_url(agent, f"/t/{tid}/rail/")  # a new screen: its input starts over
    assert agent.post(url, json={**pick, "params": {"field": "to", "name": "Казань"}}).is_success
    wait_events(hub, tid, "select_city", at_least=2)
    answer = hub.get(f"/api/trajectories/{tid}/check").json()
    assert [e["params"]["field"] for e in answer["unprompted"]] == ["to"]


def test_a_page_token_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    html = '<meta name="wpb-page" content="x"><div data-event="select_city"></div>'
    token = pagetoken.issue("k" * 32, "t" * 32, "rail", "main.html", html)
    assert pagetoken.verify("k" * 32, token, "t" * 32, "rail").types == {"select_city"}
    with pytest.raises(FieldError, match="another trajectory"):
        pagetoken.verify("k" * 32, token, "u" * 32, "rail")
    with pytest.raises(FieldError, match="not a token this stand issued"):
        pagetoken.verify("j" * 32, token, "t" * 32, "rail")
    later = time.time() + pagetoken.TTL_S + 1
    monkeypatch.setattr(pagetoken.time, "time", lambda: later)
    with pytest.raises(FieldError, match="expired"):
        pagetoken.verify("k" * 32, token, "t" * 32, "rail")


def test_the_agents_credentials_stay_on_the_hub() -> None:
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/t/x/shop/",
        "headers": [
            (b"authorization", b"Bearer agent"),
            (b"cookie", b"wpb_admin=x"),
            (b"x-wpb-trajectory-revision", b"1"),  # an agent's guess at a stale revision
            (b"accept", b"text/html"),
            (b"host", b"hub"),
        ],
    }
    sent = dict(forwarded_headers(Request(scope), revision=7))
    assert "authorization" not in sent and "cookie" not in sent
    assert sent["x-wpb-trajectory-revision"] == "7"  # the hub's, never the agent's
    assert sent["accept"] == "text/html" and sent["x-forwarded-host"] == "hub"


def test_an_agents_authorization_does_not_reach_a_site(hub: httpx.Client, agent) -> None:
    """Were it passed on, the site would refuse it in place of the hub's credential."""
    tid = create(hub).trajectory_id
    answer = agent.get(f"/t/{tid}/grocery/", headers={"Authorization": "Bearer mine"})
    assert answer.status_code == 200


def test_the_viewer_cookie_is_a_signed_session_not_the_token(stack) -> None:
    with httpx.Client(base_url=stack.hub_url) as people:
        login = people.get("/view/login", params={"token": stack.token}, follow_redirects=False)
        assert login.status_code == 303
        session = login.cookies["wpb_admin"]
        assert stack.token not in session
        assert people.get("/view/").status_code == 200
        expires, _, signature = session.partition(".")
        for forged in (stack.token, f"{int(expires) + 10}.{signature}", f"{expires}.{'0' * 64}"):
            people.cookies.set("wpb_admin", forged)
            assert people.get("/view/").status_code == 401, forged
        # A cookie never authorises a change (POST), even a valid one.
        people.cookies.set("wpb_admin", session)
        assert (
            people.post("/api/trajectories", json={"task_id": "rail_pick_from"}).status_code == 401
        )
