"""The oracle solves every hotels task through the real UI under every implementation of the
site's controls (four profiles cover all of them); noop passes none."""

from __future__ import annotations

import pytest
from helpers import evaluate_site, failures

from services.kit.variants import VARIANTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Each implementation of each hotels key appears in one profile.
PROFILES: list[dict[str, str]] = [
    {"date": "split_popup", "select_city": "autocomplete", "counter_guests": "rooms_popup"},
    {"date": "inline_calendar", "select_city": "native_select", "counter_guests": "inline_stepper"},
    {"date": "text_input", "select_city": "autocomplete", "counter_guests": "compact_select"},
    {"date": "single_popup", "select_city": "native_select", "counter_guests": "pill_buttons"},
]


def test_profiles_cover_every_implementation() -> None:
    for key in ("date", "select_city", "counter_guests"):
        assert {p[key] for p in PROFILES} == set(VARIANTS[key]["hotels"])


@pytest.mark.parametrize("variants", PROFILES, ids=lambda p: p["date"])
def test_oracle_solves_every_hotels_task(stack, tmp_path, variants: dict[str, str]) -> None:
    records = evaluate_site(stack, tmp_path, "oracle", "hotels", variants)["records"]
    assert len(records) == 8
    assert not failures(records)
    assert all(r["done_and_pass"] == 1 and r["steps"] > 0 for r in records)


def test_noop_fails_every_hotels_task(stack, tmp_path) -> None:
    overall = evaluate_site(stack, tmp_path, "noop", "hotels")["summary"]["overall"]
    assert overall["tasks"] == 8 and overall["ems"] == 0.0 and overall["completion"] == 1.0
