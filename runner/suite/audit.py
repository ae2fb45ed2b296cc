"""`runner tasks audit`: do a task's conditions tell its reference solution from near misses?

The reference solver's event log must pass. Each near miss made from it must fail:
- `drop:<unit>`: the events that satisfy one condition (or one group) are removed;
- `param:<unit>.<path>=<value>`: one named parameter of the satisfying events takes a
  look-alike value (a number ±1, a date ±1 day, a flipped boolean, another value of the
  same parameter from the catalog, the suite's conditions or the logs);
- `free:<unit>.<param>=<value>`: a parameter of the satisfying events that the condition
  leaves open takes a look-alike (it may survive only where the prompt leaves it open);
- `last:<unit>.<param>=<n>`: a later event of a quantity family leaves another quantity
  (a basket line removed, one unit more or less, one seat or guest more or less);
- `forbid:<unit>`: an event that a forbidden condition rules out is added;
- `replaced:<unit>.<param>=<value>`: a selection that stands (a payment method, a form's
  field, the hotel booking: `services.core.contract.STANDING`) is made again after the
  right one, with a look-alike value: the one that stands is wrong;
- `beyond:<event>`: the step beyond a stop point the prompt sets («не оплачивай», «поиск
  не запускай»: `services.core.stops`) is taken.

A required `agent_report` status is changed to each other status in turn
(`param:agent_report#0.status=done`): a task that must be refused fails on any other report.
The report's `message` is the agent's own words, never bound, never changed.

`<unit>` is `<event_name>#<index of the condition>`; `drop:` takes a whole group at once,
`drop:group=<name>`. A surviving near miss is a defect unless the task lists it in
`test_data.audit_exceptions` (`[{"mutation": "<id or glob>", "reason": "…"}]`).

The class check: the task's `ui_taxonomy.primary` class must be evidenced both by an event
of the reference log and by one of the conditions (else the class is credited for a
control the task never requires). A task that must be refused (it requires an
`infeasible` or `needs_input` report) names as primary the control it forbids (BASKET for
a cart it must leave alone): a forbidden condition evidences it, and its reference log,
which refuses, need not.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from pydantic import ConfigDict, Field, computed_field

from services.core.contract import STANDING
from services.core.matching import (
    BASKET_ADD,
    BASKET_FAMILY,
    BASKET_REMOVE,
    QUANTITY_PARAMS,
    check,
    event_matches,
    event_params,
    value_matches,
)
from services.core.models.base import Boundary
from services.core.models.events import Condition, Event, Parameters
from services.core.models.run import Record
from services.core.models.task import AuditException
from services.core.sites import Evidence, registry
from services.core.stops import STOPS
from services.core.tasks import PRIMARY_CLASSES, REPORT_STATUSES

ALTERNATIVES = 3  # look-alike values tried per parameter
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
REPORT = "agent_report"
# The reports that refuse a task: it cannot be done, or not without asking.
REFUSALS = frozenset({"infeasible", "needs_input"})

Pool = dict[str, set[Any]]


# -- the UI classes and the events that evidence them ------------------------------------


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _at_least(params: Parameters, name: str, floor: float) -> bool:
    number = _number(params.get(name))
    return number is not None and number >= floor


# Parameters a submitted search or booking carries for the control that set them (a
# widget left at its default still yields the value it was submitted with).
CITY_PARAMS = frozenset({"cityId", "city_from", "city_to", "from_city", "to_city"})
DATE_PARAMS = frozenset({"date", "startDate", "endDate", "date_departure", "date_return"})
GUEST_PARAMS = frozenset({"guestsCount", "roomsCount", "rooms"})
CHOICE_PARAMS = frozenset(
    {"tarif_name", "train_name", "lower_berths", "window_seats", "roomType", "year"}
)


def _people(params: Parameters) -> bool:
    """Whether a search or booking was made for several people (a counter set them)."""
    if _at_least(params, "passengers_amount", 2):  # the default (one) says nothing
        return True
    passengers = params.get("passengers")
    if isinstance(passengers, list) and len(passengers) >= 2:
        return True
    people = [_number(params.get(name)) for name in ("adults", "children")]
    if sum(n for n in people if n is not None) >= 2:
        return True
    return bool(GUEST_PARAMS & set(params))


# The primary classes (docs/tasks.md, "UI classes") evidenced by the parameters of any
# event; the events that evidence a class are the sites' (`SiteDescriptor.evidence`). NAV,
# RADIO, SEARCH and SEAT are never primary, so never checked.
PARAM_EVIDENCE: dict[str, Callable[[Parameters], bool]] = {
    "COUNTER": _people,
    "DATE": lambda params: bool(DATE_PARAMS & set(params)),
    "SELECT_AC": lambda params: bool(CITY_PARAMS & set(params)),
    # A list chosen by click: a tariff, a train, a berth count, a room type, a year.
    "SELECT_LIST": lambda params: bool(CHOICE_PARAMS & set(params)),
}


def _evidences(rule: Evidence, params: Parameters) -> bool:
    if rule.having is None:
        return True
    if rule.at_least is None:
        return rule.having in params
    return _at_least(params, rule.having, rule.at_least)


def evidences(ui_class: str, kind: str, params: Parameters) -> bool:
    """Whether an event (or a condition, as the event it asks for) evidences the class."""
    rules = [
        rule
        for site in registry().sites
        for rule in site.evidence
        if rule.ui_class == ui_class and rule.event == kind
    ]
    if any(_evidences(rule, params) for rule in rules):
        return True
    by_params = PARAM_EVIDENCE.get(ui_class)
    return not any(rule.alone for rule in rules) and bool(by_params and by_params(params))


def _plain_params(condition: Condition) -> Parameters:
    """A condition's parameters as an event would carry them (operators give their value)."""
    params = {}
    for name, expected in (condition.get("parameters") or {}).items():
        if isinstance(expected, dict) and "condition" in expected:
            params[name] = expected.get("value")
        else:
            params[name] = expected
    return params


class ClassCheck(Boundary):
    """Whether a task's primary UI class is evidenced by its log and required by one of its
    conditions (`class` in the report)."""

    model_config = ConfigDict(serialize_by_alias=True)

    ui_class: str | None = Field(serialization_alias="class")
    known: bool
    in_log: bool
    in_conditions: bool
    # A task that must be refused forbids the class (its report is `infeasible` or
    # `needs_input`): a forbidden condition evidences it, and the log need not.
    refused: bool = False

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        return (self.in_log and self.in_conditions) or self.refused


def refuses(conditions: list[Condition]) -> bool:
    """Whether a task requires a report that refuses it (`infeasible`, `needs_input`)."""
    return any(
        c["event_name"] == REPORT
        and not c.get("forbidden")
        and str((c.get("parameters") or {}).get("status", "")).strip().lower() in REFUSALS
        for c in conditions
    )


def class_check(
    primary: str | None, conditions: list[Condition], events: list[Event]
) -> ClassCheck:
    """Is the primary class evidenced by the log, and required by a condition?"""
    if primary not in PRIMARY_CLASSES:
        return ClassCheck(ui_class=primary, known=False, in_log=False, in_conditions=False)
    in_log = any(evidences(primary, str(e.get("type")), event_params(e)) for e in events)
    in_conditions = any(
        evidences(primary, c["event_name"], _plain_params(c))
        for c in conditions
        if not c.get("forbidden")
    )
    refused = (
        not (in_log and in_conditions)
        and refuses(conditions)
        and any(
            evidences(primary, c["event_name"], _plain_params(c))
            for c in conditions
            if c.get("forbidden")
        )
    )
    return ClassCheck(
        ui_class=primary,
        known=True,
        in_log=in_log,
        in_conditions=in_conditions,
        refused=refused,
    )


class Tried(Boundary):
    """One near miss tried: caught (the verdict fails), or surviving with a reason or not."""

    id: str
    caught: bool
    reason: str | None = None


class Excused(Boundary):
    mutation: str
    reason: str


class TaskAudit(Boundary):
    """One task: its reference log's verdict, the near misses tried, and the class check."""

    ems: int
    failed_conditions: list[int] = Field(default_factory=list)
    mutations: list[Tried] = Field(default_factory=list)
    survivors: list[str] = Field(default_factory=list)
    excused: list[Excused] = Field(default_factory=list)
    unused_exceptions: list[str] = Field(default_factory=list)
    exception_problems: list[str] = Field(default_factory=list)
    class_check: ClassCheck | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tried(self) -> int:
        return len(self.mutations)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def caught(self) -> int:
        return sum(m.caught for m in self.mutations)

    @property
    def ok(self) -> bool:
        """No unexplained survivor, a passing original, a sound exception list and class."""
        return (
            self.ems == 1
            and not self.survivors
            and not self.exception_problems
            and (self.class_check is None or self.class_check.ok)
        )


class KindTally(Boundary):
    tried: int = 0
    survive: int = 0


class SuiteAudit(Boundary):
    """Every task's audit by name, and the suite's totals (`runner tasks audit --report`)."""

    tasks: dict[str, TaskAudit]
    by_kind: dict[str, KindTally]
    tried: int
    caught: int
    caught_share: float | None
    survivors: int
    excused: int
    original_failures: list[str]
    class_failures: list[str]
    # False when a near miss survives without a reason, an original log fails, or a class
    # check fails.
    ok: bool


@dataclass
class AuditItem:
    """One task's reference log with what the audit needs about the task."""

    name: str
    conditions: list[Condition]
    events: list[Event]
    exceptions: list[AuditException] = field(default_factory=list)
    primary: str | None = None
    domain: str | None = None
    prompt: str = ""  # the task's prompt, for its stop points


# -- near misses ---------------------------------------------------------------------------


@dataclass
class Mutation:
    id: str
    events: list[Event]


def _unit(index: int, condition: Condition) -> str:
    if "group" in condition:
        return f"group={condition['group']}"
    return f"{condition['event_name']}#{index}"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _is_operator(expected: object) -> bool:
    return isinstance(expected, dict) and "condition" in expected


def _bump(value: Any, step: int) -> Any:
    """A number or ISO date moved by `step` (units or days); None when it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value + step
    if isinstance(value, str) and ISO_DATE.match(value):
        try:
            return (date.fromisoformat(value) + timedelta(days=step)).isoformat()
        except ValueError:
            return None
    if isinstance(value, str):
        number = _number(value)
        if number is not None and number.is_integer() and value.strip().lstrip("-").isdigit():
            return str(int(number) + step)
    return None


def _below_zero(actual: Any, bumped: Any) -> bool:
    """A count or price pushed under zero is no look-alike."""
    before, after = _number(actual), _number(bumped)
    return before is not None and after is not None and before >= 0 > after


def _boundary(expected: Parameters) -> list[Any]:
    """The nearest values an ordering operator must refuse."""
    value = _number(expected.get("value"))
    if value is None:
        return []
    op = expected.get("condition")
    shown = int(value) if value.is_integer() else value
    return {
        "less_than": [shown],
        "less_than_or_equal": [shown + 1],
        "greater_than": [shown],
        "greater_than_or_equal": [shown - 1],
    }.get(str(op), [])


def _look_alikes(name: str, expected: Any, actual: Any, pool: Pool) -> list[Any]:
    """Up to ALTERNATIVES values close to `actual` that `expected` must refuse."""
    found: list[Any] = []
    if isinstance(actual, bool):
        found.append(not actual)
    for step in (1, -1):
        bumped = _bump(actual, step)
        if bumped is not None and not _below_zero(actual, bumped):
            found.append(bumped)
    if isinstance(expected, dict) and _is_operator(expected):
        found.extend(_boundary(expected))
    if isinstance(actual, str) and not ISO_DATE.match(actual):
        others = sorted(
            (v for v in pool.get(name, ()) if isinstance(v, str) and v != actual),
            key=lambda v: (-difflib.SequenceMatcher(None, actual, v).ratio(), v),
        )
        found.extend(others)
    chosen: list[Any] = []
    for value in found:
        if value in chosen or value == actual:
            continue
        if _refuses(expected, value):
            chosen.append(value)
        if len(chosen) == ALTERNATIVES:
            break
    return chosen


def _refuses(expected: Any, value: Any) -> bool:
    if isinstance(expected, _Anything):
        return value != expected.original
    try:
        return not value_matches(expected, value)
    except ValueError:
        return False


def _leaves(value: Any, path: str = "") -> Iterable[tuple[str, str, Any]]:
    """(path, key name, leaf) of every scalar inside a parameter value."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{index}]")
    else:
        key = re.split(r"[.\[]", path.rsplit(".", 1)[-1])[0]
        yield path, key, value


def _set_leaf(root: Parameters, path: str, value: Any) -> None:
    """Assign at a path like `rooms[0].kids[1]` inside `root`."""
    tokens = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    target: Any = root
    for token in tokens[:-1]:
        target = target[int(token[1:-1])] if token.startswith("[") else target[token]
    last = tokens[-1]
    if last.startswith("["):
        target[int(last[1:-1])] = value
    else:
        target[last] = value


def _get_leaf(root: Parameters, path: str) -> Any:
    tokens = re.findall(r"[^.\[\]]+|\[\d+\]", path)
    target: Any = root
    for token in tokens:
        target = target[int(token[1:-1])] if token.startswith("[") else target[token]
    return target


def _members(conditions: list[Condition], index: int) -> list[Condition]:
    """The condition, or every member of its group."""
    condition = conditions[index]
    if "group" not in condition:
        return [condition]
    return [c for c in conditions if c.get("group") == condition["group"]]


def _drops(conditions: list[Condition], events: list[Event]) -> Iterable[Mutation]:
    seen: set[str] = set()
    for index, condition in enumerate(conditions):
        unit = _unit(index, condition)
        if condition.get("forbidden") or unit in seen:
            continue
        seen.add(unit)
        members = [c for c in _members(conditions, index) if not c.get("forbidden")]
        kept = [e for e in events if not any(event_matches(c, e) for c in members)]
        yield Mutation(f"drop:{unit}", kept)


def _alone(conditions: list[Condition], index: int, events: list[Event]) -> list[Event]:
    """The log without the events that only the other members of the condition's group
    match: a near miss of one alternative must not be rescued by another."""
    condition = conditions[index]
    others = [c for c in _members(conditions, index) if c is not condition]
    return [
        e
        for e in events
        if event_matches(condition, e) or not any(event_matches(c, e) for c in others)
    ]


def _param_changes(conditions: list[Condition], log: list[Event], pool: Pool) -> Iterable[Mutation]:
    for index, condition in enumerate(conditions):
        if condition.get("forbidden"):
            continue
        events = log
        unit = f"{condition['event_name']}#{index}"
        base = _alone(conditions, index, events)
        satisfying = [i for i, e in enumerate(base) if event_matches(condition, e)]
        if not satisfying:
            continue
        events = base
        for name, expected in (condition.get("parameters") or {}).items():
            actual = event_params(events[satisfying[-1]]).get(name)
            if isinstance(actual, dict | list) and not _is_operator(expected):
                for path, key, leaf in _leaves(actual, name):
                    for value in _look_alikes(key, leaf, leaf, pool):
                        yield Mutation(
                            f"param:{unit}.{path}={_show(value)}",
                            _with_changed(events, satisfying, path, value),
                        )
                continue
            if condition["event_name"] == REPORT and name == "status":
                # every other report: a task to refuse fails on `done`, one to do on a refusal
                values = [s for s in REPORT_STATUSES if _refuses(expected, s)]
            else:
                values = _look_alikes(name, expected, actual, pool)
            for value in values:
                yield Mutation(
                    f"param:{unit}.{name}={_show(value)}",
                    _with_changed(events, satisfying, name, value),
                )


def _with_changed(events: list[Event], indexes: list[int], path: str, value: Any) -> list[Event]:
    changed = list(events)
    for index in indexes:
        event = copy.deepcopy(events[index])
        event["params"] = event_params(event)
        try:
            _get_leaf(event["params"], path)
        except (KeyError, IndexError, TypeError):
            continue  # this occurrence has another shape; leave it
        _set_leaf(event["params"], path, value)
        changed[index] = event
    return changed


def _appended(events: list[Event], kind: str, params: Parameters) -> list[Event]:
    seq = max((int(e.get("seq") or 0) for e in events), default=0) + 1
    site = events[-1].get("site", "") if events else ""
    return [*events, {"seq": seq, "type": kind, "site": site, "source": "audit", "params": params}]


def _quantity_changes(conditions: list[Condition], events: list[Event]) -> Iterable[Mutation]:
    for index, condition in enumerate(conditions):
        name = condition["event_name"]
        if condition.get("forbidden") or name not in QUANTITY_PARAMS:
            continue
        satisfying = [e for e in events if event_matches(condition, e)]
        if not satisfying:
            continue
        last = satisfying[-1]
        unit = f"{condition['event_name']}#{index}"
        named = set(condition.get("parameters") or {}) & QUANTITY_PARAMS[name]
        quantities = sorted(named) or (["amount"] if name in BASKET_FAMILY else [])
        for param in quantities:
            current = _number(event_params(last).get(param))
            if current is None:
                continue
            # a basket line judged by any event: removing it is the near miss
            steps = (-1, 1) if named else (-int(current),)
            for step in steps:
                value = int(current) + step
                if value < 0:
                    continue
                kind = name
                if name in BASKET_FAMILY:
                    kind = BASKET_ADD if step > 0 else BASKET_REMOVE
                params = {**copy.deepcopy(event_params(last)), param: value}
                yield Mutation(f"last:{unit}.{param}={value}", _appended(events, kind, params))


# A parameter that only restates another one of the same event (the item's title beside
# its id): changing it alone is no near miss.
RESTATES: dict[str, str] = {
    "title": "item_id",
    "price": "item_id",
    "label": "cityId",
    "cityName": "cityId",
    "countryName": "cityId",
    "name": "hotelId",
    # A hotel is in one city; a file is of one collection, year and kind.
    "cityId": "hotelId",
    "collection": "file_name",
    "year": "file_name",
    "format": "file_name",
}


# Event parameters that describe how, not what: never changed by a `free` near miss.
HOW = frozenset({"widget", "target", "key", "x", "y", "direction"})
# The agent's own words (the report's message): no condition binds them.
FREE_TEXT = frozenset({"message"})


def _free_changes(conditions: list[Condition], log: list[Event], pool: Pool) -> Iterable[Mutation]:
    """Change a parameter of the satisfying event that the condition leaves open: when
    the change survives, the condition does not bind that value (which is right only
    when the prompt leaves it open too, e.g. «any product»)."""
    for index, condition in enumerate(conditions):
        if condition.get("forbidden"):
            continue
        unit = f"{condition['event_name']}#{index}"
        events = _alone(conditions, index, log)
        satisfying = [i for i, e in enumerate(events) if event_matches(condition, e)]
        if not satisfying:
            continue
        given = set(condition.get("parameters") or {})
        bound = given | QUANTITY_PARAMS.get(condition["event_name"], frozenset())
        last = event_params(events[satisfying[-1]])
        for name in sorted(set(last) - bound - HOW - FREE_TEXT):
            if RESTATES.get(name) in last:
                continue  # the restated parameter is changed instead
            actual = last[name]
            if isinstance(actual, dict | list):
                continue
            for value in _look_alikes(name, _Anything(actual), actual, pool):
                yield Mutation(
                    f"free:{unit}.{name}={_show(value)}",
                    _with_changed(events, satisfying, name, value),
                )


class _Anything:
    """An expected value that refuses everything but the original (for free changes)."""

    def __init__(self, original: Any) -> None:
        self.original = original


def _example(expected: Any, pool_values: Iterable[Any]) -> Any:
    """A concrete value that `expected` accepts."""
    if _is_operator(expected):
        value = _number(expected.get("value"))
        op = expected.get("condition")
        if value is None:
            return expected.get("value")
        shown = int(value) if value.is_integer() else value
        return {"less_than": shown - 1, "greater_than": shown + 1}.get(str(op), shown)
    if isinstance(expected, str) and "*" in expected:
        for candidate in sorted(v for v in pool_values if isinstance(v, str)):
            if value_matches(expected, candidate):
                return candidate
        return expected.replace("*", "")
    return expected


def _forbidden_events(
    conditions: list[Condition], events: list[Event], pool: Pool
) -> Iterable[Mutation]:
    for index, condition in enumerate(conditions):
        if not condition.get("forbidden"):
            continue
        name = condition["event_name"]
        template = next((e for e in reversed(events) if e.get("type") == name), None)
        params = copy.deepcopy(event_params(template)) if template else {}
        for key, expected in (condition.get("parameters") or {}).items():
            params[key] = _example(expected, pool.get(key, ()))
        yield Mutation(f"forbid:{_unit(index, condition)}", _appended(events, name, params))


def _repeated(events: list[Event], event: Event, params: Parameters) -> list[Event]:
    """The log with `event` made once more at its end, with `params`."""
    seq = max((int(e.get("seq") or 0) for e in events), default=0) + 1
    return [*events, {**copy.deepcopy(event), "seq": seq, "source": "audit", "params": params}]


def _replaced(conditions: list[Condition], log: list[Event], pool: Pool) -> Iterable[Mutation]:
    """A selection that stands made again after the one that satisfies its condition, in
    the same slot, with a look-alike of one parameter the condition names: the selection
    the user is left with is wrong, whatever was chosen before."""
    for index, condition in enumerate(conditions):
        name = condition["event_name"]
        if condition.get("forbidden") or name not in STANDING:
            continue
        unit = f"{name}#{index}"
        events = _alone(conditions, index, log)
        satisfying = [e for e in events if event_matches(condition, e)]
        if not satisfying:
            continue
        right = satisfying[-1]
        for param, expected in (condition.get("parameters") or {}).items():
            if param in STANDING[name]:
                continue  # another slot's event replaces nothing
            actual = event_params(right).get(param)
            if isinstance(actual, dict | list):
                changes = [
                    (path, values[0])
                    for path, key, leaf in _leaves(actual, param)
                    if (values := _look_alikes(key, leaf, leaf, pool))
                ]
            else:
                values = _look_alikes(param, expected, actual, pool)
                changes = [(param, values[0])] if values else []
            for path, value in changes:
                params = copy.deepcopy(event_params(right))
                _set_leaf(params, path, value)
                yield Mutation(
                    f"replaced:{unit}.{path}={_show(value)}", _repeated(events, right, params)
                )


def _beyond_stops(prompt: str, site: str | None, events: list[Event]) -> Iterable[Mutation]:
    """The step beyond each stop point the prompt sets, taken after the reference log's last
    event (with the parameters of the last such step in the log, if any, and the stop's)."""
    for stop in STOPS:
        if (stop.sites is not None and site not in stop.sites) or not stop.phrases.search(prompt):
            continue
        template = next((e for e in reversed(events) if e.get("type") == stop.event), None)
        params = {**(event_params(template) if template else {}), **stop.step}
        event: Event = {"type": stop.event, "site": site or (events[-1]["site"] if events else "")}
        yield Mutation(f"beyond:{stop.event}", _repeated(events, event, params))


KINDS = ("drop", "param", "free", "last", "forbid", "replaced", "beyond")


def mutations(item: AuditItem, pool: Pool, kinds: Iterable[str] = KINDS) -> list[Mutation]:
    """Every near miss of an item's log, with its id (ids are unique; the first one made
    wins)."""
    conditions, events = item.conditions, item.events
    sources = {
        "drop": lambda: _drops(conditions, events),
        "param": lambda: _param_changes(conditions, events, pool),
        "free": lambda: _free_changes(conditions, events, pool),
        "last": lambda: _quantity_changes(conditions, events),
        "forbid": lambda: _forbidden_events(conditions, events, pool),
        "replaced": lambda: _replaced(conditions, events, pool),
        "beyond": lambda: _beyond_stops(item.prompt, item.domain, events),
    }
    made: dict[str, Mutation] = {}
    for kind in kinds:
        for mutation in sources[kind]():
            made.setdefault(mutation.id, mutation)
    return list(made.values())


def _glob(pattern: str) -> re.Pattern[str]:
    """`*` and `?` are wildcards; everything else (brackets included) is literal."""
    parts = ("." if c == "?" else ".*" if c == "*" else re.escape(c) for c in pattern)
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def exception_problems(exceptions: object) -> list[str]:
    """What is malformed in a task's `audit_exceptions`."""
    if exceptions is None:
        return []
    if not isinstance(exceptions, list):
        return ["audit_exceptions: expected a list"]
    problems = []
    for index, item in enumerate(exceptions):
        where = f"audit_exceptions[{index}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: expected an object")
            continue
        if not isinstance(item.get("mutation"), str) or not item["mutation"].strip():
            problems.append(f"{where}.mutation: expected a mutation id or glob")
        if not isinstance(item.get("reason"), str) or not item["reason"].strip():
            problems.append(f"{where}.reason: say why this near miss may pass")
    return problems


def audit_log(item: AuditItem, pool: Pool, kinds: Iterable[str] = KINDS) -> TaskAudit:
    """Check the item's log passes and every near miss of it fails; with its `primary`, the
    class check.

    `pool` maps a parameter name to values it may take (the look-alikes); the item's
    `exceptions` are the task's `audit_exceptions`; `kinds` limits the near misses made
    (KINDS). Nothing here touches the network.
    """
    events = sorted(item.events, key=lambda e: int(e.get("seq") or 0))
    item = dataclasses.replace(item, events=events)
    conditions, exceptions, primary = item.conditions, item.exceptions, item.primary
    problems = exception_problems(exceptions)
    rules = [
        (rule["mutation"], _glob(rule["mutation"]), rule["reason"])
        for rule in (exceptions or [])
        if isinstance(rule, dict) and not exception_problems([rule])
    ]
    original = check(conditions, events)
    result = TaskAudit(
        ems=original.ems,
        failed_conditions=[i for i, c in enumerate(original.conditions) if not c.success],
        exception_problems=problems,
        class_check=class_check(primary, conditions, events) if primary is not None else None,
    )
    if original.ems != 1:
        return result  # near misses of a failing log say nothing
    used: set[str] = set()
    for mutation in mutations(item, pool, kinds):
        caught = check(conditions, mutation.events).ems == 0
        reason = None
        if not caught:
            for pattern, regex, why in rules:
                if regex.match(mutation.id):
                    reason = why
                    used.add(pattern)
                    break
            if reason is None:
                result.survivors.append(mutation.id)
            else:
                result.excused.append(Excused(mutation=mutation.id, reason=reason))
        result.mutations.append(Tried(id=mutation.id, caught=caught, reason=reason))
    result.unused_exceptions = [p for p, _, _ in rules if p not in used]
    return result


# -- the suite -------------------------------------------------------------------------------


def _collect(pool: Pool, value: Any, name: str) -> None:
    for _, key, leaf in _leaves(value, name):
        if isinstance(leaf, str) and "*" not in leaf and leaf.strip():
            pool[key].add(leaf)


def build_pools(items: Sequence[AuditItem], vocabulary: bool = True) -> dict[str | None, Pool]:
    """Look-alike values per domain: its catalog vocabulary, the suite's conditions and
    the logs. The `None` domain pools every item."""
    pools: dict[str | None, Pool] = defaultdict(lambda: defaultdict(set))
    for item in items:
        for target in {item.domain, None}:
            pool = pools[target]
            for condition in item.conditions:
                for name, expected in (condition.get("parameters") or {}).items():
                    if not _is_operator(expected):
                        _collect(pool, expected, name)
            for event in item.events:
                for name, value in event_params(event).items():
                    if name not in {"target", "key", "x", "y"}:
                        _collect(pool, value, name)
    if vocabulary:
        for domain in [d for d in pools if d is not None]:
            site = registry().site(domain)
            vocabulary_of = site.hook("vocabulary") if site else None
            if vocabulary_of is not None:
                for name, values in vocabulary_of().items():
                    pools[domain][name].update(v for v in values if isinstance(v, str))
    return {domain: dict(pool) for domain, pool in pools.items()}


def _as_item(index: int, item: AuditItem | tuple[Any, ...]) -> AuditItem:
    if isinstance(item, AuditItem):
        return item
    conditions, events, exceptions = item[:3]
    return AuditItem(f"#{index}", conditions, events, list(exceptions or []))


def audit_suite(
    items: Iterable[AuditItem | tuple[Any, ...]],
    vocabulary: bool = True,
    kinds: Iterable[str] = KINDS,
) -> SuiteAudit:
    """Audit many tasks: `AuditItem`s or `(conditions, events, exceptions)` tuples.

    Returns per-task results (by name) and the suite totals; `ok` is false when a near
    miss survives without a reason, an original log fails, or a class check fails."""
    listed = [_as_item(i, item) for i, item in enumerate(items)]
    pools = build_pools(listed, vocabulary)
    kinds = tuple(kinds)
    tasks = {}
    for item in listed:
        pool = pools.get(item.domain) or pools.get(None) or {}
        tasks[item.name] = audit_log(item, pool, kinds)
    by_kind = {k: KindTally() for k in kinds}
    for result in tasks.values():
        for mutation in result.mutations:
            tally = by_kind[mutation.id.split(":", 1)[0]]
            tally.tried += 1
            tally.survive += not mutation.caught and mutation.reason is None
    tried = sum(r.tried for r in tasks.values())
    caught = sum(r.caught for r in tasks.values())
    return SuiteAudit(
        tasks=tasks,
        by_kind=by_kind,
        tried=tried,
        caught=caught,
        caught_share=round(caught / tried, 4) if tried else None,
        survivors=sum(len(r.survivors) for r in tasks.values()),
        excused=sum(len(r.excused) for r in tasks.values()),
        original_failures=sorted(n for n, r in tasks.items() if r.ems != 1),
        class_failures=sorted(
            n for n, r in tasks.items() if r.class_check is not None and not r.class_check.ok
        ),
        ok=all(r.ok for r in tasks.values()),
    )


def suite_line(summary: SuiteAudit) -> str:
    share = summary.caught_share
    percent = f"{share * 100:.1f}%" if share is not None else "n/a"
    return (
        f"{summary.tried} mutations tried, {summary.caught} caught ({percent}), "
        f"{summary.survivors} survive without a reason; "
        f"{len(summary.class_failures)} tasks fail the class check"
    )


async def collect(
    hub_url: str, token: str, refs: Sequence[Any], records: Sequence[Record]
) -> list[AuditItem]:
    """Each evaluated task's shifted conditions and event log, fetched from the hub.
    `refs` are runner.run.evaluate.TaskRef; `records` the run's records (trajectory_id)."""
    from runner.hub import HubClient

    by_name = {ref.name: ref for ref in refs}
    items = []
    async with HubClient.connect(hub_url, token) as hub:
        for record in records:
            ref = by_name[record.task]
            data = ref.task["test_data"]
            conditions, events = data["conditions"], []
            if record.trajectory_id:
                conditions = (await hub.trajectory(record.trajectory_id)).conditions
                events = (await hub.events(record.trajectory_id)).events
            items.append(
                AuditItem(
                    name=ref.name,
                    conditions=conditions,
                    events=events,
                    exceptions=data.get("audit_exceptions") or [],
                    primary=(data.get("ui_taxonomy") or {}).get("primary"),
                    domain=data.get("bench_first_domain"),
                    prompt=data["task"],
                )
            )
    return items
