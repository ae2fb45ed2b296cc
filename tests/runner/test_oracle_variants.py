"""The oracle under the implementations of each site's controls that the released suite
(test_suite.py: every task file, canonical and variant, once) gives only a few tasks: every
canonical task of a site under each of its profiles below (the shops' is the `unified`
theme), and the search donors of Маркет, Книги and Продукты under the `text_search` style
their variant files do not have. Together with the suite, the oracle meets every
implementation of every key on every site. In `make test` a covering part: for each key of
a profile, the first task that uses the control; every task under `full`. The episodes are
the corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest
from support.runs import failures, site_tasks, with_variants

from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from services.core.perturb import KEYS as PERTURBATIONS
from services.core.sites import registry
from services.core.variants import defaults

# site -> profiles; each renders every canonical task of the site.
PROFILES: dict[str, list[dict[str, str]]] = {
    "hotels": [
        {
            "date": "inline_calendar",
            "select_city": "native_select",
            "counter_guests": "inline_stepper",
            "theme": "unified",
        },
        {"date": "text_input", "select_city": "autocomplete", "counter_guests": "compact_select"},
        {"date": "single_popup", "select_city": "native_select", "counter_guests": "pill_buttons"},
    ],
    "rail": [
        {"date": "native_input", "select_station": "native_select", "theme": "unified"},
        {"date": "text_input", "select_station": "typeahead"},
    ],
    "files": [
        {"collections": "list", "years": "buttons", "buttons": "icon", "theme": "unified"},
        {"collections": "tree", "years": "radio", "buttons": "solid"},
        {"collections": "compact", "years": "select", "buttons": "split", "theme": "dark"},
    ],
    # The one look of all sites (docs/sites.md, "Identity") on the shops' theme donors.
    **{site: [{"theme": "unified"}] for site in ("shop", "books", "grocery")},
}
CONTROLS = registry().controls
CONTROL_SUITES = ("released", "safety", "screens", "steps")
# A search field's style shows only where a task searches: the sites' search donors (those
# the variant files render under `text_search`) under the style those files lack.
SEARCH_STYLE = {"text_search": "large"}

# (site, profile, whether only the site's search donors take it)
CASES = [
    pytest.param(site, variants, False, id=f"{site}-{'-'.join(variants.values())}")
    for site, profiles in PROFILES.items()
    for variants in profiles
] + [
    pytest.param(site, SEARCH_STYLE, True, id=f"{site}-search-donors-large")
    for site in CONTROLS["text_search"]
]


def suite_files() -> list:
    """The task files of the suites whose variants render controls (the injection carriers'
    are the safety suite's; the screens suite's search donor is Продукты'; the steps are the
    steps suite's, test_steps_suite.py)."""
    return [ref for suite in CONTROL_SUITES for ref in select_tasks(TASKS_DIR, None, None, suite)]


def variant_files() -> list:
    return [ref for ref in suite_files() if ref.is_variant]


def users(site: str, key: str) -> list:
    """The canonical tasks of a site, of any of those suites, that use the control `key`:
    those that have variant files rendering it."""
    donors = {ref.donor for ref in variant_files() if key in ref.task["test_data"]["ui_variants"]}
    return [ref for ref in suite_files() if ref.site == site and ref.name in donors]


def every_task(site: str, variants: dict[str, str], donors_only: bool) -> list:
    """The tasks a case renders: the site's canonical ones, or only its search donors."""
    return users(site, "text_search") if donors_only else site_tasks(site)


def covering(site: str, variants: dict[str, str], donors_only: bool) -> list:
    """For each key of the case's profile, the first task that uses the control."""
    return list({ref.name: ref for key in variants for ref in users(site, key)[:1]}.values())


def profile_of(site: str, variants: dict[str, str]) -> str:
    return f"{site}_" + "_".join(variants.values())


def runs(tasks_of: Callable[[str, dict[str, str], bool], list]) -> list:
    """Each case's tasks (`tasks_of` the case) under its profile."""
    return [
        ref
        for site, variants, donors_only in (case.values for case in CASES)
        for ref in with_variants(
            tasks_of(site, variants, donors_only), site, variants, profile_of(site, variants)
        )
    ]


def test_with_the_suite_every_implementation_is_run() -> None:
    """Every implementation of every key, on each site that has the key, is the site's
    default, in a variant file of the suite, or in a case here; an `inject` carrier, in a
    variant file of the safety suite (its oracle runs: test_injection*.py); a perturbation,
    which the shell implements once for every site, in a variant file of the robustness
    suite on some site (test_oracle_layout.py, test_oracle_perturbations.py)."""
    injected = [
        ref
        for suite in ("safety", "robustness")
        for ref in select_tasks(TASKS_DIR, None, None, suite)
        if ref.is_variant
    ]
    profiles = [(site, defaults(site)) for site in registry().captions]
    profiles += [
        (ref.site, ref.task["test_data"]["ui_variants"]) for ref in variant_files() + injected
    ]
    profiles += [(site, variants) for site, listed in PROFILES.items() for variants in listed]
    profiles += [(site, SEARCH_STYLE) for site in CONTROLS["text_search"]]
    run = {
        ("*" if key in PERTURBATIONS else site, key, impl)
        for site, variants in profiles
        for key, impl in variants.items()
    }
    every = {
        ("*" if key in PERTURBATIONS else site, key, impl)
        for key, per_site in CONTROLS.items()
        for site, impls in per_site.items()
        for impl in impls
    }
    assert every - run == set()


def solved(corpus, tasks: list, site: str, variants: dict[str, str]) -> None:
    """The oracle solves these tasks under the profile."""
    assert tasks
    profile = profile_of(site, variants)
    records = corpus.oracle.records(with_variants(tasks, site, variants, profile))
    assert failures(records) == {}
    assert all(r.done_and_pass == 1 and r.steps > 0 for r in records)
    assert all(r.variant and r.profile == profile for r in records)


@pytest.mark.corpus(oracle=partial(runs, covering))
@pytest.mark.parametrize(("site", "variants", "donors_only"), CASES)
def test_oracle_solves_a_covering_part_under_a_profile(
    corpus, site: str, variants: dict[str, str], donors_only: bool
) -> None:
    solved(corpus, covering(site, variants, donors_only), site, variants)


@pytest.mark.full
@pytest.mark.corpus(oracle=partial(runs, every_task))
@pytest.mark.parametrize(("site", "variants", "donors_only"), CASES)
def test_oracle_solves_every_task_under_a_profile(
    corpus, site: str, variants: dict[str, str], donors_only: bool
) -> None:
    solved(corpus, every_task(site, variants, donors_only), site, variants)
