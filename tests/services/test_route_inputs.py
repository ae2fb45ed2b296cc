"""No request takes the stand down (issue 21). Every route of the hub, the collector, the
verifier and the six sites, listed from the apps' own route tables (a route added later is
covered by adding it), gets arbitrary strings in every path parameter, query parameter, form
field and JSON body field: long ones, empty ones, NATS wildcards and separators, spaces,
control characters, non-ASCII. No answer is a 5xx, and afterwards every service is still
ready and the stand still creates and serves a trajectory.

The sites are reached as the agent reaches them (through the hub, no credential) and as the
hub reaches them (directly, with the service credential and an arbitrary revision header).

A route that reads a JSON body declares its shape in its OpenAPI document (services/kit/
web.py `json_body`), and its bodies are generated from it: at every depth each field either
of its declared kind or odd (another type, an arbitrary string, a list or an object where a
plain value is due). Then, field by field: the example its schema declares, sent to the real
trajectory with each page's real token, with one field at a time, at every depth, replaced
by a value of each kind it does not take, so that the checks behind the first (the
contract's, the matching's) see every odd field alone (issue 36).

The budget is fixed: derandomized, a bounded number of examples per route (4 in `make
test`, 12 under `full`), no shrinking.
"""

from __future__ import annotations

import copy
import importlib
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from starlette.routing import Mount
from support.http import create, events_url, fixed_budget, make_task
from support.stand import admin_client, running_stack, serves_a_trajectory

from runner.stack.stack import Stack
from services.core.contract import event_types
from services.core.errors import field_path
from services.kit.settings import EventsSettings, HubSettings, SiteSettings, VerifierSettings
from services.kit.trajectory import REVISION_HEADER
from services.kit.web import service_headers

# Per route and way in (about 150 routes × ways in all): `make test`'s, `make test-full`'s.
EXAMPLES = 4
EXAMPLES_FULL = 12

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


# Strings a field takes besides arbitrary ones: the contract's event types and the names of
# their parameters, so that a generated body gets past the type to the parameters' checks.
KNOWN = sorted({*event_types(), *(name for p in event_types().values() for name in p.model_fields)})
WORD = st.one_of(ARBITRARY, st.sampled_from(KNOWN))
NUMBER = st.floats(allow_nan=False, allow_infinity=False)  # what JSON can carry
ODD = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), NUMBER, WORD),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(WORD, inner, max_size=3)),
    max_leaves=6,
)


def odd(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A value for `schema` (a JSON Schema, its definitions inlined): one time in five odd,
    else of its kind with each of its own fields `odd` in turn."""
    return st.integers(0, 4).flatmap(lambda n: ODD if n == 0 else of_kind(schema))


def of_kind(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A value of the kind `schema` declares (an object with its properties, some of those
    it does not require and some it does not name; a short list; a string, a number...)."""
    if "anyOf" in schema:
        return st.one_of([odd(member) for member in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        named = st.fixed_dictionaries(
            {k: odd(v) for k, v in properties.items() if k in required},
            optional={k: odd(v) for k, v in properties.items() if k not in required},
        )
        more = schema.get("additionalProperties")
        if not more:
            return named
        others = st.dictionaries(WORD, odd(more if isinstance(more, dict) else {}), max_size=4)
        return st.builds(lambda a, b: {**b, **a}, named, others)
    if kind == "array":
        return st.lists(odd(schema.get("items", {})), max_size=3)
    leaves = {
        "string": WORD,
        "integer": st.one_of(st.integers(-3, 1000), st.integers()),
        "number": NUMBER,
        "boolean": st.booleans(),
        "null": st.none(),
    }
    return leaves.get(kind, ODD) if isinstance(kind, str) else ODD


# A value of each JSON kind, for a field that takes another.
KINDS: dict[str, st.SearchStrategy[Any]] = {
    "string": WORD,
    "integer": st.integers(),
    "number": NUMBER,
    "boolean": st.booleans(),
    "null": st.none(),
    "array": st.lists(ODD, max_size=3),
    "object": st.dictionaries(WORD, ODD, max_size=3),
}
# What narrows a kind, so that a value of the same kind is odd too (a string no enum holds,
# or one its pattern refuses).
NARROWING = ("enum", "pattern", "minLength", "maxLength", "minimum", "maximum", "maxItems")


def kind_of(value: Any) -> str:
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}
    return "null" if value is None else kinds.get(type(value), "object")


def kinds_of(schema: dict[str, Any]) -> set[str]:
    """The JSON kinds `schema` takes (every kind where it names none)."""
    if "anyOf" in schema:
        return set().union(*(kinds_of(member) for member in schema["anyOf"]))
    if "enum" in schema:
        return {kind_of(value) for value in schema["enum"]}
    kind = schema.get("type")
    return {kind} if kind in KINDS else set(KINDS)


def odd_kinds(schema: dict[str, Any]) -> list[str]:
    """The kinds of the odd values a field gets: those it does not take; all where its
    schema narrows its kind or takes any (free-form parameters, a task: what the contract,
    the matching or the task's check judge)."""
    members = schema.get("anyOf", [schema])
    taken = kinds_of(schema)
    if taken == set(KINDS) or any(key in member for member in members for key in NARROWING):
        return list(KINDS)
    return [kind for kind in KINDS if kind not in taken]


def example(schema: dict[str, Any]) -> Any:
    """A body of `schema`'s shape: the first example it declares, or one of every property
    it names (of a union its first member, of a list one item)."""
    if "examples" in schema:
        return copy.deepcopy(schema["examples"][0])
    if "anyOf" in schema:
        return example(next(m for m in schema["anyOf"] if m.get("type") != "null"))
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {key: example(value) for key, value in schema.get("properties", {}).items()}
    if kind == "array":
        return [example(schema.get("items", {}))]
    return {"integer": 1, "number": 1.5, "boolean": True, "null": None}.get(kind, "x")


def places(
    schema: dict[str, Any], value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Every place in `value` (a body of `schema`'s shape), the whole first, with the schema
    that declares what it holds."""
    yield path, schema
    members = schema.get("anyOf", [schema])
    declared = next((m for m in members if kind_of(value) in kinds_of(m)), schema)
    if isinstance(value, dict):
        named, more = declared.get("properties", {}), declared.get("additionalProperties")
        for key, item in value.items():
            yield from places(
                named.get(key, more if isinstance(more, dict) else {}), item, (*path, key)
            )
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from places(declared.get("items", {}), item, (*path, index))


def replaced(body: Any, path: tuple[str | int, ...], value: Any) -> Any:
    """`body` with `value` at `path`."""
    if not path:
        return value
    changed = copy.deepcopy(body)
    target = changed
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return changed


PLACEHOLDER = re.compile(r"{(\w+)(?::path)?}")


@dataclass(frozen=True)
class Route:
    service: str  # hub, events, verifier or site-DOMAIN
    path: str  # the template: /t/{tid}/grocery/cart/{item_id}
    method: str
    path_params: tuple[str, ...]
    query: tuple[str, ...]
    form: tuple[str, ...]
    # The schema of its JSON body, as its OpenAPI document declares it (None: it reads none).
    body: dict[str, Any] | None = field(default=None, compare=False)


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


def body_schema(operation: dict[str, Any]) -> dict[str, Any] | None:
    """The schema of an operation's JSON body, if it reads one."""
    content = operation.get("requestBody", {}).get("content", {})
    return content.get("application/json", {}).get("schema")


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
            body = body_schema(operation)
            yield Route(service, path, method.upper(), path_params, query, form, body)


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
    with a body its form fields, or a JSON body of its declared shape, odd at every depth
    (`odd`; for a route that declares none, an object of arbitrary strings), or a raw body."""
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
        elif route.body is not None:
            request["json"] = draw(odd(route.body))
        else:
            body = draw(st.dictionaries(WORD, ARBITRARY, max_size=4))
            request["json"] = draw(st.sampled_from([body, [body], draw(ARBITRARY)]))
    return request


def send_odd_fields(
    route: Route, way_in: tuple[str, dict[str, str]], tid: str, tokens: dict[str, str]
) -> tuple[int, list[str]]:
    """The example of `route`'s body, one field at a time (at every depth, the whole body
    first) replaced by a value of each of its `odd_kinds`, to the real trajectory (a page's
    events with its page's token, the hub's on each domain in turn). Returns how many were
    sent and every 5xx, with the field that was odd."""
    assert route.body is not None
    body, (base, headers) = example(route.body), way_in
    sent, errors = 0, []
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        for index, (path, schema) in enumerate(places(route.body, body)):
            domain = route.service.removeprefix("site-")
            if "{domain}" in route.path:  # the hub's `_events`: its own page's or a site's
                domain = sorted(tokens)[index % len(tokens)]
            url = route.path.replace("{tid}", tid).replace("{domain}", domain)
            params = {"page": tokens[domain]} if url.endswith("/_events") else {}
            odd_values = st.tuples(*(KINDS[kind] for kind in odd_kinds(schema)))
            for value in drawn(odd_values, index):
                try:
                    answer = client.post(url, params=params, json=replaced(body, path, value))
                    outcome = f"{answer.status_code} {answer.text[:200]}"
                except httpx.TransportError as exc:  # the service went away
                    outcome = f"no answer ({exc!r})"
                sent += 1
                if not outcome[0].isdigit() or int(outcome[:3]) >= 500:
                    where = field_path(path) or "body"
                    errors.append(f"{route.service} POST {url} {where}={value!r:.80} -> {outcome}")
    return sent, errors


def drawn(strategy: st.SearchStrategy[Any], number: int) -> Any:
    """The value number `number` of `strategy`: the same on every run (a fixed seed, no
    database), another for each number (the second example: the first is the simplest)."""
    kept = []

    @settings(fixed_budget(2), derandomize=False)
    @seed(number)
    @given(strategy)
    def keep(value: Any) -> None:
        kept.append(value)

    keep()
    return kept[-1]


def send_all(
    route: Route,
    requests: st.SearchStrategy[dict[str, Any]],
    examples: int,
    way_in: tuple[str, dict[str, str]],
    errors: list[str],
) -> int:
    """`examples` of `requests` to `route` by `way_in` (base URL, headers); every 5xx goes
    into `errors`. Returns how many were sent (httpx refuses some as no HTTP at all)."""
    sent = 0
    base, headers = way_in
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:

        @fixed_budget(examples)
        @given(request=requests, revision=ARBITRARY)
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


@pytest.mark.parametrize(
    "examples", [EXAMPLES, pytest.param(EXAMPLES_FULL, marks=pytest.mark.full)]
)
def test_no_route_answers_arbitrary_strings_with_a_5xx(stand: Stack, examples: int) -> None:
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
    sent = sum(
        send_all(route, request_for(route, tid), examples, way, errors)
        for route in closes_last(routes)
        for way in ways_in(stand, route)
    )
    print(f"{sent} requests to {len(routes)} routes")
    assert not errors, "\n".join(errors[:40])
    serves_a_trajectory(stand)


def test_no_route_answers_odd_nested_bodies_with_a_5xx(stand: Stack) -> None:
    routes = [route for route in all_routes(stand) if route.body is not None]
    # Every route that reads a JSON body declares it: the trajectory API's (create, check,
    # close), the pages' events (the hub's and each site's), the collector's and the
    # verifier's checks, the sites' replays.
    assert {(r.service, r.path.rsplit("/", 1)[-1]) for r in routes} >= {
        ("hub", "trajectories"),
        ("hub", "check"),
        ("hub", "close"),
        ("hub", "_events"),
        ("events", "check"),
        ("verifier", "check"),
        *((f"site-{domain}", "_events") for domain in stand.sites),
    }
    with admin_client(stand) as hub:
        tid = create(hub, make_task([{"event_name": "basket_add"}], domain="shop")).trajectory_id
    with httpx.Client(base_url=stand.hub_url, timeout=30) as agent:
        tokens = {"hub": page_token(agent, f"/t/{tid}/")}
        for domain in stand.sites:
            tokens[domain] = page_token(agent, f"/t/{tid}/{domain}/")
    sent, errors = 0, []
    for route in closes_last(routes):
        # The hub with the admin token, every other service directly with its credential.
        count, found = send_odd_fields(
            route, ways_in(stand, route)[0 if route.service == "hub" else -1], tid, tokens
        )
        sent, errors = sent + count, errors + found
    print(f"{sent} requests to {len(routes)} routes")
    assert not errors, "\n".join(errors[:40])
    serves_a_trajectory(stand)


def closes_last(routes: list[Route]) -> list[Route]:
    """The routes with the closes last: the trajectory stays open for the others."""
    return sorted(routes, key=lambda route: route.path.endswith("/close"))


def page_token(agent: httpx.Client, page: str) -> str:
    """The token the page at `page` posts its events with."""
    return parse_qs(urlsplit(events_url(agent, page)).query)["page"][0]
