"""The oracle solves every Маркет task through Chromium (EMS 1), the search donors under
each of the six `text_search` implementations; noop passes none."""

from __future__ import annotations

import pytest
from helpers import failures, run_eval, search_donor_runs, site_tasks

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOMAIN = "shop"
TASKS = 18
SEARCH_DONORS = ["shop_search_headphones_pro", "shop_search_powerbank", "shop_search_cat_food"]


def test_oracle_solves_every_shop_task(stack, tmp_path) -> None:
    records = run_eval(stack, tmp_path, "oracle", site_tasks(DOMAIN))["records"]
    assert len(records) == TASKS
    assert not failures(records)


def test_search_donors_under_every_text_search(stack, tmp_path) -> None:
    runs = search_donor_runs(DOMAIN, SEARCH_DONORS)
    records = run_eval(stack, tmp_path, "oracle", runs)["records"]
    assert len(records) == 18
    assert not failures(records)


def test_noop_fails_every_shop_task(stack, tmp_path) -> None:
    records = run_eval(stack, tmp_path, "noop", site_tasks(DOMAIN))["records"]
    assert len(records) == TASKS and all(r["ems"] == 0 for r in records)
