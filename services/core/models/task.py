"""A task file as `check_task` (services/core/tasks.py) lets it through: typed dicts, as the
file is read and written as plain JSON (docs/tasks.md)."""

from __future__ import annotations

from typing import Any, NotRequired

# pydantic reads these in the API's models, and wants typing_extensions' before Python 3.12.
from typing_extensions import TypedDict

from services.core.models.events import Condition

Selection = dict[str, str]  # UI-variant key -> implementation
# The suite of a task file without `test_data.suite` (docs/tasks.md, "Suites").
RELEASED = "released"


class Taxonomy(TypedDict):
    primary: str
    classes: NotRequired[list[str]]
    subtypes: NotRequired[list[str]]


class AuditException(TypedDict):
    """A near miss that may pass, and why (docs/tasks.md, "The audit")."""

    mutation: str
    reason: str


class StartEvent(TypedDict):
    """One event of a task's start state (docs/tasks.md, "Start state"): replayed at
    trajectory creation by the site `domain` names (absent: the one site that writes the
    type, else the task's first domain), through its own state functions."""

    event_name: str
    parameters: NotRequired[dict[str, Any]]
    domain: NotRequired[str]


class Generated(TypedDict):
    """Where a generated instance came from (docs/tasks.md, "Generated suites"): its
    family, the seed and the sampled parameters, and which of the family's phrasings."""

    family: str
    seed: int
    parameters: dict[str, Any]
    phrasing: NotRequired[int]


class TestData(TypedDict):
    """A task's `test_data` (docs/tasks.md), as `check_task` lets it through."""

    task: str
    conditions: list[Condition]
    id: NotRequired[str]
    bench_first_domain: NotRequired[str]
    bench_first_state: NotRequired[str]
    ui_taxonomy: NotRequired[Taxonomy]
    ui_variants: NotRequired[Selection]
    ui_variant_profile: NotRequired[str]
    # The suite the file belongs to; absent: RELEASED.
    suite: NotRequired[str]
    audit_exceptions: NotRequired[list[AuditException]]
    # Events replayed before the agent starts (a recovery task's intermediate state).
    start_state: NotRequired[list[StartEvent]]
    # A generated instance's family, seed and parameters; absent in a hand-written task.
    generated: NotRequired[Generated]
    # Upstream files' credentials: accepted, and ignored where a site needs no login.
    login_data: NotRequired[dict[str, str]]


class DomainConfig(TypedDict, total=False):
    ui_variants: Selection


class Task(TypedDict):
    """A task file."""

    test_data: TestData
    id: NotRequired[str]
    domain_configs: NotRequired[dict[str, DomainConfig]]
