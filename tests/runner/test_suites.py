"""Suites (docs/tasks.md, "Suites"): the released suite keeps its task set and hash; a
fixture suite `safety` in a tasks folder of the test's own selects only its files, gets its
own hash and gives its variants their suite; boards never mix suites, and a comparison of
two suites is refused; an unknown suite is refused naming the field or the option."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.runs import runner

from runner.results.static_board import export
from runner.run.evaluate import run_suite, select_tasks, task_set_hash
from runner.settings import TASKS_DIR
from runner.suite.suite import build, counts, load_map, validate
from services.core.errors import FieldError
from services.core.models.board import BoardFile
from services.core.models.folder import finished_runs
from services.core.models.run import MANIFEST, RECORDS, SUMMARY, Manifest, Record, Summary
from services.core.results.board import MixedSuites, compare
from services.core.results.board import build as board
from services.core.results.page import render_board
from services.core.tasks import check_suite

# The released suite as version 4 of tasks/CHANGES.md left it: new suites never change it.
RELEASED_TASKS, RELEASED_HASH = 152, "6dc86e2f3b0916ed"
# The robustness suite as version 2 of its heading in tasks/CHANGES.md.
ROBUSTNESS_TASKS, ROBUSTNESS_HASH = 66, "79a6e89307479eff"
# The screens suite as version 2 of its heading in tasks/CHANGES.md.
SCREENS_TASKS, SCREENS_HASH = 14, "530818bd4936e12c"
DONOR = "grocery_category_kefir"
STOP = "grocery_stop_kefir"  # a safety fixture: the donor's copy in the safety suite

VARIANT_MAP = """
[profiles.grocery_theme_dark]
domain = "grocery"
ui_variants = { theme = "dark" }

[profiles.grocery_safety_dark]
domain = "grocery"
ui_variants = { theme = "dark" }
suffix = "safety_dark"
suite = "safety"

[[groups]]
donors = ["grocery_category_kefir"]
profiles = ["grocery_theme_dark", "grocery_safety_dark"]

[[groups]]
donors = ["grocery_stop_kefir"]
profiles = ["grocery_theme_dark"]
"""


def test_the_released_suite_keeps_its_task_set_and_hash() -> None:
    refs = select_tasks(TASKS_DIR, None, None)
    assert len(refs) == RELEASED_TASKS and {ref.suite for ref in refs} == {"released"}
    assert task_set_hash(refs) == RELEASED_HASH, "the released suite changed: tasks/CHANGES.md"
    assert run_suite(refs) == "released"


def test_the_robustness_suite_is_the_version_its_changes_name() -> None:
    refs = select_tasks(TASKS_DIR, None, None, "robustness")
    assert len(refs) == ROBUSTNESS_TASKS and run_suite(refs) == "robustness"
    assert task_set_hash(refs) == ROBUSTNESS_HASH, "the robustness suite changed: tasks/CHANGES.md"
    assert ROBUSTNESS_HASH in (TASKS_DIR / "CHANGES.md").read_text()


def test_the_screens_suite_is_the_version_its_changes_name() -> None:
    refs = select_tasks(TASKS_DIR, None, None, "screens")
    assert len(refs) == SCREENS_TASKS and run_suite(refs) == "screens"
    assert task_set_hash(refs) == SCREENS_HASH, "the screens suite changed: tasks/CHANGES.md"
    assert SCREENS_HASH in (TASKS_DIR / "CHANGES.md").read_text()


@pytest.fixture
def tasks_dir(tmp_path: Path) -> Path:
    """A tasks folder: one released canonical task, its copy in the safety suite, and a
    variant map giving the released donor a variant of each suite."""
    folder = tmp_path / "tasks"
    grocery = folder / "canonical" / "grocery"
    grocery.mkdir(parents=True)
    source = TASKS_DIR / "canonical" / "grocery" / f"{DONOR}.json"
    shutil.copyfile(source, grocery / f"{DONOR}.json")
    task = json.loads(source.read_text("utf-8"))
    task["test_data"]["suite"] = "safety"
    (grocery / f"{STOP}.json").write_text(json.dumps(task, ensure_ascii=False), "utf-8")
    (folder / "variants.toml").write_text(VARIANT_MAP, "utf-8")
    build(folder)
    return folder


def test_a_suite_selects_only_its_files_with_a_hash_of_its_own(tasks_dir: Path) -> None:
    released = select_tasks(tasks_dir, None, None)
    safety = select_tasks(tasks_dir, None, None, "safety")
    assert [r.name for r in released] == [DONOR, f"{DONOR}__theme_dark"]
    # A variant takes its profile's suite, else its donor's.
    assert [r.name for r in safety] == [STOP, f"{DONOR}__safety_dark", f"{STOP}__theme_dark"]
    assert {r.suite for r in safety} == {"safety"} and run_suite(safety) == "safety"
    assert task_set_hash(safety) != task_set_hash(released)
    assert select_tasks(tasks_dir, "grocery_stop", None, "safety")[0].name == STOP
    assert select_tasks(tasks_dir, STOP, None) == []  # not of the released suite
    assert select_tasks(tasks_dir, None, None, "robustness") == []
    with pytest.raises(ValueError, match="one suite"):
        run_suite(released + safety)
    tally = counts(tasks_dir, "safety")
    assert tally["kind"] == {"canonical": 1, "variant": 2}
    assert tally["suite"] == {"released": 2, "safety": 3}


def test_a_variant_of_a_released_donor_may_join_another_suite(tasks_dir: Path) -> None:
    profiles, _ = load_map(tasks_dir)
    assert profiles["grocery_safety_dark"].suite == "safety"
    assert profiles["grocery_theme_dark"].suite is None
    built = tasks_dir / "variants" / "grocery" / f"{DONOR}__safety_dark.json"
    variant = json.loads(built.read_text())
    donor = json.loads((tasks_dir / "canonical" / "grocery" / f"{DONOR}.json").read_text())
    assert variant["test_data"]["suite"] == "safety" and "suite" not in donor["test_data"]
    assert variant["test_data"]["task"] == donor["test_data"]["task"]
    assert variant["test_data"]["conditions"] == donor["test_data"]["conditions"]
    (tasks_dir / "variants.toml").write_text(VARIANT_MAP.replace('"safety"', '"nosuch"'))
    with pytest.raises(FieldError, match=r"profiles\.grocery_safety_dark\.suite: unknown"):
        load_map(tasks_dir)


def test_an_unknown_suite_is_refused_naming_the_field() -> None:
    task = json.loads((TASKS_DIR / "canonical" / "grocery" / f"{DONOR}.json").read_text())
    task["test_data"]["suite"] = "nosuch"
    (problem,) = validate(task, "x")
    assert problem.startswith("x.test_data.suite: unknown suite 'nosuch'; the suites: released")
    task["test_data"]["suite"] = 3
    assert validate(task, "x")[0].startswith("x.test_data.suite: unknown suite 3")
    # Generated suites are named by family and seed.
    assert check_suite("rail_dates-7", "suite") == "rail_dates-7"
    for bad in ("Rail-7", "rail_dates", "-7", ""):
        with pytest.raises(FieldError):
            check_suite(bad, "suite")


# -- boards ----------------------------------------------------------------------------------


def write_run(root: Path, name: str, harness: str, suite: str | None, passed: int) -> None:
    """A finished run folder; without `suite`, a manifest as runs before suites wrote it."""
    folder = root / name
    folder.mkdir(parents=True)
    manifest = Manifest(
        created_at=f"2099-03-01T00:00:0{name[-1]}+00:00",
        harness=harness,
        tasks=2,
        task_set_hash=f"hash-{suite or 'released'}",
    ).model_dump(mode="json")
    if suite is None:
        del manifest["suite"]
    else:
        manifest["suite"] = suite
    (folder / MANIFEST).write_text(json.dumps(manifest))
    records = [
        Record(task=task, site="grocery", ems=int(i < passed), completion=1)
        for i, task in enumerate(("t1", "t2"))
    ]
    (folder / RECORDS).write_text("".join(r.model_dump_json() + "\n" for r in records))
    (folder / SUMMARY).write_text(Summary().model_dump_json())


@pytest.fixture
def runs_home(tmp_path: Path) -> Path:
    """A WPB_HOME with two released runs (one of them older than suites) and two safety
    runs, of the same harnesses."""
    root = tmp_path / "home" / "runs"
    write_run(root, "r1", "oracle", None, 2)
    write_run(root, "r2", "noop", "released", 0)
    write_run(root, "s3", "oracle", "safety", 1)
    write_run(root, "s4", "noop", "safety", 0)
    return tmp_path / "home"


def test_a_board_shows_one_suite_and_never_compares_two(runs_home: Path, tmp_path: Path) -> None:
    runs = finished_runs(runs_home / "runs")
    released, safety = board(runs), board(runs, suite="safety")
    assert {r.run for r in released.rows} == {"r1", "r2"} and not released.apart
    assert {r.run for r in safety.rows} == {"s3", "s4"} and not safety.apart
    assert released.suites == safety.suites == ["released", "safety"]
    assert (released.suite, released.task_set) == ("released", "hash-released")
    assert (safety.suite, safety.task_set) == ("safety", "hash-safety")
    assert [p.run_a + p.run_b for p in safety.pairwise] in (["s3s4"], ["s4s3"])
    assert board(runs, suite="robustness").rows == []
    by_name = {run.name: run for run in runs}
    assert compare(by_name["r1"], by_name["r2"]).a.suite == "released"
    with pytest.raises(MixedSuites, match="released suite and run s3 of the safety suite"):
        compare(by_name["r1"], by_name["s3"])
    # The hub's page links every suite's board, the one shown marked.
    page = render_board(safety, lambda only: "?", "assets", suite_href=lambda n: f"?suite={n}")
    assert '<a href="?suite=released">released</a>' in page
    assert '<a href="?suite=safety" aria-current="page">safety</a>' in page
    index = export(runs, tmp_path / "site", suite="safety")
    page = index.read_text("utf-8")
    assert "s3" in page and "r1" not in page and "<code>safety</code>" in page
    exported = BoardFile.read(tmp_path / "site" / "board.json").board
    assert exported.suite == "safety" and {r.run for r in exported.rows} == {"s3", "s4"}
    assert "safety" in (tmp_path / "site" / "board.csv").read_text().splitlines()[1]


def test_the_cli_takes_a_suite_and_refuses_an_unknown_one(processes, runs_home: Path) -> None:
    listed = runner(runs_home, "tasks", "list")
    assert (
        listed.returncode == 0 and f"{RELEASED_TASKS} tasks of the released suite" in listed.stdout
    )
    assert f"task set of the released suite: {RELEASED_HASH}" in listed.stdout
    assert "task files by suite: released 152" in listed.stdout
    safety = runner(runs_home, "board", "--suite", "safety")
    assert safety.returncode == 0 and "s3" in safety.stdout and "r1" not in safety.stdout
    released = runner(runs_home, "board")
    assert released.returncode == 0 and "r1" in released.stdout and "s3" not in released.stdout
    assert "other suites with runs (runner board --suite NAME): safety" in released.stdout
    mixed = runner(runs_home, "compare", "r1", "s3")
    assert mixed.returncode == 2 and "runs of different suites are not compared" in mixed.stdout
    for command in (
        ("tasks", "list"),
        ("tasks", "audit"),
        ("eval", "--harness", "noop"),
        ("board",),
        ("board", "export", str(runs_home / "site")),
    ):
        refused = runner(runs_home, *command, "--suite", "nosuch")
        assert refused.returncode == 2, command
        assert "--suite: unknown suite 'nosuch'; the suites: released, safety, robustness" in (
            " ".join(refused.stdout.split())
        ), command


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ('conditions = [{ event_name = "basket_add" }]', "profiles.p.conditions"),
        (
            'forbidden = [{ event_name = "basket_add", group = "a" }]',
            "profiles.p.forbidden[0].group",
        ),
        (
            'forbidden = [{ event_name = "basket_add", forbidden = false }]',
            "profiles.p.forbidden[0].forbidden",
        ),
    ],
)
def test_a_profile_adds_forbidden_conditions_and_nothing_else(
    tmp_path: Path, extra: str, field: str
) -> None:
    """An injection profile adds its attack's goal as a forbidden condition; a profile that
    would add anything else to its variants is refused, naming the field."""
    profile = f'[profiles.p]\ndomain = "grocery"\nui_variants = {{ theme = "dark" }}\n{extra}\n'
    (tmp_path / "variants.toml").write_text(profile + "[[groups]]\ndonors = []\nprofiles = []\n")
    with pytest.raises(FieldError) as refused:
        load_map(tmp_path)
    assert refused.value.field == f"variants.toml: {field}"
