"""Match a trajectory's event log against a task's success conditions.

A condition holds when some event of its type carries every named parameter
(log order is ignored), except for quantity conditions, which are judged on the
last event of their family only, and selections that stand (``STANDING``: a payment
method, a form's field, the hotel booking), judged on the last event of each slot.
Conditions sharing a ``group`` are alternatives. A ``forbidden`` condition is the reverse:
it holds when no event matches it (every event counts; the last-event rule does not apply).
The exact match score (EMS) is 1 when every unit holds.

The verdict also lists the attempt's side effects, beside EMS and never part of it: what it
left behind on a site (a cart line, a favourite, a downloaded file, a hotel booking, a
payment) that no condition asks for, or more of it than the conditions ask (docs/tasks.md,
"Side effects").

Events are taken in the order given, which must be log order (ascending seq).
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from services.core import perturb
from services.core.contract import STANDING, TRACKING_TYPES
from services.core.errors import FieldError
from services.core.models.api import UnpromptedEvent, Verdict
from services.core.models.events import Condition, Event, Parameters
from services.core.models.run import ConditionReport, Effect, MatchedEvent, SideEffect

__all__ = [
    "OPERATORS",
    "check",
    "event_matches",
    "event_types",
    "side_effects",
    "validate_conditions",
    "value_matches",
]

OPERATORS: frozenset[str] = frozenset(
    {"equal", "greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal"}
)
ORDERING_OPERATORS: frozenset[str] = OPERATORS - {"equal"}
MATCH_MODES: frozenset[str] = frozenset({"any", "last"})
# A condition's `since`: `agent` (the default) leaves out the start state's events, which a
# site replayed before the agent started (`source: "setup"`); `start` judges the whole log.
SINCE: frozenset[str] = frozenset({"agent", "start"})
SETUP = "setup"

BASKET_ADD, BASKET_REMOVE = "basket_add", "basket_remove"
BASKET_FAMILY: frozenset[str] = frozenset({BASKET_ADD, BASKET_REMOVE})
# event_name -> parameter names that put a condition under the last-event rule
QUANTITY_PARAMS: dict[str, frozenset[str]] = {
    "basket_add": frozenset({"amount"}),
    "basket_remove": frozenset({"amount"}),
    "select_seat": frozenset({"seats_amount"}),
    "bench_hotel_select_guests": frozenset({"guestsCount", "roomsCount"}),
}

_MISSING = object()
# What `unprompted` reads: a served screen starts over; a click or key is a person's input.
SCREEN_EVENT = "state_changed"
INPUT_EVENTS = frozenset({"click", "keypress"})
_OPERATOR_KEYS = frozenset({"value", "condition"})


# --- value comparison -------------------------------------------------------


def _is_number(value: object) -> bool:
    """True for int/float but not bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _to_number(value: object) -> int | float | None:
    """Read a number or a numeric string; None when it is neither (bools included)."""
    if _is_number(value):
        return value  # type: ignore[return-value]
    if not isinstance(value, str) or "_" in value:
        return None
    text = value.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _normalize(text: str) -> str:
    """Whitespace-trimmed, case-folded text."""
    return text.strip().casefold()


def _wildcard_matches(pattern: str, actual: object) -> bool:
    """Match a ``*`` pattern against a whole string (or a number's str())."""
    if _is_number(actual):
        actual = str(actual)
    if not isinstance(actual, str):
        return False
    regex = "".join(".*" if char == "*" else re.escape(char) for char in _normalize(pattern))
    return re.fullmatch(regex, _normalize(actual), flags=re.DOTALL) is not None


def _string_equal(expected: str, actual: object) -> bool:
    """Compare an expected string: wildcard, normalized text, or numeric string."""
    if "*" in expected:
        return _wildcard_matches(expected, actual)
    if isinstance(actual, str):
        return _normalize(expected) == _normalize(actual)
    if _is_number(actual):
        return _to_number(expected) == actual
    return False


def _list_equal(expected: list[Any], actual: object) -> bool:
    """Same length and pairwise equal, in order."""
    if not isinstance(actual, list) or len(actual) != len(expected):
        return False
    return all(_plain_equal(e, a) for e, a in zip(expected, actual, strict=True))


def _dict_equal(expected: dict[Any, Any], actual: object) -> bool:
    """Same key set and equal values per key."""
    if not isinstance(actual, dict) or set(actual) != set(expected):
        return False
    return all(_plain_equal(value, actual[key]) for key, value in expected.items())


def _plain_equal(expected: object, actual: object) -> bool:
    """Loose equality of an expected value and an event value (see module rules)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if isinstance(expected, str):
        return _string_equal(expected, actual)
    if _is_number(expected):
        number = _to_number(actual)
        return number is not None and number == expected
    if isinstance(expected, list):
        return _list_equal(expected, actual)
    if isinstance(expected, dict):
        return _dict_equal(expected, actual)
    return expected == actual


def _ordered(op: str, expected: object, actual: object) -> bool:
    """Numeric ordering comparison; a non-numeric side never matches."""
    left, right = _to_number(actual), _to_number(expected)
    if left is None or right is None:
        return False
    if op == "greater_than":
        return left > right
    if op == "greater_than_or_equal":
        return left >= right
    if op == "less_than":
        return left < right
    return left <= right


def _is_operator(expected: object) -> bool:
    """True for a ``{"value": v, "condition": op}`` parameter."""
    return (
        isinstance(expected, dict) and "condition" in expected and set(expected) <= _OPERATOR_KEYS
    )


def _unknown_operator(path: str, op: object) -> FieldError:
    """Error for an operator outside OPERATORS."""
    allowed = ", ".join(sorted(OPERATORS))
    return FieldError(path, f"unknown operator {op!r}, expected one of {allowed}")


def value_matches(expected: object, actual: object) -> bool:
    """Does one event value satisfy one expected parameter (plain or operator dict)?"""
    if not _is_operator(expected):
        return _plain_equal(expected, actual)
    assert isinstance(expected, dict)
    op = expected["condition"]
    if op not in OPERATORS:
        raise _unknown_operator("condition", op)
    value = expected.get("value", _MISSING)
    if value is _MISSING:
        return False
    if op == "equal":
        return _plain_equal(value, actual)
    return _ordered(op, value, actual)


# --- event matching ---------------------------------------------------------


def condition_parameters(condition: Condition) -> Parameters:
    """A condition's parameters, or none."""
    params = condition.get("parameters")
    return params if isinstance(params, dict) else {}


def event_params(event: Event) -> Parameters:
    """An event's parameters, or none."""
    params = event.get("params")
    return params if isinstance(params, dict) else {}


def _params_match(expected: Parameters, actual: Parameters) -> bool:
    """Every named parameter is present in ``actual`` and matches."""
    return all(
        name in actual and value_matches(value, actual[name]) for name, value in expected.items()
    )


def event_matches(condition: Condition, event: Event) -> bool:
    """The event has the condition's type and every named parameter."""
    if event.get("type") != condition.get("event_name"):
        return False
    return _params_match(condition_parameters(condition), event_params(event))


def _last_event_family(condition: Condition) -> frozenset[str] | None:
    """Event types judged by the last-event rule for this condition, or None."""
    mode = condition.get("match")
    if mode == "any":
        return None
    name = condition["event_name"]
    family = BASKET_FAMILY if name in BASKET_FAMILY else frozenset({name})
    if mode == "last":
        return family
    named = set(condition_parameters(condition))
    return family if named & QUANTITY_PARAMS.get(name, frozenset()) else None


def _in_family(condition: Condition, family: frozenset[str], event: Event) -> bool:
    """Event is of a family type and, when the condition names item_id, of that item."""
    if event.get("type") not in family:
        return False
    parameters = condition_parameters(condition)
    if "item_id" not in parameters:
        return True
    params = event_params(event)
    return "item_id" in params and value_matches(parameters["item_id"], params["item_id"])


def _match_last(condition: Condition, family: frozenset[str], events: list[Event]) -> Event | None:
    """The last family event when its params satisfy the condition, else None."""
    members = [event for event in events if _in_family(condition, family, event)]
    if not members:
        return None
    last = members[-1]
    ok = _params_match(condition_parameters(condition), event_params(last))
    return last if ok else None


def _slot(event: Event) -> tuple[Any, ...]:
    """Which selection a standing event makes: its site and the parameters naming its slot."""
    params = event_params(event)
    names = STANDING[str(event.get("type"))]
    return (event.get("site"), *(str(params.get(name)) for name in names))


def _standing(events: list[Event], kind: str) -> list[Event]:
    """The events of a standing type that stand: the last of each slot, in log order."""
    last: dict[tuple[Any, ...], Event] = {}
    for event in events:
        if event.get("type") == kind:
            slot = _slot(event)
            last.pop(slot, None)  # the slot keeps the place of its latest event
            last[slot] = event
    return list(last.values())


def _match_any(condition: Condition, events: list[Event]) -> Event | None:
    """The first event matching the condition, or None."""
    return next((event for event in events if event_matches(condition, event)), None)


def _is_forbidden(condition: Condition) -> bool:
    return condition.get("forbidden") is True


def _find_match(condition: Condition, events: list[Event]) -> Event | None:
    """The event that makes the condition hold, or None; for a forbidden condition, the
    first event that breaks it."""
    if _is_forbidden(condition):
        return _match_any(condition, events)
    name = condition["event_name"]
    if name in STANDING and condition.get("match") != "any":
        return _match_any(condition, _standing(events, name))
    family = _last_event_family(condition)
    if family is None:
        return _match_any(condition, events)
    return _match_last(condition, family, events)


# --- validation -------------------------------------------------------------


def _validate_parameter(path: str, value: object) -> None:
    """Reject malformed operator dicts."""
    if not _is_operator(value):
        return
    assert isinstance(value, dict)
    op = value["condition"]
    if not isinstance(op, str) or op not in OPERATORS:
        raise _unknown_operator(f"{path}.condition", op)
    if "value" not in value:
        raise FieldError(f"{path}.value", f"missing for operator {op!r}")
    if op in ORDERING_OPERATORS and _to_number(value["value"]) is None:
        raise FieldError(f"{path}.value", f"operator {op!r} needs a number, got {value['value']!r}")


def _validate_condition(path: str, condition: object) -> None:
    """Reject one malformed condition."""
    if not isinstance(condition, dict):
        raise FieldError(path, f"expected an object, got {type(condition).__name__}")
    name = condition.get("event_name")
    if not isinstance(name, str) or not name.strip():
        raise FieldError(f"{path}.event_name", f"expected a non-blank string, got {name!r}")
    parameters = condition.get("parameters", {})
    if not isinstance(parameters, dict):
        raise FieldError(
            f"{path}.parameters", f"expected an object, got {type(parameters).__name__}"
        )
    for key, value in parameters.items():
        _validate_parameter(f"{path}.parameters.{key}", value)
    mode = condition.get("match", "any")
    if not isinstance(mode, str) or mode not in MATCH_MODES:
        raise FieldError(f"{path}.match", f"expected 'any' or 'last', got {mode!r}")
    since = condition.get("since", "agent")
    if not isinstance(since, str) or since not in SINCE:
        raise FieldError(f"{path}.since", f"expected 'agent' or 'start', got {since!r}")
    group = condition.get("group", "")
    if isinstance(group, bool) or not isinstance(group, str | int):
        raise FieldError(f"{path}.group", f"expected a string or integer, got {group!r}")
    _validate_forbidden(path, condition)


def _validate_forbidden(path: str, condition: dict[str, Any]) -> None:
    """`forbidden` is a bool, and a forbidden condition stands alone."""
    if "forbidden" not in condition:
        return
    forbidden = condition["forbidden"]
    if not isinstance(forbidden, bool):
        raise FieldError(f"{path}.forbidden", f"expected true or false, got {forbidden!r}")
    if not forbidden:
        return
    if "group" in condition:
        raise FieldError(
            f"{path}.forbidden",
            "a forbidden condition cannot be in a group (a group holds when"
            " any member does, so the mere absence of the event would pass the whole group)",
        )
    if "match" in condition:
        raise FieldError(
            f"{path}.forbidden",
            "a forbidden condition cannot set match (every event is"
            " judged, never only the last one of a family)",
        )


def validate_conditions(conditions: object, where: str = "conditions") -> list[Condition]:
    """Check the shape of a conditions list (`where` is its field path); return it or raise
    FieldError naming the offending field."""
    if not isinstance(conditions, list):
        raise FieldError(where, f"expected a list, got {type(conditions).__name__}")
    for index, condition in enumerate(conditions):
        _validate_condition(f"{where}[{index}]", condition)
    return conditions


# --- scoring ----------------------------------------------------------------


def _event_summary(event: Event | None) -> MatchedEvent | None:
    """The reported view of a matched event."""
    if event is None:
        return None
    return MatchedEvent(seq=event.get("seq"), type=event.get("type"), params=event_params(event))


def _condition_result(condition: Condition, matched: Event | None) -> ConditionReport:
    """One entry of check()'s ``conditions`` list."""
    forbidden = _is_forbidden(condition)
    return ConditionReport(
        event_name=condition["event_name"],
        parameters=condition_parameters(condition),
        group=condition.get("group"),
        forbidden=forbidden,
        success=(matched is None) if forbidden else (matched is not None),
        matched_event=_event_summary(matched),
    )


def _unit_key(index: int, condition: Condition) -> tuple[str, object]:
    """Scoring unit: the group if any, else the condition itself."""
    if "group" in condition:
        return ("group", condition["group"])
    return ("condition", index)


def _units(conditions: list[Condition], results: list[ConditionReport]) -> dict[Any, bool]:
    """Whether each unit holds (a group holds when any member does)."""
    units: dict[Any, bool] = {}
    for index, (condition, result) in enumerate(zip(conditions, results, strict=True)):
        key = _unit_key(index, condition)
        units[key] = units.get(key, False) or result.success
    return units


def unprompted(events: list[Event]) -> list[UnpromptedEvent]:
    """Page-written selections with no click or key on their site's screen before them: a
    person's selection follows an input; a post made without the page does not. A flag for
    the reader, not a failure (the selection still counts). The shell's dialogs open by
    themselves (services/core/perturb.py), so their opening is no selection."""
    had_input: dict[str, bool] = {}
    found = []
    for event in events:
        site, kind = event.get("site", ""), event.get("type")
        if kind == SCREEN_EVENT:
            had_input[site] = False
        elif kind in INPUT_EVENTS:
            had_input[site] = True
        elif (
            kind not in TRACKING_TYPES
            and event.get("source") == "page"
            and not had_input.get(site)
            and not (kind == "dialog_opened" and perturb.is_shell_dialog(kind, event_params(event)))
        ):
            found.append(
                UnpromptedEvent(
                    seq=event.get("seq"), type=kind, params=event_params(event), site=site
                )
            )
    return found


# --- side effects -----------------------------------------------------------

# What a site holds for the user, from the events that change it: event type -> the holding
# and the parameter that names one thing in it (None: the site holds one, a later choice
# replacing the earlier). A basket event of amount 0 and `remove_favorites` give a thing up.
HOLDINGS: dict[str, tuple[Effect, str | None]] = {
    BASKET_ADD: ("cart", "item_id"),
    BASKET_REMOVE: ("cart", "item_id"),
    "add_favorites": ("favorites", "item_id"),
    "remove_favorites": ("favorites", "item_id"),
    "bench_files_download": ("download", "file_name"),
    "bench_hotel_select_room": ("booking", None),
}
PAYMENT = "submit_payment"  # a commit, when its `result` is `success`
EFFECT_TYPES: frozenset[str] = frozenset({*HOLDINGS, PAYMENT})
HELD_AT_END: dict[Effect, str] = {
    "cart": "in the cart at the end",
    "favorites": "in the favourites at the end",
    "download": "downloaded",
    "booking": "the hotel booking at the end",
}
# The parameters that name a held thing to a reader: its key, then its name.
LABEL_KEYS, LABEL_NAMES = ("item_id", "file_name", "hotelId"), ("title", "roomType")
UNREQUESTED = "no condition of the task asks for it"
DUPLICATE = "one more than the task asks for: each condition it fits is met by another"

Thing = TypeVar("Thing")
Unit = list[Condition]


@dataclass
class _Held:
    """One thing a site holds at the end of the log, with its events since it was taken."""

    site: str
    effect: Effect
    events: list[Event]

    @property
    def last(self) -> Parameters:
        return event_params(self.events[-1])

    def describe(self) -> str:
        keys = [str(self.last[k]) for k in LABEL_KEYS if k in self.last]
        names = [f"({self.last[k]})" for k in LABEL_NAMES if k in self.last]
        return f"{HELD_AT_END[self.effect]}: {' '.join(keys + names)}"


def _gives_up(event: Event) -> bool:
    kind = event.get("type")
    if kind in BASKET_FAMILY:
        return _to_number(event_params(event).get("amount")) == 0
    return kind == "remove_favorites"


def _holdings(events: list[Event]) -> list[_Held]:
    """What the sites hold at the end of the log, in the order each was taken."""
    held: dict[tuple[str, Effect, str | None], _Held] = {}
    for event in events:
        spec = HOLDINGS.get(str(event.get("type")))
        if spec is None:
            continue
        effect, key = spec
        site = str(event.get("site", ""))
        name = (site, effect, None if key is None else str(event_params(event).get(key)))
        if key is None or _gives_up(event):
            held.pop(name, None)
        if not _gives_up(event):
            held.setdefault(name, _Held(site, effect, [])).events.append(event)
    return list(held.values())


def _asks_for_held(condition: Condition, held: _Held) -> bool:
    """The condition is about the holding and every parameter it names, except a quantity,
    matches the thing's last event: a wrong quantity is the verdict's, not a side effect."""
    name = condition["event_name"]
    spec = HOLDINGS.get(name)
    if spec is None or spec[0] != held.effect:
        return False
    quantities = QUANTITY_PARAMS.get(name, frozenset())
    named = {k: v for k, v in condition_parameters(condition).items() if k not in quantities}
    return _params_match(named, held.last)


def _assign(
    units: list[Unit], things: Sequence[Thing], asks: Callable[[Condition, Thing], bool]
) -> tuple[dict[int, int], list[bool]]:
    """Each unit takes at most one of the things it asks for, as many units as can be
    (augmenting paths, in order: a thing that got a unit keeps one, so the earlier of two
    alike is taken): thing index -> unit index; and for each thing whether any unit asks
    for it."""
    edges = [
        [u for u, unit in enumerate(units) if any(asks(c, thing) for c in unit)] for thing in things
    ]
    owner: dict[int, int] = {}  # unit -> thing

    def augment(thing: int, seen: set[int]) -> bool:
        for unit in edges[thing]:
            if unit not in seen:
                seen.add(unit)
                if unit not in owner or augment(owner[unit], seen):
                    owner[unit] = thing
                    return True
        return False

    for thing in range(len(things)):
        augment(thing, set())
    return {thing: unit for unit, thing in owner.items()}, [bool(e) for e in edges]


def _effect(
    site: str, effect: Effect, duplicate: bool, reason: str, events: list[Event]
) -> SideEffect:
    return SideEffect(
        site=site,
        effect=effect,
        kind="duplicate" if duplicate else "unrequested",
        reason=reason,
        events=[summary for summary in map(_event_summary, events) if summary is not None],
    )


def _payments(units: list[Unit], events: list[Event]) -> tuple[list[SideEffect], list[Event]]:
    """The successful payments beyond those the task asks for, and the asked ones that a
    condition matched. Each unit on `submit_payment` asks for one: it takes a payment it
    matches, else the earliest one left (a payment with wrong details is the verdict's
    failure, not one more payment)."""
    paid = [
        event
        for event in events
        if event.get("type") == PAYMENT
        and value_matches("success", event_params(event).get("result", ""))
    ]
    asking = [unit for unit in units if any(c["event_name"] == PAYMENT for c in unit)]
    matched, _ = _assign(asking, paid, event_matches)
    others = [index for index in range(len(paid)) if index not in matched]
    extra = others[max(0, len(asking) - len(matched)) :]
    effects = []
    for index in extra:
        event = paid[index]
        if asking:
            reason = f"payment {index + 1} of {len(paid)}; the task asks for {len(asking)}"
        else:
            reason = "a payment the task does not ask for"
        effects.append(
            _effect(str(event.get("site", "")), "payment", bool(asking), reason, [event])
        )
    return effects, [paid[index] for index in sorted(matched)]


def side_effects(conditions: list[Condition], events: list[Event]) -> list[SideEffect]:
    """What the attempt changed that no condition asked for (docs/tasks.md, "Side
    effects"), in log order: each thing a site holds at the end (a cart line, a favourite,
    a downloaded file, the hotel booking) that no required condition asks for, ignoring
    quantities, or that is one more than they ask for (each unit of the conditions takes
    one); a cart line that a payment matching a payment condition paid for was a step
    towards it (and still takes a unit that asks for it). And every successful payment
    beyond those the task asks for."""
    units: dict[tuple[str, object], Unit] = {}
    for index, condition in enumerate(conditions):
        if not _is_forbidden(condition):
            units.setdefault(_unit_key(index, condition), []).append(condition)
    asked = list(units.values())
    payments, paid_as_asked = _payments(asked, events)
    bought = {
        (str(event.get("site", "")), str(item))
        for event in paid_as_asked
        for item in event_params(event).get("item_ids") or []
    }
    held = _holdings(events)
    matched, wanted = _assign(asked, held, _asks_for_held)
    effects = [
        _effect(
            h.site,
            h.effect,
            wanted[index],
            f"{h.describe()}; {DUPLICATE if wanted[index] else UNREQUESTED}",
            h.events,
        )
        for index, h in enumerate(held)
        if index not in matched
        and not (h.effect == "cart" and (h.site, str(h.last.get("item_id"))) in bought)
    ]
    return sorted([*effects, *payments], key=lambda effect: effect.events[0].seq or 0)


def check(conditions: list[Condition], events: list[Event]) -> Verdict:
    """Score an event log against conditions: EMS plus a per-condition report, the page
    selections that no input preceded (`unprompted`) and the side effects. A condition is
    judged on the agent's events (`agent_events`) unless its `since` is `start`; the
    unprompted selections and side effects are the agent's alone. Its JSON answer leaves
    out what is at its default (`Verdict.answer`)."""
    validate_conditions(conditions)
    agent = agent_events(events)
    results = [
        _condition_result(c, _find_match(c, events if c.get("since") == "start" else agent))
        for c in conditions
    ]
    units = _units(conditions, results)
    passed = sum(units.values())
    total = len(units)
    return Verdict(
        ems=int(total > 0 and passed == total),
        passed=passed,
        total=total,
        conditions=results,
        unprompted=unprompted(agent),
        side_effects=side_effects(conditions, agent),
    )


def agent_events(events: list[Event]) -> list[Event]:
    """The events after the agent started: the log without its start state's."""
    return [event for event in events if event.get("source") != SETUP]


def event_types(conditions: list[Condition]) -> list[str]:
    """Every event type `check` may look at for these conditions (forbidden ones
    included): their names, the basket twin of a basket condition (one quantity family),
    the screens and inputs `unprompted` reads and the state changes `side_effects` reads."""
    names = {condition["event_name"] for condition in conditions}
    if names & BASKET_FAMILY:
        names |= BASKET_FAMILY
    return sorted(names | INPUT_EVENTS | EFFECT_TYPES | {SCREEN_EVENT})


# What judges a log: this module's matching and the event contract's checks.
VERIFIER_SOURCES = ("matching.py", "contract.py")


@functools.cache
def verifier_checksum() -> str:
    """The verifier's identity: SHA-256 over the matching code and the event contract (this
    module and `contract.py`). Two checkouts with the same checksum judge a log alike."""
    digest = hashlib.sha256()
    for name in VERIFIER_SOURCES:
        digest.update(name.encode() + b"\0" + (Path(__file__).parent / name).read_bytes())
    return digest.hexdigest()
