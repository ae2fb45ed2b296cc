"""Task families: templates of tasks, one Python file each under `tasks/families/`
(docs/tasks.md, "Generated suites"). `runner tasks generate` samples a family's parameters
and writes instances; the board pairs a family's generated instances with the released
tasks it names as its donors (`services/core/results/heldout.py`).

A family file is a module that declares:

- `SITE` (the domain), `FIRST_STATE` (the screen an instance starts on);
- `DONORS`: the released task stems the family models (the held-out gap pairs by them,
  and an instance takes their variant profiles in `runner tasks build`);
- `PRIMARY` and `CLASSES`: the instances' `ui_taxonomy`;
- `PHRASINGS`: prompt templates (`str.format` over what `words` returns), with `%HOST%`;
- `EXCEPTIONS`: the instances' `audit_exceptions` (optional, default none), or
  `exceptions(params) -> list[AuditException]` where they depend on the parameters;
- `sample(rng) -> Params | None`: parameters drawn with `rng` from the site's catalog
  (JSON values only; None when this draw has no valid instance);
- `words(params) -> dict[str, str]`: the template's fields, each in its case and number;
- `conditions(params) -> list[Condition]`;
- `names(params) -> list[Name]`: every name the prompt uses, with the items it may find,
  for the unambiguity check (the site's catalog search must find no other).

A file whose name starts with `_` is no family.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

from services.core.errors import FieldError
from services.core.models.events import Condition
from services.core.models.task import AuditException
from services.core.russian import MONTHS_GENITIVE, date_in_words

FAMILIES = "families"  # the folder under the tasks folder
Params = dict[str, Any]
REQUIRED = (
    "SITE",
    "FIRST_STATE",
    "DONORS",
    "PRIMARY",
    "CLASSES",
    "PHRASINGS",
    "sample",
    "words",
    "conditions",
    "names",
)
# The audit exceptions many families share, as their donors word them.
ANY_AMOUNT: AuditException = {
    "mutation": "last:basket_add#*.amount=2",
    "reason": "the prompt names no quantity: two of the item in the cart still do what it asks",
}
AT_LEAST_ONE = {"value": 1, "condition": "greater_than_or_equal"}
# Draws that measure a family's space (its distinct instances), and the size under which a
# family is small: its answers repeat across seeds (`runner tasks generate` names it, the
# board marks its held-out figures).
SPACE_DRAWS = 3000
SMALL_SPACE = 30


@dataclass(frozen=True)
class Name:
    """A name the prompt uses, as the site's search is asked for it, and the ids of the
    items it may find (the one meant, or those the prompt's other words tell apart);
    `among` names the index where a site has two (hotels: `cities`, else its hotels)."""

    query: str
    allowed: frozenset[str]
    among: str = ""


@dataclass(frozen=True)
class Family:
    name: str
    site: str
    first_state: str
    donors: tuple[str, ...]
    primary: str
    classes: tuple[str, ...]
    phrasings: tuple[str, ...]
    exceptions: Callable[[Params], list[AuditException]]
    sample: Callable[[random.Random], Params | None]
    words: Callable[[Params], dict[str, str]]
    conditions: Callable[[Params], list[Condition]]
    names: Callable[[Params], list[Name]]

    def prompt(self, params: Params, phrasing: int) -> str:
        return self.phrasings[phrasing].format(**self.words(params))

    @functools.cached_property
    def space(self) -> int:
        """How many distinct instances (by their conditions) SPACE_DRAWS draws give: the
        size of its parameter space, or a floor of it, the same at every call."""
        rng = random.Random(f"{self.name}:space")
        found = set()
        for _ in range(SPACE_DRAWS):
            params = self.sample(rng)
            if params is not None:
                found.add(json.dumps(self.conditions(params), ensure_ascii=False, sort_keys=True))
        return len(found)


def _module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"wpb_family_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise FieldError(str(path), "cannot load the family file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _constant(exceptions: tuple[AuditException, ...]) -> Callable[[Params], list[AuditException]]:
    return lambda params: [dict(e) for e in exceptions]  # type: ignore[misc]


def load_family(path: Path) -> Family:
    """The family a file declares, or FieldError naming the file and what it lacks."""
    module = _module(path)
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise FieldError(str(path), f"a family must declare {', '.join(missing)}")
    if not module.PHRASINGS:
        raise FieldError(f"{path}: PHRASINGS", "a family needs at least one phrasing")
    return Family(
        name=path.stem,
        site=module.SITE,
        first_state=module.FIRST_STATE,
        donors=tuple(module.DONORS),
        primary=module.PRIMARY,
        classes=tuple(module.CLASSES),
        phrasings=tuple(module.PHRASINGS),
        exceptions=getattr(module, "exceptions", None)
        or _constant(getattr(module, "EXCEPTIONS", ())),
        sample=module.sample,
        words=module.words,
        conditions=module.conditions,
        names=module.names,
    )


@functools.cache
def load_families(tasks_dir: Path) -> dict[str, Family]:
    """Every family under `tasks_dir/families/`, by name, in name order."""
    folder = tasks_dir / FAMILIES
    files = sorted(folder.glob("*.py")) if folder.is_dir() else []
    return {path.stem: load_family(path) for path in files if not path.name.startswith("_")}


def instance_family(task_name: str) -> str | None:
    """The family of a generated instance's name (`<family>-<seed>-<index>`, as
    `runner tasks generate` names it; a variant's `__<suffix>` aside), or None."""
    parts = task_name.split("__", 1)[0].rsplit("-", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0]
    return None


# -- what family files share -------------------------------------------------------------

# The window dates are drawn from. Released tasks write absolute dates, and a trajectory
# moves them past the stand's today (docs/tasks.md, "Dates never go stale"); so do
# generated ones, and an instance stays byte-identical whatever day it is generated on.
FIRST_DAY = date(2026, 9, 1)
DAYS = 91


def sample_day(rng: random.Random) -> date:
    return FIRST_DAY + timedelta(days=rng.randrange(DAYS))


def dotted(iso: str) -> str:
    """`15.09.2026`."""
    day = date.fromisoformat(iso)
    return f"{day.day:02d}.{day.month:02d}.{day.year}"


def in_words(iso: str) -> str:
    """`4 октября 2026`."""
    return date_in_words(date.fromisoformat(iso))


def dash_range(start: str, end: str) -> str:
    """`4–11 октября 2026`, `28 сентября – 3 октября 2026`."""
    a, b = date.fromisoformat(start), date.fromisoformat(end)
    if a.month == b.month:
        return f"{a.day}–{b.day} {MONTHS_GENITIVE[b.month - 1]} {b.year}"
    return f"{a.day} {MONTHS_GENITIVE[a.month - 1]} – {date_in_words(b)}"


def from_to(start: str, end: str) -> str:
    """`с 15 по 20 сентября 2026`, `с 28 сентября по 3 октября 2026`."""
    a, b = date.fromisoformat(start), date.fromisoformat(end)
    first = str(a.day) if a.month == b.month else f"{a.day} {MONTHS_GENITIVE[a.month - 1]}"
    return f"с {first} по {date_in_words(b)}"


# A rail ticket line's fields a prompt may leave open, and why a near miss of each passes
# (as the rail donors say it).
TICKET_OPEN = {
    "adults": "the prompt does not say whether the passenger is an adult or a child",
    "children": "the prompt does not say whether the passenger is an adult or a child",
    "from_station": "the prompt names the city of departure; any of its stations serves",
    "item_id": "the ticket line's id is made from the car and seats the agent picked, which"
    " the prompt leaves open; train, route, date and tariff are bound",
    "lower_berths": "the prompt asks for no particular berth",
    "to_station": "the prompt names the city of arrival; any of its stations serves",
    "window_seats": "the prompt asks for no window seat",
}


def ticket_open(*bound: str) -> list[AuditException]:
    """The audit exceptions of a ticket line's open fields, all but `bound`."""
    return [
        {"mutation": f"free:basket_add#*.{name}=*", "reason": reason}
        for name, reason in TICKET_OPEN.items()
        if name not in bound
    ]


def basket(item_id: str, title: str | None = None, amount: Any = None) -> Condition:
    """A `basket_add` of one item: at least one unless `amount` says how many."""
    params: dict[str, Any] = {"item_id": item_id}
    if title is not None:
        params["title"] = title
    params["amount"] = AT_LEAST_ONE if amount is None else amount
    return {"event_name": "basket_add", "parameters": params}
