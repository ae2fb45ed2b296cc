"""The task suite: variants built from a map, a static validator, listing and showing.

Canonical tasks are written by hand in `tasks/canonical/<site>/`; variants are generated
into `tasks/variants/<site>/` from `tasks/variants.toml`, never written by hand. A variant
is a copy of its donor whose only differences are `ui_variants`, `ui_variant_profile` and
`domain_configs` (and `suite`, where its profile names one): the prompt stays byte-identical,
and so do the conditions, but for the `forbidden` ones a profile may add at their end (an
injection's goal, docs/tasks.md "Injection"): the one field a profile may add.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any, TypeGuard

from services.core.contract import parameter_names
from services.core.dateshift import shift_task
from services.core.errors import FieldError
from services.core.models.events import Condition
from services.core.models.task import Task
from services.core.sites import registry
from services.core.stops import stop_problems
from services.core.tasks import check_suite, check_task, start_domain, suite_of, task_files
from services.core.variants import check_selection

CANONICAL = "canonical"
GENERATED = "variants"
MAP_FILE = "variants.toml"
HUB_STATES = {"bench_hub_main"}
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def dump(task: Task) -> str:
    """The one serialisation of a task file (so a build reproduces committed files)."""
    return json.dumps(task, ensure_ascii=False, indent=2) + "\n"


# -- the variant map ---------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    name: str  # ui_variant_profile, e.g. "hotels_date_inline_calendar"
    domain: str
    ui_variants: dict[str, str]
    suffix: str  # file-name suffix after "__", e.g. "date_inline_calendar"
    suite: str | None = None  # the variants' suite; None: their donor's
    # Conditions the variants add, each forbidden (an attack's goal); the donor's stay.
    forbidden: tuple[Condition, ...] = ()


# What a profile may say; anything else it would add to its variants is refused.
PROFILE_FIELDS = frozenset({"domain", "ui_variants", "suffix", "suite", "forbidden"})
FORBIDDEN_FIELDS = frozenset({"event_name", "parameters", "forbidden"})


def forbidden_conditions(value: Any, where: str) -> tuple[Condition, ...]:
    """A profile's `forbidden`: a list of `{event_name, parameters}`, each made forbidden;
    a condition that would add anything else (a group, a match, a required condition) is
    refused naming the field."""
    if not isinstance(value, list):
        raise FieldError(where, "a list of conditions, each {event_name, parameters}")
    conditions = []
    for index, entry in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("event_name"), str):
            raise FieldError(at, "a condition {event_name, parameters}")
        for key in entry:
            if key not in FORBIDDEN_FIELDS:
                raise FieldError(
                    f"{at}.{key}", "a profile adds forbidden conditions only, nothing else"
                )
        if entry.get("forbidden", True) is not True:
            raise FieldError(f"{at}.forbidden", "a profile adds forbidden conditions only")
        condition: Condition = {
            "event_name": entry["event_name"],
            "parameters": dict(entry.get("parameters") or {}),
            "forbidden": True,
        }
        conditions.append(condition)
    return tuple(conditions)


def load_map(tasks_dir: Path) -> tuple[dict[str, Profile], list[tuple[str, str]]]:
    """Profiles by name, and the (donor stem, profile name) pairs to build."""
    raw = tomllib.loads((tasks_dir / MAP_FILE).read_text(encoding="utf-8"))
    profiles = {}
    for name, spec in raw["profiles"].items():
        for key in spec:
            if key not in PROFILE_FIELDS:
                raise FieldError(
                    f"{MAP_FILE}: profiles.{name}.{key}",
                    "a profile may set domain, ui_variants, suffix and suite, and add"
                    " forbidden conditions: nothing else",
                )
        # Each implementation must be one the profile's site has (an `inject` carrier too).
        selection = check_selection(
            spec["ui_variants"], f"{MAP_FILE}: profiles.{name}.ui_variants", spec["domain"]
        )
        suffix = spec.get("suffix") or "_".join(f"{k}_{v}" for k, v in selection.items())
        suite = spec.get("suite")
        if suite is not None:
            check_suite(suite, f"{MAP_FILE}: profiles.{name}.suite")
        forbidden = forbidden_conditions(
            spec.get("forbidden", []), f"{MAP_FILE}: profiles.{name}.forbidden"
        )
        profiles[name] = Profile(name, spec["domain"], selection, suffix, suite, forbidden)
    pairs = [
        (donor, profile)
        for group in raw["groups"]
        for donor in group["donors"]
        for profile in group["profiles"]
    ]
    return profiles, pairs


def make_variant(donor: Task, profile: Profile) -> Task:
    variant = copy.deepcopy(donor)
    data = variant["test_data"]
    data["ui_variants"] = dict(profile.ui_variants)
    data["ui_variant_profile"] = profile.name
    if profile.suite is not None:
        data["suite"] = profile.suite
    data["conditions"] = [*data["conditions"], *copy.deepcopy(profile.forbidden)]
    variant["domain_configs"] = {profile.domain: {"ui_variants": dict(profile.ui_variants)}}
    return variant


def build(tasks_dir: Path, write: bool = True) -> dict[Path, str]:
    """Every variant file the map asks for, as path -> text; written unless `write` is off.
    Files under tasks/variants that the map no longer names are removed."""
    profiles, pairs = load_map(tasks_dir)
    donors = {p.stem: p for p in task_files(tasks_dir / CANONICAL)}
    wanted: dict[Path, str] = {}
    for stem, profile_name in pairs:
        if stem not in donors:
            raise FieldError(f"{MAP_FILE}", f"donor {stem!r} is not a canonical task")
        if profile_name not in profiles:
            raise FieldError(f"{MAP_FILE}", f"unknown profile {profile_name!r}")
        profile = profiles[profile_name]
        donor_path = donors[stem]
        donor = json.loads(donor_path.read_text(encoding="utf-8"))
        site = donor_path.parent.name
        path = tasks_dir / GENERATED / site / f"{stem}__{profile.suffix}.json"
        if path in wanted:
            raise FieldError(f"{MAP_FILE}", f"{path.name} is built twice")
        wanted[path] = dump(make_variant(donor, profile))
    if write:
        for stale in set(task_files(tasks_dir / GENERATED)) - set(wanted):
            stale.unlink()
        for path, text in wanted.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
    return wanted


# -- the validator -----------------------------------------------------------------------


def upstream_main(domain: Any) -> str:
    """How upstream task files name a site's main screen (`state_<domain>_main`)."""
    return f"state_{domain}_main"


def _norm(value: str) -> str:
    return value.strip().casefold()


def _plain(value: Any) -> TypeGuard[str]:
    """A value the validator can look up: a plain string without wildcards."""
    return isinstance(value, str) and "*" not in value


@cache
def replay_of(domain: str) -> Any:
    """The start-state replay of a site (its descriptor's `replay` hook), or None."""
    site = registry().site(domain)
    make = site.hook("replay") if site else None
    return make() if make else None


def start_problems(data: Any, name: str) -> list[str]:
    """The start state's events that their sites would refuse to replay (unknown items,
    types a site does not replay, parameters its catalog does not know)."""
    problems = []
    for index, item in enumerate(data.get("start_state") or []):
        where = f"{name}.test_data.start_state[{index}]"
        replay = replay_of(start_domain(item, data.get("bench_first_domain")) or "")
        if replay is None:
            problems.append(f"{where}: its site replays no start state")
            continue
        try:
            replay.check(item["event_name"], dict(item.get("parameters") or {}))
        except FieldError as exc:
            problems.append(f"{where}.{exc}")
    return problems


def validate(task: Any, name: str) -> list[str]:
    """Every problem of one task file, each naming the file, the condition and the field."""
    try:
        check_task(task, name)
    except FieldError as exc:
        return [str(exc)]
    data = task["test_data"]
    problems = []
    domain = data.get("bench_first_domain")
    if domain is None:
        problems.append(f"{name}.test_data.bench_first_domain: missing")
    site = registry().site(domain) if isinstance(domain, str) else None
    vocabulary_of = site.hook("vocabulary") if site else None
    vocabulary = vocabulary_of() if vocabulary_of else {}
    screens_of = site.hook("screens") if site else None
    states = screens_of() | HUB_STATES if screens_of else None
    first_state = data.get("bench_first_state")
    if first_state == upstream_main(domain):  # an upstream file's name of the main screen
        first_state = None
    if states is not None and first_state is not None and first_state not in states:
        problems.append(f"{name}.test_data.bench_first_state: unknown screen {first_state!r}")
    for index, condition in enumerate(data["conditions"]):
        where = f"{name}.test_data.conditions[{index}]"
        accepted = parameter_names(condition["event_name"])
        for param, expected in (condition.get("parameters") or {}).items():
            if param not in accepted:
                problems.append(
                    f"{where}.parameters.{param}: not a parameter of {condition['event_name']!r}"
                )
                continue
            value = expected.get("value") if isinstance(expected, dict) else expected
            if isinstance(value, str) and ISO_DATE.match(value):
                try:
                    date.fromisoformat(value)
                except ValueError:
                    problems.append(f"{where}.parameters.{param}: {value!r} is not a date")
            if (
                param == "new_state"
                and states is not None
                and _plain(value)
                and value not in states
            ):
                problems.append(f"{where}.parameters.new_state: unknown screen {value!r}")
            known = vocabulary.get(param)
            if known is not None and _plain(value) and _norm(value) not in map(_norm, known):
                problems.append(
                    f"{where}.parameters.{param}: {value!r} is not in the {domain} catalog"
                )
    problems.extend(start_problems(data, name))
    problems.extend(f"{name}: {p}" for p in stop_problems(data["task"], domain, data["conditions"]))
    task_problems = site.hook("task_problems") if site else None
    if task_problems:
        problems.extend(f"{name}: {p}" for p in task_problems(data))
    if site is not None:
        try:  # the task-level selection must exist on the task's own site
            check_selection(data.get("ui_variants") or {}, f"{name}.test_data.ui_variants", domain)
        except FieldError as exc:
            problems.append(str(exc))
    return problems


def validate_paths(paths: list[Path]) -> dict[Path, list[str]]:
    """Problems per file; a folder means every task file under it."""
    files = [f for p in paths for f in (task_files(p) if p.is_dir() else [p])]
    report = {}
    for path in files:
        try:
            task = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            report[path] = [f"{path.stem}: cannot read ({exc})"]
            continue
        report[path] = validate(task, path.stem)
    return report


# -- listing -----------------------------------------------------------------------------


def counts(tasks_dir: Path, suite: str) -> dict[str, Counter[str]]:
    """The tasks of `suite` by site, UI class (primary and all) and kind; the facet `suite`
    counts the files of every suite."""
    tally: dict[str, Counter[str]] = {
        "site": Counter(),
        "primary": Counter(),
        "class": Counter(),
        "kind": Counter(),
        "suite": Counter(),
    }
    for path in task_files(tasks_dir):
        task = json.loads(path.read_text(encoding="utf-8"))
        tally["suite"][suite_of(task)] += 1
        if suite_of(task) != suite:
            continue
        data = task["test_data"]
        taxonomy = data.get("ui_taxonomy") or {}
        tally["site"][data.get("bench_first_domain", "?")] += 1
        tally["primary"][taxonomy.get("primary", "?")] += 1
        tally["class"].update(taxonomy.get("classes", []))
        tally["kind"]["variant" if "__" in path.stem else "canonical"] += 1
    return tally


def shown_prompt(task: Task, today: date, host: str) -> tuple[str, int]:
    """The prompt as an agent would receive it on `today`, and the date shift."""
    shifted, days = shift_task(task["test_data"], today)
    return shifted["task"].replace("%HOST%", host), days
