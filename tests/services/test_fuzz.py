"""Property-based fuzzing over the OpenAPI of every service (issue 11): the hub's admin API
with the token, the agent's paths, every site through the hub's proxy, the collector and the
verifier. Whatever schemathesis generates, no answer is a 5xx.

The budget is fixed: derandomized (the same examples on every run), a bounded number of
examples per operation, no shrinking, about a minute and a half on two cores.
"""

from __future__ import annotations

from typing import Any

import httpx
import schemathesis
from hypothesis import given
from support.http import create, fixed_budget, make_task

from runner.stack.stack import Stack
from services.kit.web import service_headers

EXAMPLES = 25  # per operation; about 90 operations in all


def target_headers(stack: Stack) -> dict[str, dict[str, str]]:
    """What each target is sent, in one place: the hub's API (the admin token), the agent
    (the sites through the hub's proxy: nothing), and each service asked directly (the
    sites for their schema, the collector, the verifier)."""
    service = service_headers(stack.service_token)
    return {
        "hub": {"Authorization": f"Bearer {stack.token}"},
        "agent": {},
        "site": service,
        "events": service,
        "verifier": service,
    }


def with_trajectory(schema: dict[str, Any], tid: str) -> dict[str, Any]:
    """The schema with the path parameter `tid` fixed to a real trajectory, so generated
    requests reach past the trajectory lookup."""
    paths = {}
    for path, item in schema["paths"].items():
        operations = {}
        for method, operation in item.items():
            parameters = [
                p
                for p in operation.get("parameters", [])
                if (p["name"], p["in"]) != ("tid", "path")
            ]
            operations[method] = {**operation, "parameters": parameters}
        paths[path.replace("{tid}", tid)] = operations
    return {**schema, "paths": paths}


def targets(
    stack: Stack, hub: httpx.Client
) -> list[tuple[str, str, dict[str, Any], dict[str, str]]]:
    """(name, base URL the requests go to, schema, headers they carry) of every service."""
    headers = target_headers(stack)
    tid = create(hub, make_task([{"event_name": "basket_add"}], domain="shop")).trajectory_id
    out = []
    for name, process in stack.processes.items():
        if name == "nats":
            continue
        kind = "site" if name.startswith("site-") else name
        schema = httpx.get(f"{process.url}/openapi.json", headers=headers[kind]).json()
        schema = with_trajectory(schema, tid)
        if kind == "site":  # reached as the agent reaches it: through the hub's proxy
            out.append((name, stack.hub_url, schema, headers["agent"]))
        else:
            out.append((name, process.url, schema, headers[kind]))
    return out


def fuzz(operation: Any, base: str, headers: dict[str, str], errors: list[str]) -> None:
    """Send the operation's generated examples to `base`; every 5xx goes into `errors`
    (collected, not raised: no time spent shrinking)."""

    @fixed_budget(EXAMPLES)
    @given(case=operation.as_strategy())
    def send(case: schemathesis.Case) -> None:
        answer = case.call(base_url=base, headers=headers, timeout=30)
        if answer.status_code >= 500:
            errors.append(f"{case.method} {answer.request.url} -> {answer.status_code}")

    send()


def test_no_generated_request_is_a_5xx(stack: Stack, hub: httpx.Client) -> None:
    server_errors: list[str] = []
    for _, base, schema, headers in targets(stack, hub):
        for result in schemathesis.openapi.from_dict(schema).get_all_operations():
            fuzz(result.ok(), base, headers, server_errors)
    assert not server_errors, "\n".join(server_errors[:50])
