"""Bad input through the hub, as an adversarial user sends it (issue 11): every answer is a
4xx naming what was wrong, never a 5xx, and one client's bad request never becomes another
client's 502."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from support.http import create, events_url, make_task
from support.stand import admin_requests

DEEP = b"[" * 100_000


def raw(
    stack, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """A request sent exactly as written: the path unnormalised, header values as bytes
    (a `str` header value goes out as its latin-1 bytes)."""
    parts = urlsplit(stack.hub_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def utf8(text: str) -> str:
    """`text`'s UTF-8 bytes as http.client sends a header: each byte one latin-1 character."""
    return text.encode().decode("latin-1")


def field_of(body: bytes) -> str:
    return str(json.loads(body)["field"])


@pytest.fixture(scope="module")
def tid(hub: httpx.Client) -> str:
    return str(create(hub, make_task([{"event_name": "basket_add"}], domain="shop")).trajectory_id)


@pytest.mark.parametrize(
    "path",
    [
        "/t/{tid}/shop/%00",
        "/t/{tid}/shop/%01",
        "/t/{tid}/shop/search%7f",
        "/t/{tid}/grocery/c/%2500",
        "/t/%00/shop/",
        "/t/{tid}%01/shop/",
        "/_site/shop/%00",
        "/_site/files/x%1f.css",
    ],
)
def test_control_characters_in_a_path_are_404(stack, tid: str, path: str) -> None:
    status, body = raw(stack, "GET", path.format(tid=tid))
    assert status == 404, body[:300]
    assert field_of(body) == "path"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/t/{tid}/grocery/_events", DEEP),
        ("/t/{tid}/hub/_events", DEEP),
        (
            "/t/{tid}/rail/_events",
            b'{"type": "select_city", "params": ' + b"[" * 40 + b"]" * 40 + b"}",
        ),
        ("/api/trajectories", DEEP),
        ("/api/check", DEEP),
        ("/api/check", b'{"conditions": ' + b"[" * 400 + b"]" * 400 + b', "events": []}'),
        ("/api/trajectories/{tid}/close", DEEP),
    ],
    ids=["site-events", "hub-events", "site-events-40", "create", "check", "check-400", "close"],
)
def test_deep_nesting_is_refused_naming_the_body(
    hub: httpx.Client, agent: httpx.Client, tid: str, path: str, body: bytes
) -> None:
    if path.endswith("/_events"):  # from a page served to the trajectory, with its token
        path = events_url(agent, path.format(tid=tid).removesuffix("_events").replace("/hub/", "/"))
    answer = hub.post(path.format(tid=tid), content=body)
    assert answer.status_code == 422, answer.text[:300]
    assert answer.json()["field"] == "body" and "nested" in answer.json()["message"]


def test_the_tracking_pre_check_takes_any_type(agent: httpx.Client, tid: str) -> None:
    url = events_url(agent, f"/t/{tid}/rail/")
    answer = agent.post(url, json={"type": [], "params": {}})
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == "events[0].type"


@pytest.mark.parametrize(
    ("path", "status", "field"),
    [
        ("/t/{tid}/shop/search?q=a&price_min=%C2%B2", 422, "price_min"),
        ("/t/{tid}/shop/search?q=a&price_max=%D9%A3", 422, "price_max"),  # Arabic-Indic 3
        ("/t/{tid}/shop/search?q=a&price_min=" + "9" * 5000, 422, "price_min"),
        ("/t/{tid}/files/c/lab-reports?year=%C2%B2", 422, "year"),
        ("/t/{tid}/files/c/lab-reports?year=1_999", 422, "year"),
        ("/t/{tid}/files/c/lab-reports/%C2%B2/x.pdf", 404, None),
        ("/t/{tid}/files/c/lab-reports/" + "1" * 5000 + "/x.pdf", 404, None),
    ],
)
def test_only_ascii_digits_are_numbers(
    stack, tid: str, path: str, status: int, field: str | None
) -> None:
    answer, body = raw(stack, "GET", path.format(tid=tid))
    assert answer == status, body[:300]
    if field:
        assert f'data-field="{field}"'.encode() in body


def test_the_year_field_still_takes_a_year(agent: httpx.Client, tid: str) -> None:
    answer = agent.get(f"/t/{tid}/files/c/lab-reports", params={"year": " 2025 "})
    assert answer.status_code == 200 and "f-error" not in answer.text


DATED = make_task(
    [{"event_name": "bench_hotel_select_start_date", "parameters": {"date": "2026-09-15"}}],
    prompt="На %HOST% выбери заезд 15.09.2026.",
    domain="hotels",
)


def task_with(**test_data: Any) -> dict[str, Any]:
    task = make_task([{"event_name": "basket_add"}])
    task["test_data"].update(test_data)
    return {"task": task}


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"task": DATED, "today": "9999-12-30"}, 422, "today"),
        ({"task": {**DATED, "domain_configs": {"shop": "x"}}}, 422, "task.domain_configs.shop"),
        (task_with(bench_first_domain=[]), 422, "task.test_data.bench_first_domain"),
        (
            task_with(conditions=[{"event_name": []}]),
            422,
            "task.test_data.conditions[0].event_name",
        ),
        ({"task_id": "**"}, 404, "task_id"),
        ({"task_id": "*"}, 404, "task_id"),
        ({"task_id": "grocery_category_k*"}, 404, "task_id"),
        ({"task_id": "grocery_category_kefi?"}, 404, "task_id"),
        ({"task_id": "a" * 300}, 404, "task_id"),
        ({"task_id": ["grocery_category_kefir"]}, 422, "task_id"),
        (task_with(task="%HOST%" * 40_000), 413, "task"),
        (
            task_with(
                conditions=[
                    {"event_name": "click", "parameters": {"x": {"value": 1, "condition": []}}}
                ]
            ),
            422,
            "task.test_data.conditions[0].parameters.x.condition",
        ),
        (
            task_with(conditions=[{"event_name": "basket_add", "match": ["any"]}]),
            422,
            "task.test_data.conditions[0].match",
        ),
    ],
    ids=[
        "today-9999",
        "domain-config-not-object",
        "first-domain-list",
        "event-name-list",
        "task-id-**",
        "task-id-*",
        "task-id-prefix*",
        "task-id-?",
        "task-id-300",
        "task-id-list",
        "huge-prompt",
        "operator-list",
        "match-list",
    ],
)
def test_create_refuses_hostile_input(
    hub: httpx.Client, body: dict[str, Any], status: int, field: str
) -> None:
    answer = hub.post("/api/trajectories", json=body)
    assert answer.status_code == status, answer.text[:300]
    assert answer.json()["field"] == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (
            b'{"conditions": [{"event_name": "click", "parameters": {"x": "\\ud800"}}],'
            b' "events": []}',
            "conditions[0].parameters.x",
        ),
        (b'{"conditions": [], "events": [{"type": "click", "\\udfff": 1}]}', "events[0]"),
        (
            b'{"conditions": [{"event_name": "click", "parameters": {"x": {"value": 1,'
            b' "condition": []}}}], "events": []}',
            "conditions[0].parameters.x.condition",
        ),
        (b'{"conditions": [{"event_name": "click", "match": ["any"]}], "events": []}', None),
        (
            b'{"conditions":[{"event_name":"click","parameters":{"x":"x"}}],'
            b'"events":[{"type":"click","params":{"x":"x"},"seq":"x"}]}',
            "events[0].seq",
        ),
        (b'{"conditions": [], "events": [{"type": "click", "site": 7}]}', "events[0].site"),
        (
            b'{"conditions": [{"event_name": "click", "group": true}], "events": []}',
            "conditions[0].group",
        ),
    ],
    ids=["surrogate", "surrogate-key", "operator-list", "match-list", "seq", "site", "group"],
)
def test_check_refuses_hostile_input(hub: httpx.Client, body: bytes, field: str | None) -> None:
    answer = hub.post("/api/check", content=body)
    assert answer.status_code == 422, answer.text[:300]
    assert answer.json()["field"] == (field or "conditions[0].match")


def test_a_check_body_is_passed_on_as_it_came(hub: httpx.Client) -> None:
    """A body within the limit that outgrows it when encoded again (every non-ASCII
    character escaped) reaches the verifier as it came: checked, or refused naming the
    field; once the verifier refused it half-sent and the hub answered 503 "unreachable"."""
    events = [{"type": "click", "params": {"target": "😀" * 30}}] * 1500
    for conditions, status in (([], 200), (" ", 422)):
        body = json.dumps({"conditions": conditions, "events": events}, ensure_ascii=False)
        assert len(body.encode()) < 256 * 1024 < len(json.dumps(events))
        answer = hub.post("/api/check", content=body.encode())
        assert answer.status_code == status, answer.text[:300]
    assert answer.json()["field"] == "conditions"


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": utf8("Bearer é")},
        {"Authorization": utf8("Bearer " + "я" * 43)},
        {"Cookie": utf8("wpb_admin=я")},
    ],
    ids=["bearer-e", "bearer-ya", "cookie"],
)
def test_a_non_ascii_token_is_401(stack, tid: str, headers: dict[str, str]) -> None:
    for method, path in admin_requests(tid):
        status, body = raw(stack, method, path, b"{}", headers)
        assert status == 401, (method, path, body[:300])


def test_a_non_ascii_login_token_is_401(agent: httpx.Client) -> None:
    answer = agent.get("/view/login", params={"token": "я"})
    assert answer.status_code == 401 and answer.json()["field"] == "token"


@pytest.mark.parametrize(
    ("path", "body", "content_type", "status", "field"),
    [
        ("/t/{tid}/rail/passengers/%C2%B2", b"", None, 422, "index"),
        (
            "/t/{tid}/rail/train/x/seat",
            b"seat=%C2%B2",
            "application/x-www-form-urlencoded",
            422,
            "seat",
        ),
        ("/t/{tid}/rail/train/x/seat", b"", "application/x-www-form-urlencoded", 422, "seat"),
        ("/t/{tid}/rail/train/x/seat", b"--x\r\nbroken", "multipart/form-data", 400, "body"),
        ("/api/trajectories/{tid}/events?after=-1", None, None, 422, "after"),
        ("/api/trajectories/{tid}/events?after=" + "9" * 30, None, None, 422, "after"),
    ],
    ids=["path-int", "form-int", "form-missing", "multipart-no-boundary", "after<0", "after-huge"],
)
def test_framework_errors_name_the_field(
    stack,
    tid: str,
    path: str,
    body: bytes | None,
    content_type: str | None,
    status: int,
    field: str,
) -> None:
    headers = {"Authorization": f"Bearer {stack.token}"}
    if content_type:
        headers["Content-Type"] = content_type
    method = "GET" if body is None else "POST"
    answer, text = raw(stack, method, path.format(tid=tid), body, headers)
    assert answer == status, text[:300]
    shown = json.loads(text)
    assert shown["field"] == field and shown["detail"] == f"{field}: {shown['message']}"


def test_events_honour_types_and_after(hub: httpx.Client, agent: httpx.Client, tid: str) -> None:
    url = events_url(agent, f"/t/{tid}/grocery/")
    agent.post(url, json=[{"type": "click", "params": {}}, {"type": "scroll", "params": {"y": 1}}])
    events = hub.get(f"/api/trajectories/{tid}/events").json()["events"]
    assert {"click", "scroll"} <= {event["type"] for event in events}
    scrolls = hub.get(f"/api/trajectories/{tid}/events", params={"types": "scroll"}).json()
    assert [event["type"] for event in scrolls["events"]] == ["scroll"]
    last = events[-1]["seq"]
    later = hub.get(f"/api/trajectories/{tid}/events", params={"after": last - 1}).json()
    assert [event["seq"] for event in later["events"]] == [last]


def test_a_bad_request_is_not_another_clients_502(stack, tid: str) -> None:
    """Two clients through the same hub: one sends what used to be a 500 in the site, the
    other an innocent search; nobody meets a 502."""
    statuses: dict[str, list[int]] = {"bad": [], "innocent": []}

    def send(name: str, path: str) -> None:
        with httpx.Client(base_url=stack.hub_url, timeout=30) as client:
            for _ in range(25):
                statuses[name].append(client.get(path).status_code)

    threads = [
        threading.Thread(target=send, args=("bad", f"/t/{tid}/shop/search?q=a&price_min=%C2%B2")),
        threading.Thread(target=send, args=("innocent", f"/t/{tid}/shop/search?q=a")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses["innocent"] == [200] * 25
    assert statuses["bad"] == [422] * 25


def test_the_view_of_a_condition_without_parameters(hub: httpx.Client) -> None:
    """Found by the fuzz test: the trajectory page failed on a condition that names no
    parameters."""
    tid = create(hub, make_task([{"event_name": "basket_add"}])).trajectory_id
    answer = hub.get(f"/view/trajectories/{tid}")
    assert answer.status_code == 200 and "basket_add" in answer.text
