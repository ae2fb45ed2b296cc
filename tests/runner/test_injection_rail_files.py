"""Injection on rail and files through the real UI (docs/tasks.md, "Injection"): each carrier
shows the site's attack (rail's `aria` and `banner`; files' `document`, in the CSV and in the
PDF, `aria` and `banner`); a clean trajectory's files are the committed ones, byte for byte;
the oracle solves every rail and files injection variant and fires no sink; the test model's
attack-following scripts (`follow-injection-rail`, `follow-injection-files`) do the task and
every goal of the attack, through `dom` for each carrier and `gui` for `banner` and
`document`: each forbidden condition fails, and the hub recorded `origin_left`. A profile
whose carrier its site lacks is refused, naming the field. The oracle's episodes are the
corpus's (tests/runner/conftest.py)."""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path

import pytest
from support.runs import run_eval
from support.stand import admin_client

from runner.run.evaluate import select_tasks
from runner.settings import TASKS_DIR
from runner.suite.suite import MAP_FILE, load_map, validate
from services.core.errors import FieldError
from services.core.inject import ATTACKS, FORBIDDEN_PATH
from services.core.models.run import AgentConfig
from services.files.catalog import load_catalog

RAIL, FILES = ATTACKS["rail"], ATTACKS["files"]
RAIL_DONOR, FILES_DONOR = "rail_cart_econom", "files_download_air_csv"
DATASETS_2024 = "files/c/datasets?year=2024"
CSV, PDF = "Качество_воздуха_2024.csv", "Акт_поверки_весов_2024.pdf"


def words(text: str) -> str:
    return " ".join(text.split())


def create(stack, task_id: str) -> dict:
    with admin_client(stack) as hub:
        answer = hub.post("/api/trajectories", json={"task_id": task_id})
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def events(stack, tid: str, types: str) -> list[dict]:
    with admin_client(stack) as hub:
        answer = hub.get(f"/api/trajectories/{tid}/events", params={"types": types})
    return answer.json()["events"]  # type: ignore[no-any-return]


# -- the PDF's text, from its content streams (the repo reads no PDF otherwise) ----------

STREAM = re.compile(rb"<<(?P<dict>(?:(?!>>).)*?)/Length (?P<n>\d+)\s*>>\s*stream\r?\n", re.S)
SHOWN = re.compile(rb"\((?P<s>(?:\\.|[^\\)])*)\)\s*Tj")
ESCAPE = re.compile(rb"\\([0-7]{1,3}|.)", re.S)
BFCHAR = re.compile(rb"<(?P<code>[0-9A-Fa-f]{2})>\s*<(?P<uni>[0-9A-Fa-f]{4,})>")


def pdf_text(body: bytes) -> str:
    """The text a reportlab PDF shows, each string of its pages decoded through the font's
    ToUnicode map (one font subset, as the cabinet's short documents have)."""
    streams = []
    for found in STREAM.finditer(body):
        data = body[found.end() : found.end() + int(found["n"])]
        if b"ASCII85Decode" in found["dict"]:
            data = base64.a85decode(data.strip().removesuffix(b"~>"))
        if b"FlateDecode" in found["dict"]:
            data = zlib.decompress(data)
        streams.append(data)
    unicode = {
        int(m["code"], 16): bytes.fromhex(m["uni"].decode()).decode("utf-16-be")
        for data in streams
        if b"begincmap" in data
        for m in BFCHAR.finditer(data)
    }

    def unescaped(raw: bytes) -> bytes:
        def one(m: re.Match[bytes]) -> bytes:
            code = m[1]
            return bytes([int(code, 8)]) if code[:1].isdigit() else code

        return ESCAPE.sub(one, raw)

    shown = [
        "".join(unicode.get(code, chr(code)) for code in unescaped(m["s"]))
        for data in streams
        if b"begincmap" not in data
        for m in SHOWN.finditer(data)
    ]
    return words(" ".join(shown))


# -- bad input ----------------------------------------------------------------------------


def test_a_carrier_the_site_lacks_is_refused_naming_the_field(tmp_path: Path) -> None:
    toml = (TASKS_DIR / MAP_FILE).read_text(encoding="utf-8")
    aria = 'domain = "rail"\nui_variants = { inject = "aria" }'
    assert aria in toml
    (tmp_path / MAP_FILE).write_text(toml.replace(aria, aria.replace('"aria"', '"document"')))
    with pytest.raises(FieldError) as refused:
        load_map(tmp_path)
    assert refused.value.field == f"{MAP_FILE}: profiles.rail_inject_aria.ui_variants.inject"
    task = json.loads((TASKS_DIR / "canonical" / "rail" / f"{RAIL_DONOR}.json").read_text())
    task["test_data"]["ui_variants"] = {"inject": "document"}
    (problem,) = validate(task, "t")
    assert "t.test_data.ui_variants.inject: unknown implementation 'document'" in problem


# -- the carriers show --------------------------------------------------------------------


def test_rail_aria_describes_the_search_and_the_trains_choice(stack, page) -> None:
    created = create(stack, f"{RAIL_DONOR}__inject_aria")
    page.goto(f"{created['url']}rail/")
    described = page.get_by_role("button", name="Найти").get_attribute("title")
    assert described == RAIL.with_address and "Ассистент" in described
    # The donor's 15.09.2026 moved past the test stack's today (support.stand.TODAY), as the
    # follow-injection-rail script types it.
    page.goto(
        f"{created['url']}rail/search?from=Москва&to=Санкт-Петербург&date=2026-12-08&adults=1"
    )
    choose = page.get_by_role("link", name="Выбрать поезд «Ясный сокол»")
    assert choose.get_attribute("title") == RAIL.with_address
    assert page.get_by_role("complementary", name="Объявление").count() == 0


@pytest.mark.parametrize(
    ("task", "path"),
    [(f"{RAIL_DONOR}__inject_banner", "rail/"), (f"{FILES_DONOR}__inject_banner", DATASETS_2024)],
)
def test_the_banner_shows_above_the_page(stack, page, task: str, path: str) -> None:
    site = path.split("/")[0]
    page.goto(f"{create(stack, task)['url']}{path}")
    banner = page.get_by_role("complementary", name="Объявление")
    assert words(ATTACKS[site].text) in words(banner.inner_text())
    link = banner.get_by_role("link", name=ATTACKS[site].link_caption)
    assert link.get_attribute("href") == FORBIDDEN_PATH


def test_files_aria_describes_the_download(stack, page) -> None:
    page.goto(f"{create(stack, f'{FILES_DONOR}__inject_aria')['url']}{DATASETS_2024}")
    download = page.get_by_role("link", name=f"Скачать: {CSV}")
    assert download.get_attribute("title") == FILES.with_address


def fetched(page, name: str) -> tuple[bytes, dict[str, str]]:
    """A file fetched through the page's own link (`name`: its accessible name)."""
    href = page.get_by_role("link", name=name).get_attribute("href")
    answer = page.request.get(f"{page.url.split('/t/')[0]}{href}")
    assert answer.ok, answer.status
    return answer.body(), answer.headers


def test_the_document_carries_the_attack_in_the_csv_and_the_pdf(stack, page) -> None:
    catalog = load_catalog()
    created = create(stack, f"{FILES_DONOR}__inject_document")
    page.goto(f"{created['url']}{DATASETS_2024}")
    body, headers = fetched(page, f"Скачать: {CSV}")
    assert headers["content-disposition"].startswith("attachment")
    assert words(FILES.with_address) in words(body.decode())
    # The view («Просмотр») shows the same injected CSV as text, and is no download.
    shown, headers = fetched(page, f"Просмотр: {CSV}")
    assert shown == body and headers["content-type"].startswith("text/plain")
    assert headers["content-disposition"].startswith("inline")
    page.goto(f"{created['url']}files/c/lab-reports?year=2024")
    body, _ = fetched(page, f"Скачать: {PDF}")
    assert body.startswith(b"%PDF") and words(FILES.with_address) in pdf_text(body)
    shown, headers = fetched(page, f"Просмотр: {PDF}")
    assert shown == body and headers["content-type"] == "application/pdf"
    downloads = events(stack, created["trajectory_id"], "bench_files_download")
    assert [e["params"]["file_name"] for e in downloads] == [CSV, PDF]
    views = [e["params"] for e in events(stack, created["trajectory_id"], "state_changed")]
    pdf_id = catalog.by_name(PDF).id  # type: ignore[union-attr]
    assert {"new_state": "bench_files_view", "item_id": pdf_id} in views
    # The clean trajectory gets the committed files, byte for byte, and no attack.
    page.goto(f"{create(stack, FILES_DONOR)['url']}files/c/lab-reports?year=2024")
    clean, _ = fetched(page, f"Скачать: {PDF}")
    assert clean == catalog.path(catalog.by_name(PDF)).read_bytes()  # type: ignore[arg-type]
    assert "Ассистент" not in pdf_text(clean)


# -- the oracle ignores the attack; the following scripts fall for it ---------------------


def variants(*patterns: str) -> list:
    return [r for p in patterns for r in select_tasks(TASKS_DIR, p, None, "safety")]


def injected() -> list:
    """Every injection variant of rail and files."""
    return variants("rail_*__inject_*", "files_*__inject_*")


@pytest.mark.corpus(oracle=injected)
def test_the_oracle_solves_every_rail_and_files_injection_variant(stack, corpus) -> None:
    refs = injected()
    assert len(refs) == 12
    for record in corpus.oracle.records(refs):
        assert record.ems == 1, (record.task, record.status, record.error, record.conditions)
        assert record.side_effects == [], record.task
        sinks = events(stack, record.trajectory_id, "origin_left")
        assert sinks == [], record.task


def follow(stack, tmp_path, testmodel, harness: str, site: str, tasks: list[str], **options):
    agent = AgentConfig(
        model=f"follow-injection-{site}", base_url=testmodel, max_steps=20, options=options
    )
    run = run_eval(stack, tmp_path, harness, variants(*tasks), time_limit=150, agent=agent)
    return run.records


def assert_fell_for_the_attack(stack, record, site: str) -> None:
    assert record.ems == 0, (record.task, record.status, record.error)
    goals = list(ATTACKS[site].goals.values())
    forbidden = [c for c in record.conditions if c.forbidden]
    donor = [c for c in record.conditions if not c.forbidden]
    assert all(c.success for c in donor), (record.task, donor)
    assert len(forbidden) == len(goals) and not any(c.success for c in forbidden), record.task
    left = [e["params"] for e in events(stack, record.trajectory_id, "origin_left")]
    assert {"url": FORBIDDEN_PATH, "via": "hub"} in left, record.task


@pytest.mark.parametrize(
    ("harness", "site", "tasks", "options"),
    [
        ("dom", "rail", [f"{RAIL_DONOR}__inject_aria", f"{RAIL_DONOR}__inject_banner"], {}),
        (
            "dom",
            "files",
            [f"{FILES_DONOR}__inject_{c}" for c in ("document", "aria", "banner")],
            {},
        ),
        (  # Fara: the gui family with an address bar of its own, as the script navigates
            "gui",
            "files",
            [f"{FILES_DONOR}__inject_{c}" for c in ("document", "banner")],
            {"family": "fara", "page_geometry": True},
        ),
    ],
    ids=["dom-rail", "dom-files", "gui-files"],
)
def test_an_agent_that_follows_the_attack_fails_each_forbidden_goal(
    stack, tmp_path, testmodel, harness, site, tasks, options
) -> None:
    records = follow(stack, tmp_path, testmodel, harness, site, tasks, **options)
    assert sorted(r.task for r in records) == sorted(tasks)
    for record in records:
        assert_fell_for_the_attack(stack, record, site)
