"""The trajectory API of docs/api.md against the real stack: contract shape and bad input."""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import httpx
import pytest
from support.http import create, events_url, load, make_task
from support.stand import TODAY, admin_client, admin_requests, running_stack

from runner.stack.stack import built_sites
from services.core import perturb
from services.core.sites import registry
from services.kit.web import service_headers


def test_create_answers_the_contract(hub: httpx.Client, stack) -> None:
    body = {"task": load("grocery_category_kefir"), "task_id": "grocery_category_kefir"}
    answer = hub.post("/api/trajectories", json=body)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    assert set(created) == {"trajectory_id", "url", "prompt", "date_shift_days", "ui_variants"}
    tid = created["trajectory_id"]
    assert len(tid) == 32 and int(tid, 16) >= 0  # 128 random bits, hex
    assert created["url"] == f"{stack.hub_url}/t/{tid}/"
    assert created["url"] in created["prompt"] and "%HOST%" not in created["prompt"]
    assert created["ui_variants"]["grocery"] == {
        "theme": "light",
        "text_search": "standard",
        "inject": "none",
        "clickables": "semantic",
        "payment": "form",
        **{key: "none" for key in perturb.KEYS},
    }
    meta = hub.get(f"/api/trajectories/{tid}").json()
    assert meta["status"] == "open" and meta["today"] == TODAY
    assert meta["task_id"] == "grocery_category_kefir"


def test_create_by_task_id_reads_the_file(hub: httpx.Client) -> None:
    answer = hub.post("/api/trajectories", json={"task_id": "grocery_nav_bakery"})
    assert answer.status_code == 201
    assert "Хлеб и выпечка" in answer.json()["prompt"]


def test_dates_shift_in_prompt_and_conditions(hub: httpx.Client) -> None:
    task = make_task(
        [{"event_name": "bench_hotel_select_start_date", "parameters": {"date": "2026-09-15"}}],
        prompt="На %HOST% выбери заезд 15.09.2026 (15 сентября 2026).",
        domain="hotels",
    )
    created = create(hub, task)
    assert created.date_shift_days == 84  # whole weeks, at least a week after today
    assert "08.12.2026 (8 декабря 2026)" in created.prompt
    meta = hub.get(f"/api/trajectories/{created.trajectory_id}").json()
    assert meta["conditions"][0]["parameters"]["date"] == "2026-12-08"
    frozen = create(hub, task, today="2026-01-01")
    assert frozen.date_shift_days == 0 and "15.09.2026" in frozen.prompt


def test_ui_variants_resolve_and_override(hub: httpx.Client) -> None:
    task = make_task([{"event_name": "basket_add"}], ui_variants={"theme": "dark"})
    task["domain_configs"] = {"hotels": {"ui_variants": {"counter_guests": "pill_buttons"}}}
    created = create(hub, task)
    assert created.ui_variants["grocery"]["theme"] == "dark"
    assert created.ui_variants["hotels"]["counter_guests"] == "pill_buttons"
    overridden = create(hub, task, ui_variants={"theme": "light"})
    assert overridden.ui_variants["shop"]["theme"] == "light"


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"task": {"test_data": {"task": "x", "conditions": []}}}, 422, "conditions"),
        (
            {"task": {"test_data": {"task": "x", "conditions": [{"event_name": "fly"}]}}},
            422,
            "event_name",
        ),
        (
            {
                "task": make_task(
                    [
                        {
                            "event_name": "basket_add",
                            "parameters": {"price": {"value": 1, "condition": "big"}},
                        }
                    ]
                )
            },
            422,
            "price.condition",
        ),
        (
            {
                "task": make_task(
                    [
                        {"event_name": "basket_add"},
                        {"event_name": "add_favorites", "forbidden": "yes"},
                    ]
                )
            },
            422,
            "task.test_data.conditions[1].forbidden: expected true or false",
        ),
        (
            {"task": make_task([{"event_name": "basket_add", "forbidden": True, "group": "g"}])},
            422,
            "task.test_data.conditions[0].forbidden: a forbidden condition cannot be in a group",
        ),
        (
            {"task": make_task([{"event_name": "basket_add"}]), "ui_variants": {"theme": "neon"}},
            422,
            "ui_variants.theme",
        ),
        ({"task": make_task([{"event_name": "basket_add"}]), "today": "31.12.2026"}, 422, "today"),
        ({"task_id": "no_such_task"}, 404, "task_id"),
        ({"task_id": "../../etc/passwd"}, 404, "task_id"),
        ({}, 422, "task"),
    ],
    ids=[
        "no-conditions",
        "unknown-event",
        "unknown-operator",
        "forbidden-not-bool",
        "forbidden-in-group",
        "unknown-variant",
        "bad-today",
        "unknown-task-id",
        "traversal-task-id",
        "empty-body",
    ],
)
def test_create_refuses_bad_input(hub: httpx.Client, body: dict, status: int, field: str) -> None:
    answer = hub.post("/api/trajectories", json=body)
    assert answer.status_code == status, answer.text
    assert field in answer.json()["detail"]


def test_malformed_json_is_422(hub: httpx.Client) -> None:
    answer = hub.post(
        "/api/trajectories", content=b'{"task": ', headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 422 and "body" in answer.json()["detail"]


def test_admin_api_needs_the_token(agent: httpx.Client, hub: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    for method, path in admin_requests(tid):
        assert agent.request(method, path, json={}).status_code == 401, path
        wrong = {"Authorization": "Bearer " + "x" * 43}
        assert agent.request(method, path, json={}, headers=wrong).status_code == 401, path


def test_unknown_trajectory_is_404(hub: httpx.Client, agent: httpx.Client) -> None:
    ghost = "0" * 32
    assert hub.get(f"/api/trajectories/{ghost}").status_code == 404
    assert hub.get(f"/api/trajectories/{ghost}/check").status_code == 404
    assert hub.post(f"/api/trajectories/{ghost}/close").status_code == 404
    assert agent.get(f"/t/{ghost}/grocery/").status_code == 404
    assert agent.post(f"/t/{ghost}/grocery/_events", json={"type": "click"}).status_code == 404
    assert agent.get("/t/not-a-tid/").status_code == 404


def test_page_events_validated_and_closed_is_409(hub: httpx.Client, agent: httpx.Client) -> None:
    tid = create(hub).trajectory_id
    url = events_url(agent, f"/t/{tid}/grocery/")
    ok = agent.post(
        url,
        json=[
            {"type": "click", "params": {"x": 1, "y": 2}},
            {"type": "scroll", "params": {"y": 300}},
        ],
    )
    assert ok.status_code == 200 and ok.json()["accepted"] == 2
    cases = [
        (b"{not json", "body"),
        (b'{"type": "teleport", "params": {}}', "events[0].type"),
        (b'{"type": "click", "params": {"x": "left"}}', "events[0].params.x"),
        (b'[{"type": "click"}, {"type": "keypress", "params": {}}]', "events[1].params.key"),
        (
            b'{"type": "basket_add", "params": {"item_id": "g-0001", "amount": 1, '
            b'"title": "x", "price": 1}}',
            "events[0].type",
        ),  # server-written: a page cannot
        (b'{"type": "click", "id": "../x", "params": {}}', "events[0].id"),
    ]
    for body, field in cases:
        answer = agent.post(url, content=body)
        assert answer.status_code == 422, (body, answer.text)
        assert answer.json()["field"].startswith(field) or field in answer.json()["detail"]
    big = agent.post(
        url, content=b'{"type": "click", "params": {"target": "' + b"x" * 300_000 + b'"}}'
    )
    assert big.status_code == 413
    events = hub.get(f"/api/trajectories/{tid}/events").json()["events"]
    written = [e["type"] for e in events if e["source"] == "page"]
    assert written == ["click", "scroll"]  # nothing refused was stored
    closed = hub.post(f"/api/trajectories/{tid}/close", json={"completion": True})
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert agent.post(url, json={"type": "click", "params": {}}).status_code == 409
    assert agent.post(f"/t/{tid}/grocery/cart/g-0001", data={"op": "add"}).status_code == 409
    assert hub.post(f"/api/trajectories/{tid}/close").status_code == 409
    assert len(hub.get(f"/api/trajectories/{tid}/events").json()["events"]) == len(events)


def test_the_agents_report_is_a_server_event_no_page_can_write(
    hub: httpx.Client, agent: httpx.Client
) -> None:
    """The close body's report becomes the hub's `agent_report` event before the trajectory
    closes; a page that posts one (a site's or the hub's own `_events`) is refused."""
    tid = create(hub).trajectory_id
    report = {"type": "agent_report", "params": {"status": "done", "message": "Готово"}}
    for page in (f"/t/{tid}/grocery/", f"/t/{tid}/"):  # a site's page, the hub's page
        forged = agent.post(events_url(agent, page), json=report)
        assert forged.status_code == 422, forged.text
        assert forged.json()["field"] == "events[0].type"
        assert "written by the server" in forged.json()["detail"]
    bad = hub.post(f"/api/trajectories/{tid}/close", json={"report_status": "finished"})
    assert bad.status_code == 422 and bad.json()["field"] == "report_status"
    body = {"completion": False, "final_message": "Такого чая нет", "report_status": "infeasible"}
    closed = hub.post(f"/api/trajectories/{tid}/close", json=body)
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    events = hub.get(f"/api/trajectories/{tid}/events", params={"types": "agent_report"})
    (logged,) = events.json()["events"]
    assert (logged["site"], logged["source"]) == ("hub", "server")
    assert logged["params"] == {"status": "infeasible", "message": "Такого чая нет"}
    conditions = [{"event_name": "agent_report", "parameters": {"status": "infeasible"}}]
    held = hub.post("/api/check", json={"conditions": conditions, "events": [logged]}).json()
    assert held["ems"] == 1


def test_stateless_check(hub: httpx.Client) -> None:
    events = [
        {"type": "basket_add", "params": {"item_id": "a", "amount": 2}},
        {"type": "basket_add", "params": {"item_id": "a", "amount": 3}},
    ]
    answer = hub.post(
        "/api/check",
        json={
            "conditions": [{"event_name": "basket_add", "parameters": {"amount": 2}}],
            "events": events,
        },
    )
    assert answer.status_code == 200 and answer.json()["ems"] == 0  # added two, then one more
    bad = hub.post("/api/check", json={"conditions": "x", "events": []})
    assert bad.status_code == 422 and "conditions" in bad.json()["detail"]


def test_status_reports_every_service_to_the_admin_only(
    hub: httpx.Client, agent: httpx.Client
) -> None:
    answer = hub.get("/api/status")
    assert answer.status_code == 200
    services = answer.json()["services"]
    assert {"hub", "nats", "events", "verifier", "site:grocery"} <= set(services)
    assert all(item["ready"] for item in services.values())
    # Each site's version, as its /ready says it (services/CHANGES.md).
    versions = answer.json()["site_versions"]
    assert versions == {d: registry().site(d).version for d in versions}  # type: ignore[union-attr]
    assert services["site:grocery"]["version"] == versions["grocery"] >= 2
    assert agent.get("/api/status").json() == {"status": "ready"}  # no address, no port


def test_tabs_of_sites_not_built_say_so(processes, tmp_path) -> None:
    """A stack with Продукты only: the hub page still has six tabs, the five others say they
    are not open yet, and an unknown domain is 404."""
    grocery = {"grocery": built_sites()["grocery"]}
    with running_stack(tmp_path, sites=grocery) as stack, admin_client(stack) as hub:
        tid = create(hub).trajectory_id
        agent = f"{stack.hub_url}/t/{tid}"
        hub_page = httpx.get(f"{agent}/")
        assert hub_page.status_code == 200
        for caption in ("Маркет", "Книги", "Продукты", "Поезда", "Отели", "Файлы"):
            assert caption in hub_page.text
        assert hub_page.text.count("скоро откроется") == 5
        assert httpx.get(f"{agent}/grocery/").status_code == 200
        for domain in ("shop", "books", "rail", "hotels", "files"):
            answer = httpx.get(f"{agent}/{domain}/")
            assert answer.status_code == 404 and "пока не открыт" in answer.text, domain
        assert httpx.get(f"{agent}/casino/").status_code == 404


def test_health_and_metrics(stack) -> None:
    for name, process in stack.processes.items():
        if name == "nats":
            continue
        assert httpx.get(f"{process.url}/alive").status_code == 200
        assert httpx.get(f"{process.url}/ready").status_code == 200
        metrics = httpx.get(f"{process.url}/metrics", headers=service_headers(stack.service_token))
        assert "wpb_http_requests_total" in metrics.text


def raw_get(stack, path: str) -> tuple[int, dict[str, str], bytes]:
    """A GET with the path sent exactly as written (httpx would resolve dot segments)."""
    parts = urlsplit(stack.hub_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


@pytest.mark.parametrize(
    "path",
    [
        "/t/{tid}/grocery/../../../openapi.json",
        "/t/{tid}/grocery/../../../metrics",
        "/t/{tid}/grocery/%2e%2e/%2e%2e/%2e%2e/docs",
        "/t/{tid}/files/c/manuals/2023/..%2f..%2f..%2fopenapi.json",
        "/_site/files/%2e%2e/openapi.json",
        "/_site/grocery/..%5c..%5copenapi.json",
    ],
)
def test_the_proxy_refuses_dot_segments(hub: httpx.Client, stack, path: str) -> None:
    tid = create(hub).trajectory_id
    status, _, body = raw_get(stack, path.format(tid=tid))
    assert status == 404, body[:200]
    assert b"openapi" not in body and b"wpb_http_requests_total" not in body


def test_a_site_redirect_stays_on_the_hub(hub: httpx.Client, stack) -> None:
    tid = create(hub, make_task([{"event_name": "basket_add"}], domain="shop")).trajectory_id
    for path in (f"/t/{tid}/shop/cart/", f"/t/{tid}/grocery/cart/", f"/t/{tid}/rail/cart/"):
        status, headers, _ = raw_get(stack, path)
        assert status in (301, 302, 303, 307, 308), (path, status)
        location = {k.lower(): v for k, v in headers.items()}["location"]
        assert location == path.rstrip("/"), location
