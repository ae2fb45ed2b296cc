"""`runner eval`'s request: what it refuses, naming the option, and the agent settings it
hands the harness."""

from __future__ import annotations

import inspect
from typing import Any, get_type_hints

import pytest
from pydantic import ValidationError

from runner.cli.eval import OUTPUT_OPTIONS, eval_
from runner.cli.queue import worker
from runner.run.request import EvalRequest, refusal
from services.core.models.run import RunPlan

ENDPOINT = {"model": "m", "base_url": "http://127.0.0.1:9/v1"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"harness": "nope"}, "--harness: unknown harness 'nope'"),
        ({"harness": "dom", "model": "m"}, "--base-url: the dom harness needs"),
        ({"harness": "gui", **ENDPOINT}, "--family: the gui harness needs one of uitars"),
        ({"harness": "gui", "family": "cogagent", **ENDPOINT}, "--family: input should be"),
        ({"harness": "external", "agent_cmd": 'a "b', **ENDPOINT}, "--agent-cmd: "),
        ({"harness": "noop", "option": ["x"]}, "--option: expected KEY=VALUE, got 'x'"),
        ({"harness": "oracle", "option": ["path=mouse"]}, "--option path: the oracle takes"),
        ({"harness": "noop", "prices": "absent.toml"}, "--prices: no file absent.toml"),
        ({"harness": "dom", "backend": "docker", **ENDPOINT}, "--backend docker: --hub"),
        (
            {"harness": "noop", "backend": "docker", "hub": "http://127.0.0.1:9"},
            "--backend docker: the docker backend runs",
        ),
    ],
)
def test_a_bad_request_is_refused_naming_the_option(options: dict[str, Any], message) -> None:
    with pytest.raises(ValidationError) as refused:
        EvalRequest.model_validate(options)
    assert refusal(refused.value).startswith(message), refusal(refused.value)


def test_the_agent_settings_gather_the_harness_options() -> None:
    request = EvalRequest.model_validate(
        {
            "harness": "gui",
            "family": "uitars",
            "page_geometry": True,
            "option": ["history_images=2", "coords=resized"],
            "workers": 3,
            **ENDPOINT,
        }
    )
    agent = request.agent_config()
    assert agent.model == "m" and agent.base_url == ENDPOINT["base_url"]
    assert agent.options == {
        "history_images": 2,
        "coords": "resized",
        "family": "uitars",
        "page_geometry": True,
    }
    assert isinstance(request, RunPlan) and request.workers == 3 and request.repeat == 1


def test_the_eval_options_are_the_requests_fields_and_the_worker_shares_its_own() -> None:
    """`runner eval`'s options are EvalRequest's fields by name (`--viewport` and `--zoom`
    its viewport), and their defaults, read as the request reads them, are its defaults.
    `runner worker` declares the options it shares with eval as eval does (but `--queue`:
    the worker's servers, from WPB_QUEUE_URLS too, where eval's sends the run there)."""
    options = {n: p for n, p in inspect.signature(eval_).parameters.items() if n != "ctx"}
    assert set(options) == set(EvalRequest.model_fields) | {"zoom"} | OUTPUT_OPTIONS
    defaults = {
        n: p.default for n, p in options.items() if n != "harness" and n not in OUTPUT_OPTIONS
    }
    assert EvalRequest.model_validate({"harness": "noop", **defaults}) == EvalRequest(
        harness="noop"
    )
    worker_options = inspect.signature(worker).parameters
    shared = set(worker_options) & set(options) - {"queue"}
    assert shared == {"pool", "backend", "hub", "agents_network"}
    declared = get_type_hints(eval_, include_extras=True)
    by_worker = get_type_hints(worker, include_extras=True)
    for name in shared:
        assert by_worker[name] is declared[name], name
        assert worker_options[name].default == options[name].default, name
