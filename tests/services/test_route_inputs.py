"""No request takes the stand down (issue 21). Every route of the hub, the collector, the
verifier and the six sites, listed from the apps' own route tables (a route added later is
covered by adding it), gets arbitrary strings in every path parameter, query parameter, form
field and JSON body field: long ones, empty ones, NATS wildcards and separators, spaces,
control characters, non-ASCII. No answer is a 5xx, and afterwards every service is still
ready and the stand still creates and serves a trajectory.

The sites are reached as the agent reaches them (through the hub, no credential) and as the
hub reaches them (directly, with the service credential and an arbitrary revision header).
The budget is fixed: derandomized, a bounded number of examples per route, no shrinking.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from hypothesis import given
from hypothesis import strategies as st
from starlette.routing import Mount
from support.http import fixed_budget
from support.stand import admin_client, running_stack, serves_a_trajectory

from runner.stack.stack import Stack
from services.kit.settings import EventsSettings, HubSettings, SiteSettings, VerifierSettings
from services.kit.trajectory import REVISION_HEADER
from services.kit.web import service_headers

EXAMPLES = 12  # per route and way in; about 150 routes × ways in all

# The fields of every JSON body a route reads by hand (json_object / read_json): the trajectory
# API's (task, task_id, ui_variants, today; completion, final_message), check()'s (conditions,
# events) and a page's events (type, params, id).
JSON_FIELDS = (
    "task",
    "task_id",
    "ui_variants",
    "today",
    "completion",
    "final_message",
    "conditions",
    "events",
    "type",
    "params",
    "id",
)

# Values that once reached a subject, a key or a header unchecked, or could.
NASTY = [
    "",
    " ",
    "*",
    ">",
    ".",
    "..",
    "a.b",
    "a b",
    "a*b",
    "wpb.events.>",
    "\x00",
    "\n",
    "\r\n",
    "\t",
    "%",
    "%2e%2e",
    "/",
    "\\",
    "Цюрих",
    "😀",
    "0" * 32 + "\n",
    "F" * 32,
    "0" * 33,
    "x" * 5000,
    "9" * 5000,
    "ab." * 2000,
]
TEXT = st.characters(blacklist_categories=("Cs",))  # a lone surrogate is no text to send
ARBITRARY = st.one_of(
    st.sampled_from(NASTY),
    st.text(TEXT, max_size=40),
    st.builds(lambda c, n: c * n, st.text(TEXT, min_size=1, max_size=3), st.integers(1000, 3000)),
)


PLACEHOLDER = re.compile(r"{(\w+)(?::path)?}")


@dataclass(frozen=True)
class Route:
    service: str  # hub, events, verifier or site-DOMAIN
    path: str  # the template: /t/{tid}/grocery/cart/{item_id}
    method: str
    path_params: tuple[str, ...]
    query: tuple[str, ...]
    form: tuple[str, ...]


def apps(stack: Stack) -> dict[str, FastAPI]:
    """Every service's app, built in this process as its process builds it (the routes are
    read from it, never served)."""
    token = stack.service_token
    built = {
        "hub": importlib.import_module("services.hub.app").create_app(
            HubSettings(service_token=token, admin_token=stack.token, home=stack.home)
        ),
        "events": importlib.import_module("services.events.app").create_app(
            EventsSettings(service_token=token)
        ),
        "verifier": importlib.import_module("services.verifier.app").create_app(
            VerifierSettings(service_token=token)
        ),
    }
    for domain, module in stack.sites.items():
        factory = importlib.import_module(module).create_app
        built[f"site-{domain}"] = factory(SiteSettings(service_token=token))
    return built


def form_fields(schema: dict[str, Any], operation: dict[str, Any]) -> tuple[str, ...]:
    """The fields of an operation's form body (none for a JSON body or none at all)."""
    content = operation.get("requestBody", {}).get("content", {})
    form = content.get("application/x-www-form-urlencoded", {}).get("schema", {})
    if "$ref" in form:
        form = schema["components"]["schemas"][form["$ref"].rsplit("/", 1)[-1]]
    return tuple(form.get("properties", {}))


def routes_of(service: str, app: FastAPI) -> Iterator[Route]:
    """The app's routes: those it declares itself (health, metrics, static mounts) from its
    route list, those of its routers from the route table it describes itself (its OpenAPI
    document, built in this process; every route of a router is in it)."""
    for route in app.routes:
        if isinstance(route, APIRoute):
            params = tuple(PLACEHOLDER.findall(route.path))
            for method in sorted(route.methods or ()):
                yield Route(service, route.path, method, params, (), ())
        elif isinstance(route, Mount):  # static files
            path = route.path.replace("{domain}", "grocery")
            yield Route(service, f"{path}/{{path}}", "GET", ("path",), (), ())
    with warnings.catch_warnings():  # the proxy's one route has an operation per method
        warnings.simplefilter("ignore", UserWarning)
        schema = app.openapi()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            parameters = operation.get("parameters", [])
            path_params = tuple(PLACEHOLDER.findall(path))
            query = tuple(p["name"] for p in parameters if p["in"] == "query")
            form = form_fields(schema, operation)
            yield Route(service, path, method.upper(), path_params, query, form)


def all_routes(stack: Stack) -> list[Route]:
    found = [r for name, app in apps(stack).items() for r in routes_of(name, app)]
    assert {r.service for r in found} == {"hub", "events", "verifier"} | {
        f"site-{d}" for d in stack.sites
    }
    return found


@st.composite
def request_for(draw: Callable[..., Any], route: Route, tid: str) -> dict[str, Any]:
    """One request to `route`: each path parameter arbitrary (or, for `tid`, often the real
    trajectory, so the rest is reached), arbitrary query and form values, and for a method
    with a body either form fields or a JSON object of arbitrary strings (or a raw body)."""
    path = route.path
    for name in route.path_params:
        value = draw(st.one_of(st.just(tid), ARBITRARY)) if name == "tid" else draw(ARBITRARY)
        path = path.replace(f"{{{name}}}", quote(value, safe=""), 1)
        path = path.replace(f"{{{name}:path}}", quote(value, safe=""), 1)
    query = {name: draw(ARBITRARY) for name in route.query if draw(st.booleans())}
    if draw(st.booleans()):
        query["page"] = draw(ARBITRARY)  # a page's token (`_events`)
    request: dict[str, Any] = {"method": route.method, "url": path, "params": query}
    if route.method in ("POST", "PUT", "PATCH"):
        if route.form:
            request["data"] = {name: draw(ARBITRARY) for name in route.form}
        else:
            fields = draw(st.lists(st.sampled_from(JSON_FIELDS), max_size=4, unique=True))
            body = {name: draw(ARBITRARY) for name in fields}
            request["json"] = draw(st.sampled_from([body, [body], draw(ARBITRARY)]))
    return request


def send_all(route: Route, base: str, headers: dict[str, str], tid: str, errors: list[str]) -> int:
    """`EXAMPLES` generated requests to `route` at `base`; every 5xx goes into `errors`.
    Returns how many were sent (httpx refuses some as no HTTP at all)."""
    sent = 0
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:

        @fixed_budget(EXAMPLES)
        @given(request=request_for(route, tid), revision=ARBITRARY)
        def send(request: dict[str, Any], revision: str) -> None:
            nonlocal sent
            extra = {REVISION_HEADER: revision} if "Authorization" in headers else {}
            try:
                answer = client.request(**request, headers=extra or None)
            except (httpx.InvalidURL, UnicodeEncodeError, httpx.LocalProtocolError):
                return  # not sendable as HTTP at all (httpx refuses it)
            sent += 1
            if answer.status_code >= 500:
                errors.append(
                    f"{route.service} {request['method']} {request['url'][:120]} "
                    f"-> {answer.status_code} {answer.text[:200]}"
                )

        send()
    return sent


def ways_in(stack: Stack, route: Route) -> list[tuple[str, dict[str, str]]]:
    """(base URL, headers) by which `route` is reached: the hub with the admin token; a site
    through the hub as the agent, and directly as the hub; the collector and the verifier
    directly with the service credential."""
    service = service_headers(stack.service_token)
    if route.service == "hub":
        return [(stack.hub_url, {"Authorization": f"Bearer {stack.token}"}), (stack.hub_url, {})]
    direct = stack.processes[route.service].url
    if route.service.startswith("site-"):
        return [(stack.hub_url, {}), (direct, service)]
    return [(direct, service)]


@pytest.fixture(scope="module")
def stand(processes: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """A stand of this module's own: should a request break it, no other test sees that."""
    with running_stack(tmp_path_factory.mktemp("wpb-inputs")) as started:
        yield started


def test_a_long_trajectory_id_is_unknown_and_the_stand_keeps_working(stand: Stack) -> None:
    """The request that once closed the hub's NATS connection for good."""
    with admin_client(stand) as hub:
        for method, path in (("POST", "/close"), ("GET", ""), ("GET", "/check")):
            answer = hub.request(method, f"/api/trajectories/{'a' * 5000}{path}")
            assert answer.status_code == 404, (method, path, answer.text)
            assert answer.json()["field"] == "trajectory"
    serves_a_trajectory(stand)


def test_no_route_answers_arbitrary_strings_with_a_5xx(stand: Stack) -> None:
    routes = all_routes(stand)
    with admin_client(stand) as hub:
        tid = hub.post(
            "/api/trajectories",
            json={
                "task": {
                    "test_data": {
                        "bench_first_domain": "shop",
                        "task": "%HOST%",
                        "conditions": [{"event_name": "basket_add"}],
                    }
                }
            },
        ).json()["trajectory_id"]
    errors: list[str] = []
    # The closes last: the trajectory stays open for the others.
    ordered = sorted(routes, key=lambda route: route.path.endswith("/close"))
    sent = sum(
        send_all(route, base, headers, tid, errors)
        for route in ordered
        for base, headers in ways_in(stand, route)
    )
    print(f"{sent} requests to {len(routes)} routes")
    assert not errors, "\n".join(errors[:40])
    serves_a_trajectory(stand)
