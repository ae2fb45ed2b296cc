"""The sites, each declared once: a descriptor in the entry-point group `webpagebench.sites`.

A site package declares itself with a `SiteDescriptor` (its `site.py`) named in that group
(pyproject.toml; another package adds its own the same way, docs/sites.md "Adding a site").
Everything else reads the descriptors through `registry()`: the hub's tabs, the stack's
services, the variant keys, the validator's screens and vocabulary, the audit's class
evidence, the task generator's search and the event types a plug-in adds to the contract
(the oracle's solvers are the runner's plug-ins: runner/harnesses/oracle/__init__.py). What
a descriptor names in code ("module:attribute") is imported only when it is used, so
reading the registry imports no web framework.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pydantic import BaseModel

from services.core import perturb

ENTRY_POINT_GROUP = "webpagebench.sites"
# What the page shell and the kit implement on every site (services/kit/templates/kit/shell.html):
# the theme and the perturbations (services/core/perturb.py).
SHELL_CONTROLS: dict[str, tuple[str, ...]] = {"theme": ("light", "dark", "unified"), **perturb.KEYS}
DOMAIN_KEY = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
REFERENCE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


class SiteError(ValueError):
    """A site plug-in that cannot be used; the message names the plug-in."""


@dataclass(frozen=True)
class Evidence:
    """An event that evidences a UI class (docs/tasks.md, "UI classes"): one of type `event`
    that carries the parameter `having` (when named) whose number is at least `at_least`
    (when given). With `alone`, the rule is all that decides for that type: the audit's
    evidence by parameters (a date, a city, several people) does not count for it."""

    ui_class: str
    event: str
    having: str | None = None
    at_least: float | None = None
    alone: bool = False


@dataclass(frozen=True)
class SiteDescriptor:
    """One site as the rest of the benchmark knows it."""

    domain: str  # the key of its tab, its paths and its task files (`shop`)
    caption: str  # the tab's caption (`Маркет`)
    order: int  # the tab's place, lowest first
    app: str  # the module whose `create_app(settings)` builds its service
    events: frozenset[str]  # the event types it writes
    # What its pages show, as a number bumped by any change of it (services/CHANGES.md): a
    # run's manifest records each site's, and the board never ranks runs of two together.
    version: int = 1
    # "module:function" hooks of its catalog, for the validator and the audit: the screens
    # (`new_state` values), the vocabulary (parameter -> known values), a task's own problems.
    screens: str | None = None
    vocabulary: str | None = None
    task_problems: str | None = None
    # "module:function": id -> what a person calls it (a product's title, a city's label),
    # for the ids a condition names: the pages write a condition in words with them.
    names: str | None = None
    # "module:function": the site's search for the task generator, `search(query, among) ->
    # set[str]`: the ids of the items its search finds with every word of `query` (none
    # where no item has them all); `among` names the index where the site has two (hotels:
    # `cities`, else "").
    search: str | None = None
    # "module:function": the site's start-state replay (a services.kit.replay.Replay over
    # its catalog), whose `check(event_name, parameters)` the validator calls.
    replay: str | None = None
    # variant key -> implementations, the default first (docs/tasks.md, "Variants"); the
    # page shell's own (SHELL_CONTROLS) come with every site.
    controls: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    evidence: tuple[Evidence, ...] = ()
    # event type -> the screens (`state_changed.new_state`) whose controls write it: where a
    # failed attempt could have written an unmet condition's event (services/core/failure.py).
    writers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Event types it adds to the released contract: name -> its parameters (a subclass of
    # services.core.contract.Params).
    event_types: Mapping[str, type[BaseModel]] = field(default_factory=dict)

    def hook(self, name: str) -> Any | None:
        """What the hook `name` (screens, vocabulary, task_problems, names, search, replay)
        references, imported now; None where the site names none."""
        reference: str | None = getattr(self, name)
        return None if reference is None else load(reference)


def load(reference: str) -> Any:
    """What a "module:attribute" reference names, imported now."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _problems(site: SiteDescriptor) -> list[str]:
    """What is wrong with the descriptor, each problem a phrase."""
    problems = []
    if not DOMAIN_KEY.match(site.domain):
        problems.append(f"domain {site.domain!r} is not a key (lowercase letters, digits, _)")
    if not site.caption.strip():
        problems.append("caption is empty")
    if not site.app or ":" in site.app:
        problems.append(f"app {site.app!r} must name a module (its create_app builds the app)")
    if isinstance(site.version, bool) or not isinstance(site.version, int) or site.version < 1:
        problems.append(f"version {site.version!r} must be a whole number, 1 or more")
    for name in ("screens", "vocabulary", "task_problems", "names", "search", "replay"):
        reference = getattr(site, name)
        if reference is not None and not REFERENCE.match(reference):
            problems.append(f"{name} {reference!r} is not a 'module:function' reference")
    return problems + _declared_problems(site)


def _declared_problems(site: SiteDescriptor) -> list[str]:
    """What is wrong with the site's controls, evidence and event types."""
    problems = []
    for key, implementations in site.controls.items():
        if key in SHELL_CONTROLS:
            problems.append(f"control {key!r} is the page shell's, every site has it")
        if not implementations or len(set(implementations)) != len(implementations):
            problems.append(f"control {key!r}: implementations must be distinct, at least one")
    for rule in site.evidence:
        if rule.event not in site.events:
            problems.append(f"evidence names {rule.event!r}, an event the site does not write")
        if rule.at_least is not None and rule.having is None:
            problems.append(f"evidence for {rule.event!r}: at_least needs the parameter having")
    for name in site.writers:
        if name not in site.events:
            problems.append(f"writers names {name!r}, an event the site does not write")
    for name in site.event_types:
        if name not in site.events:
            problems.append(f"event type {name!r} is declared but not among its events")
    return problems


def _descriptor(entry: EntryPoint) -> SiteDescriptor:
    where = f"site plug-in {entry.name!r} ({entry.value})"
    try:
        site = entry.load()
    except (ImportError, AttributeError) as exc:
        raise SiteError(f"{where}: cannot be loaded: {exc}") from exc
    if not isinstance(site, SiteDescriptor):
        raise SiteError(f"{where}: is {type(site).__name__}, not a SiteDescriptor")
    problems = _problems(site)
    if site.domain != entry.name:
        problems.append(f"declares domain {site.domain!r}, its entry point is {entry.name!r}")
    if problems:
        raise SiteError(f"{where}: {'; '.join(problems)}")
    return site


class Registry:
    """The declared sites in tab order, and what is derived from them."""

    def __init__(self, descriptors: list[SiteDescriptor]) -> None:
        self.sites = tuple(sorted(descriptors, key=lambda s: (s.order, s.domain)))
        self.by_domain = {site.domain: site for site in self.sites}
        # domain -> tab caption, in tab order
        self.captions = {site.domain: site.caption for site in self.sites}
        # domain -> variant key -> implementations, the default first; and by key
        self.site_controls = {
            site.domain: {
                key: list(impls) for key, impls in {**site.controls, **SHELL_CONTROLS}.items()
            }
            for site in self.sites
        }
        self.controls: dict[str, dict[str, list[str]]] = {}
        for domain, controls in self.site_controls.items():
            for key, implementations in controls.items():
                self.controls.setdefault(key, {})[domain] = implementations
        # event type -> the sites that write it, and the screens whose controls do
        self.sites_of: dict[str, frozenset[str]] = {}
        self.writers: dict[str, frozenset[str]] = {}
        for site in self.sites:
            for name in site.events:
                self.sites_of[name] = self.sites_of.get(name, frozenset()) | {site.domain}
            for name, screens in site.writers.items():
                self.writers[name] = self.writers.get(name, frozenset()) | set(screens)
        # event type -> its parameters (and the domain that declares it), of the types the
        # plug-ins add to the contract
        self.event_types: dict[str, type[BaseModel]] = {}
        self.declared_by: dict[str, str] = {}
        for site in self.sites:
            for name, schema in site.event_types.items():
                if name in self.declared_by:
                    raise SiteError(
                        f"site plug-in {site.domain!r}: event type {name!r} is already"
                        f" declared by {self.declared_by[name]!r}"
                    )
                self.declared_by[name] = site.domain
                self.event_types[name] = schema

    def site(self, domain: str) -> SiteDescriptor | None:
        return self.by_domain.get(domain)


@cache
def registry() -> Registry:
    """Every site declared in the entry-point group, ours and other packages', checked."""
    descriptors: dict[str, SiteDescriptor] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        site = _descriptor(entry)
        if site.domain in descriptors:
            raise SiteError(
                f"site plug-in {entry.name!r} ({entry.value}): domain {site.domain!r} is"
                " declared twice"
            )
        descriptors[site.domain] = site
    return Registry(list(descriptors.values()))
