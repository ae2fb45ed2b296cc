"""The oracle solves every rail task through the real UI under every implementation of the
site's controls (three profiles cover all of them); noop passes none."""

from __future__ import annotations

import pytest
from helpers import evaluate_site, failures

from services.kit.variants import VARIANTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Each implementation of each rail key appears in one profile.
PROFILES: list[dict[str, str]] = [
    {"date": "popup_grid", "select_station": "typeahead"},
    {"date": "native_input", "select_station": "native_select"},
    {"date": "text_input", "select_station": "typeahead"},
]


def test_profiles_cover_every_implementation() -> None:
    for key in ("date", "select_station"):
        assert {p[key] for p in PROFILES} == set(VARIANTS[key]["rail"])


@pytest.mark.parametrize("variants", PROFILES, ids=lambda p: p["date"])
def test_oracle_solves_every_rail_task(stack, tmp_path, variants: dict[str, str]) -> None:
    records = evaluate_site(stack, tmp_path, "oracle", "rail", variants)["records"]
    assert len(records) == 9
    assert not failures(records)
    assert all(r["done_and_pass"] == 1 and r["steps"] > 0 for r in records)


def test_noop_fails_every_rail_task(stack, tmp_path) -> None:
    overall = evaluate_site(stack, tmp_path, "noop", "rail")["summary"]["overall"]
    assert overall["tasks"] == 9 and overall["ems"] == 0.0 and overall["completion"] == 1.0
