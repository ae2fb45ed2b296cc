"""The page tests' covering design (support.pages.page_matrix), proved from the registries: the
default selection runs every perturbation, and the page as it is, on every site, and each of
them and each site at every screen; `full` holds the rest of the product. The page tests as
written (their parametrization) hold every case. A page test that takes both screens from the
fixture runs at one by default, its module's tests at each in turn (support.pages.cover_screens)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from support.pages import SCREENS, cover_screens, page_matrix, perturbations

from services.core import perturb
from services.core.sites import registry

SITES = list(registry().captions)
# The modules of page tests run through page_matrix.
PAGE_TESTS = [
    Path(__file__).parent / "test_mobile.py",
    Path(__file__).parent / "kit" / "test_perturb_layout.py",
    Path(__file__).parent / "kit" / "test_perturb_overlays.py",
]

Case = tuple[frozenset[tuple[str, str]], str, str]
# What page_matrix parametrizes.
MATRIX = ("variants", "domain", "screen_page")


def cases(mark: Any) -> Iterator[tuple[Case, bool]]:
    """Each case of a page_matrix mark as (variants, domain, screen), and whether the default
    selection runs it."""
    for param in mark.args[1]:
        variants, domain, screen = param.values
        default = not any(m.name == "full" for m in param.marks)
        yield (frozenset(variants.items()), domain, screen.name), default


def pairs(cases: list[Case], first: int, second: int) -> set[tuple[Any, Any]]:
    return {(case[first], case[second]) for case in cases}


def test_the_default_selection_covers_every_pair_once() -> None:
    every = list(cases(page_matrix(product(perturbations(), SITES))))
    default = [case for case, runs in every if runs]
    rows = [frozenset(variants.items()) for variants in perturbations()]
    screens = [screen.name for screen in SCREENS]
    assert pairs(default, 0, 1) == set(product(rows, SITES))
    assert pairs(default, 0, 2) == set(product(rows, screens))
    assert pairs(default, 1, 2) == set(product(SITES, screens))
    assert len(default) == len(rows) * len(SITES)
    # `full` holds the rest: the whole product, each case once.
    assert len({case for case, _ in every}) == len(every) == len(default) * len(screens)


def test_the_perturbations_are_the_registrys() -> None:
    chosen = {(key, impl) for variants in perturbations() for key, impl in variants.items()}
    keys = perturb.KEYS.items()
    assert chosen == {(key, impl) for key, impls in keys for impl in impls if impl != perturb.NONE}
    assert perturbations()[0] == {}


def test_the_page_tests_run_every_perturbation_on_every_site(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held: set[tuple[frozenset[tuple[str, str]], str]] = set()
    for path in PAGE_TESTS:
        spec = importlib.util.spec_from_file_location(f"page_tests_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, spec.name, module)  # for its dataclasses
        spec.loader.exec_module(module)
        for test in vars(module).values():
            for mark in getattr(test, "pytestmark", []):
                if mark.name == "parametrize" and mark.args[0] == MATRIX:
                    held |= {case[:2] for case, _ in cases(mark)}
    rows = [frozenset(variants.items()) for variants in perturbations()]
    assert set(product(rows, SITES)) <= held


class Collected:
    """What `cover_screens` reads of a collected test, and the marks it is given."""

    def __init__(self, module: str, name: str, screen: Any, mine: tuple[str, ...] = ()) -> None:
        self.nodeid = f"{module}::{name}[{screen.name}]"
        self.name = self.originalname = name
        self.screen = screen.name
        self.callspec = type("CallSpec", (), {"params": {"screen_page": screen}})()
        self.marks = [pytest.mark.parametrize(mine, []).mark] if mine else []

    def iter_markers(self, name: str) -> Iterator[Any]:
        return (mark for mark in self.marks if mark.name == name)

    def add_marker(self, mark: Any) -> None:
        self.marks.append(mark.mark)

    def runs(self) -> bool:
        return not any(mark.name == "full" for mark in self.marks)


def test_a_screen_page_test_runs_at_one_screen_the_next_at_the_next() -> None:
    def both(module: str, name: str, mine: tuple[str, ...] = ()) -> list[Collected]:
        return [Collected(module, name, screen, mine) for screen in SCREENS]

    items = [
        *both("a.py", "first"),
        *both("a.py", "second"),
        *both("a.py", "third"),
        *both("b.py", "only"),
        *both("b.py", "chosen", ("screen_page",)),
    ]
    cover_screens(items)  # type: ignore[arg-type]
    default = [(i.nodeid.split("::")[0], i.name, i.screen) for i in items if i.runs()]
    desktop, phone = (screen.name for screen in SCREENS)
    assert default == [
        ("a.py", "first", desktop),
        ("a.py", "second", phone),
        ("a.py", "third", desktop),
        ("b.py", "only", desktop),
        # A test that parametrizes the screens itself keeps them.
        ("b.py", "chosen", desktop),
        ("b.py", "chosen", phone),
    ]
