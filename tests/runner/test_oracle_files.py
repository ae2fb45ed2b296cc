"""The oracle solves every Файлы task through Chromium under every implementation of
`collections`, `years` and `buttons`, in both themes; noop passes none.

Runs are grouped by profile: the canonical defaults, the three-key variant profile
(`{stem}__files_list_buttons_icon`), the dark theme, and two mixed profiles that split the
task set so that each remaining implementation is exercised at least once."""

from __future__ import annotations

import pytest
from helpers import run_eval, site_tasks, with_variants

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASKS = 11


def refs(profile: str | None = None, variants: dict[str, str] | None = None) -> list:
    """The canonical files tasks, or copies of them that differ only in their profile."""
    found = site_tasks("files")
    assert len(found) == TASKS
    return with_variants(found, "files", variants, profile) if variants else found


def run(stack, out, harness: str, tasks: list) -> list[dict]:
    return run_eval(stack, out, harness, tasks)["records"]


def assert_all_pass(records: list[dict], expected: int) -> None:
    assert len(records) == expected
    failed = {
        r["task"]: (r["status"], r["error"], r["conditions"]) for r in records if r["ems"] != 1
    }
    assert not failed
    assert all(r["completion"] == 1 and r["steps"] > 0 for r in records)


def test_canonical_and_noop(stack, tmp_path) -> None:
    assert_all_pass(run(stack, tmp_path / "oracle", "oracle", refs()), TASKS)
    noop = run(stack, tmp_path / "noop", "noop", refs())
    assert len(noop) == TASKS and all(r["ems"] == 0 and r["completion"] == 1 for r in noop)


@pytest.mark.parametrize(
    ("profile", "variants"),
    [
        ("files_list_buttons_icon", {"collections": "list", "years": "buttons", "buttons": "icon"}),
        ("theme_dark", {"theme": "dark"}),
    ],
)
def test_every_task_under_a_profile(stack, tmp_path, profile: str, variants) -> None:
    records = run(stack, tmp_path / profile, "oracle", refs(profile, variants))
    assert_all_pass(records, TASKS)
    assert all(r["variant"] and r["profile"] == profile for r in records)


def test_remaining_implementations(stack, tmp_path) -> None:
    """tree, compact, radio, solid, split (and select again): each on part of the set."""
    first = refs(
        "files_tree_radio_solid", {"collections": "tree", "years": "radio", "buttons": "solid"}
    )
    second = refs(
        "files_compact_select_split",
        {"collections": "compact", "years": "select", "buttons": "split"},
    )
    tasks = first[::2] + second[1::2]
    records = run(stack, tmp_path / "mixed", "oracle", tasks)
    assert_all_pass(records, TASKS)
    downloads = [r for r in records if "download" in r["ui_primary"].lower()]
    assert {r["profile"] for r in downloads} == {
        "files_tree_radio_solid",
        "files_compact_select_split",
    }
