"""The task file format (docs/tasks.md): loading and the structural checks every reader shares."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast, get_args

from services.core.contract import ALIASES, event_types
from services.core.errors import FieldError
from services.core.keys import TASK_NAME
from services.core.matching import validate_conditions
from services.core.models.events import Condition
from services.core.models.run import ReportStatus
from services.core.models.task import RELEASED, StartEvent, Task
from services.core.sites import registry
from services.core.variants import check_selection

REPORT_STATUSES: tuple[str, ...] = get_args(ReportStatus)

# The UI classes the published paper and board report (docs/tasks.md, "UI classes"): a
# task's primary class is one of PRIMARY_CLASSES; the classes it exercises also may name
# those that are never primary.
PRIMARY_CLASSES = (
    "BASKET",
    "COUNTER",
    "FILES",
    "FAV",
    "CARD",
    "DATE",
    "PAY",
    "SELECT_AC",
    "SELECT_LIST",
)
UI_CLASSES = (*PRIMARY_CLASSES, "NAV", "RADIO", "SEARCH", "SEAT")

# The suites a task file belongs to (docs/tasks.md, "Suites"): a file without
# `test_data.suite` belongs to the released suite, whose task set never changes with new kinds.
SUITES = (RELEASED, "safety", "robustness", "screens", "steps")
# A suite of generated tasks is named by its family and seed: `<family>-<seed>`.
GENERATED_SUITE = re.compile(r"[a-z][a-z0-9_]*-[0-9]+")
# What `runner eval --suite` takes for a suite generated for the run (`--task-family`,
# `--seed`, `--count`): the run's suite is then `<family>-<seed>` (`all-<seed>`).
GENERATED = "generated"
SUITE_NAMES = f"{', '.join(SUITES)}, or <family>-<seed> for a generated one"


def check_suite(name: Any, field: str) -> str:
    """A suite's name, or FieldError naming `field` and listing the suites."""
    if isinstance(name, str) and (name in SUITES or GENERATED_SUITE.fullmatch(name)):
        return name
    raise FieldError(field, f"unknown suite {name!r}; the suites: {SUITE_NAMES}")


def suite_of(task: Task) -> str:
    """The suite of a task file that `check_task` let through."""
    return task["test_data"].get("suite", RELEASED)


FAMILY_NAME = re.compile(r"[a-z][a-z0-9_]*")


def check_generated(value: Any, field: str) -> None:
    """`test_data.generated`: the family (a name of `tasks/families/`), the seed (a whole
    number, 0 or more), the parameters (an object) and, optionally, the phrasing's index."""
    if not isinstance(value, dict):
        raise FieldError(field, "must be an object with family, seed and parameters")
    family = value.get("family")
    if not isinstance(family, str) or not FAMILY_NAME.fullmatch(family):
        raise FieldError(f"{field}.family", f"{family!r} is no family name ([a-z][a-z0-9_]*)")
    for key in ("seed", "phrasing"):
        number = value.get(key, 0)
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise FieldError(
                f"{field}.{key}", f"expected a whole number, 0 or more, got {number!r}"
            )
    if "seed" not in value:
        raise FieldError(f"{field}.seed", "missing")
    if not isinstance(value.get("parameters"), dict):
        raise FieldError(f"{field}.parameters", "must be an object")


def check_taxonomy(taxonomy: Any, field: str) -> None:
    """`ui_taxonomy`: a primary class, the classes exercised (the primary among them) and,
    optionally, `subtypes` (free text, as upstream files carry them)."""
    if not isinstance(taxonomy, dict):
        raise FieldError(field, "must be an object with primary and classes")
    primary = taxonomy.get("primary")
    if primary not in PRIMARY_CLASSES:
        raise FieldError(
            f"{field}.primary",
            f"{primary!r} is not a primary class; one of {list(PRIMARY_CLASSES)}",
        )
    classes = taxonomy.get("classes", [primary])
    if not isinstance(classes, list):
        raise FieldError(f"{field}.classes", "must be a list of UI classes")
    for index, name in enumerate(classes):
        if name not in UI_CLASSES:
            raise FieldError(
                f"{field}.classes[{index}]",
                f"{name!r} is not a UI class; one of {list(UI_CLASSES)}",
            )
    if primary not in classes:
        raise FieldError(f"{field}.classes", f"must name the primary class {primary}")
    subtypes = taxonomy.get("subtypes", [])
    if not isinstance(subtypes, list) or not all(isinstance(s, str) for s in subtypes):
        raise FieldError(f"{field}.subtypes", "must be a list of strings")


def report_status(value: Any) -> bool:
    """Whether a condition's `status` of `agent_report` can match a report: a status (as
    matching compares strings), a wildcard, an operator, or none named."""
    if not isinstance(value, str):
        return True
    return "*" in value or value.strip().lower() in REPORT_STATUSES


def check_task_conditions(value: Any, where: str) -> None:
    """A task's conditions: valid, of known event types (an `agent_report`'s status one of
    the report statuses), and not all forbidden."""
    conditions = validate_conditions(value, where)
    if not conditions:
        raise FieldError(where, "must be a non-empty list")
    for index, condition in enumerate(conditions):
        if condition["event_name"] not in event_types():
            name = condition["event_name"]
            raise FieldError(f"{where}[{index}].event_name", f"unknown event type {name!r}")
        read_aliases(condition, f"{where}[{index}].parameters")
        status = (condition.get("parameters") or {}).get("status")
        if condition["event_name"] == "agent_report" and not report_status(status):
            raise FieldError(
                f"{where}[{index}].parameters.status",
                f"{status!r} is no report status; one of {', '.join(REPORT_STATUSES)}",
            )
    if all(condition.get("forbidden") is True for condition in conditions):
        raise FieldError(
            where,
            "every condition is forbidden, so doing nothing passes; a task must require at"
            " least one event",
        )


def read_aliases(condition: Condition, where: str) -> None:
    """The condition's parameters named as ours where it names them by upstream's aliases
    (services/core/contract.py ALIASES); an alias beside the parameter it stands for is
    refused."""
    aliases = ALIASES.get(condition["event_name"], {})
    params = condition.get("parameters")
    if not aliases or not isinstance(params, dict):
        return
    for alias, ours in aliases.items():
        if alias in params:
            if ours in params:
                raise FieldError(f"{where}.{alias}", f"an alias of {ours!r}, which is given too")
            params[ours] = params.pop(alias)


# A start state's events: at most this many, each with these keys.
MAX_START_EVENTS = 50
START_KEYS = frozenset({"event_name", "parameters", "domain"})


def start_domain(item: StartEvent, first: str | None) -> str | None:
    """The site that replays a start-state event: the one it names, else the one site that
    writes its type, else the task's first domain."""
    if "domain" in item:
        return item["domain"]
    writers = [site.domain for site in registry().sites if item["event_name"] in site.events]
    return writers[0] if len(writers) == 1 else first


def check_start_state(value: Any, first: str | None, field: str) -> list[StartEvent]:
    """`start_state`: a list of events `{event_name, parameters, domain}` of known types and
    parameters, each of a type its site writes (the site's replay checks the rest)."""
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_START_EVENTS:
        raise FieldError(field, f"must be a list of 1..{MAX_START_EVENTS} events")
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        if not isinstance(item, dict):
            raise FieldError(where, "must be an object with event_name and parameters")
        extra = sorted(set(item) - START_KEYS)
        if extra:
            raise FieldError(f"{where}.{extra[0]}", f"unknown key; one of {sorted(START_KEYS)}")
        name = item.get("event_name")
        if not isinstance(name, str) or name not in event_types():
            raise FieldError(f"{where}.event_name", f"unknown event type {name!r}")
        params = item.get("parameters", {})
        if not isinstance(params, dict):
            raise FieldError(f"{where}.parameters", "must be an object")
        fields = event_types()[name].model_fields
        for param in params:
            if param not in fields:
                raise FieldError(f"{where}.parameters.{param}", f"not a parameter of {name!r}")
        domain = item.get("domain")
        if domain is not None and domain not in registry().captions:
            raise FieldError(f"{where}.domain", f"unknown domain {domain!r}")
        site = registry().site(start_domain(cast(StartEvent, item), first) or "")
        if site is None:
            raise FieldError(f"{where}.domain", f"name the site that replays {name!r}")
        if name not in site.events:
            raise FieldError(f"{where}.event_name", f"{site.domain} does not write {name!r}")
    return cast(list[StartEvent], value)


def check_task(task: Any, field: str = "task") -> Task:
    """A task object whose structure, event names, domains and variant keys are valid."""
    if not isinstance(task, dict):
        raise FieldError(field, "must be an object with test_data")
    data = task.get("test_data")
    if not isinstance(data, dict):
        raise FieldError(f"{field}.test_data", "missing or not an object")
    prompt = data.get("task")
    if not isinstance(prompt, str) or not prompt.strip():
        raise FieldError(f"{field}.test_data.task", "the prompt must be a non-empty string")
    domains = registry().captions
    first = data.get("bench_first_domain")
    if first is not None and (not isinstance(first, str) or first not in domains):
        raise FieldError(
            f"{field}.test_data.bench_first_domain",
            f"unknown domain {first!r}; known: {list(domains)}",
        )
    check_task_conditions(data.get("conditions"), f"{field}.test_data.conditions")
    if "start_state" in data:
        check_start_state(data["start_state"], first, f"{field}.test_data.start_state")
    if "suite" in data:
        check_suite(data["suite"], f"{field}.test_data.suite")
    if "generated" in data:
        check_generated(data["generated"], f"{field}.test_data.generated")
    if "ui_taxonomy" in data:
        check_taxonomy(data["ui_taxonomy"], f"{field}.test_data.ui_taxonomy")
    check_selection(data.get("ui_variants") or {}, f"{field}.test_data.ui_variants")
    configs = task.get("domain_configs") or {}
    if not isinstance(configs, dict):
        raise FieldError(f"{field}.domain_configs", "must be an object")
    for domain, config in configs.items():
        if domain not in domains:
            raise FieldError(f"{field}.domain_configs.{domain}", "unknown domain")
        if config is not None and not isinstance(config, dict):
            raise FieldError(f"{field}.domain_configs.{domain}", "must be an object")
        check_selection(
            (config or {}).get("ui_variants") or {},
            f"{field}.domain_configs.{domain}.ui_variants",
            domain,
        )
    return cast(Task, task)


def task_hash(task: Mapping[str, object]) -> str:
    """What a task is, whatever file or name it comes by: SHA-256 (its first 16 hex digits)
    of its JSON with the keys sorted. A record carries it; a run of an edited task has
    another, and a comparison does not pair them."""
    canonical = json.dumps(task, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def load_task(path: Path) -> Task:
    try:
        task = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise FieldError(str(path), f"cannot read task file ({exc})") from None
    return check_task(task, path.stem)


def find_task(tasks_dir: Path, stem: str) -> Path | None:
    """The task file named exactly `stem` anywhere under the tasks folder (a name is letters,
    digits, `_`, `-` and `.`, so it is no path and no glob pattern)."""
    if not TASK_NAME.fullmatch(stem):
        return None
    return next(iter(sorted(tasks_dir.rglob(f"{stem}.json"))), None)


def task_files(tasks_dir: Path) -> list[Path]:
    return sorted(p for p in tasks_dir.rglob("*.json") if not p.name.startswith("_"))
