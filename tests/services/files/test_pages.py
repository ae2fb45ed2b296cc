"""Файлы through the real UI in Chromium: every control implementation, mouse and keyboard,
writes the documented events; downloads arrive with the right bytes, name and type; bad
paths never reach the disk; the dark theme renders."""

from __future__ import annotations

import hashlib
import http.client
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.http import create, make_task, wait_events
from support.pages import open_site

from services.files.catalog import load_catalog
from services.kit.web import service_headers

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-artifacts"
SEMANTIC = ("state_changed", "bench_files_select_collection", "bench_files_select_year")


def events(hub: httpx.Client, tid: str, *types: str) -> list[tuple[str, dict[str, Any]]]:
    """(type, params) of the events of `types` (by default the files events and screens)."""
    wanted = types or (*SEMANTIC, "bench_files_download")
    return [(e["type"], e["params"]) for e in wait_events(hub, tid) if e["type"] in wanted]


def test_screens_and_selections(page: Page, hub: httpx.Client) -> None:
    tid = open_site(page, hub, "files").trajectory_id
    page.get_by_role("link", name="Архив проектов").click()
    expect(page.get_by_test_id("choose-year")).to_have_text(
        "Выберите год, чтобы увидеть доступные файлы."
    )
    page.get_by_label("Год").select_option("2024")
    page.get_by_role("button", name="Показать файлы").click()
    rows = page.locator("li.f-file")
    expect(rows).to_have_count(18)
    yearly = page.locator('li.f-file[data-file-name="2024.pdf"]')
    expect(yearly).to_contain_text("Квартал: весь год")
    expect(page.locator('li.f-file[data-file-name="2024-08.csv"]')).to_contain_text("III квартал")
    screen = (
        "state_changed",
        {"new_state": "bench_files_collection", "collection": "projects-archive"},
    )
    assert events(hub, tid) == [
        ("state_changed", {"new_state": "bench_hub_main"}),
        ("state_changed", {"new_state": "bench_files_cabinet"}),
        screen,
        ("bench_files_select_collection", {"collection": "projects-archive", "widget": "cards"}),
        screen,
        ("bench_files_select_collection", {"collection": "projects-archive"}),
        ("bench_files_select_year", {"year": 2024, "widget": "select"}),
    ]


@pytest.mark.parametrize(
    ("name", "collection", "year", "media"),
    [
        ("Акт_поверки_весов_2024.pdf", "lab-reports", 2024, "application/pdf"),
        ("2024-05.csv", "projects-archive", 2024, "text/csv; charset=utf-8"),
    ],
)
def test_download_arrives_with_the_right_bytes(
    page: Page, hub: httpx.Client, agent: httpx.Client, name, collection, year, media
) -> None:
    tid = open_site(page, hub, "files").trajectory_id
    page.goto(f"{page.url}c/{collection}?year={year}")
    row = page.locator(f'li.f-file[data-file-name="{name}"]')
    with page.expect_download() as info:
        row.get_by_role("link", name="Скачать").click()
    download = info.value
    entry = load_catalog().by_name(name)
    assert entry is not None
    assert download.suggested_filename == name
    body = Path(download.path()).read_bytes()
    assert hashlib.sha256(body).hexdigest() == entry.sha256
    where = {"collection": collection, "year": year, "format": name.rsplit(".", 1)[1]}
    assert events(hub, tid, "bench_files_download") == [
        ("bench_files_download", {"file_name": name, **where, "widget": "outline"})
    ]
    served = agent.get(f"/t/{tid}/files/c/{collection}/{year}/{name}")
    assert served.status_code == 200 and served.headers["content-type"] == media
    assert served.headers["content-disposition"].startswith("attachment; filename=")
    assert served.content == body


@pytest.mark.parametrize("impl", ["cards", "list", "tree", "compact"])
def test_collections_control(page: Page, hub: httpx.Client, impl: str) -> None:
    tid = open_site(page, hub, "files", ui_variants={"collections": impl}).trajectory_id
    widget = page.locator(f'.wc[data-widget="{impl}"]')
    expect(widget).to_be_visible()
    # mouse
    if impl == "compact":
        widget.get_by_text("Выбрать коллекцию").click()
    page.locator('[data-collection="manuals"] a.wc-link').click()
    expect(page.get_by_role("heading", name="Руководства", level=1)).to_be_visible()
    page.get_by_role("link", name="Коллекции").click()
    # keyboard
    if impl == "tree":
        first = page.get_by_role("treeitem", name="Отчёты лаборатории")
        first.focus()
        page.keyboard.press("ArrowDown")
        expect(page.get_by_role("treeitem", name="Архив проектов")).to_be_focused()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        expect(page.get_by_role("treeitem", name="2023")).to_be_focused()
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        expect(page.locator("li.f-file")).to_have_count(18)
        tail = [
            ("bench_files_select_collection", {"collection": "projects-archive", "widget": "tree"}),
            ("bench_files_select_year", {"year": 2024, "widget": "tree"}),
        ]
    else:
        if impl == "compact":
            page.locator(".wc-compact summary").focus()
            page.keyboard.press("Enter")
            expect(page.locator('[data-collection="lab-reports"] a.wc-link')).to_be_focused()
            page.keyboard.press("ArrowDown")
        else:
            page.locator('[data-collection="projects-archive"] a.wc-link').focus()
        expect(page.locator('[data-collection="projects-archive"] a.wc-link')).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Архив проектов", level=1)).to_be_visible()
        tail = [
            ("bench_files_select_collection", {"collection": "projects-archive", "widget": impl})
        ]
    chosen = events(hub, tid, "bench_files_select_collection", "bench_files_select_year")
    assert chosen[0] == ("bench_files_select_collection", {"collection": "manuals", "widget": impl})
    assert chosen[1:] == tail


@pytest.mark.parametrize("impl", ["select", "buttons", "radio"])
def test_years_control(page: Page, hub: httpx.Client, impl: str) -> None:
    tid = open_site(page, hub, "files", ui_variants={"years": impl}).trajectory_id
    page.goto(f"{page.url}c/lab-reports")
    form = page.locator(f'form.wy[data-widget="{impl}"]')
    expect(form).to_be_visible()
    # mouse: 2023
    if impl == "buttons":
        form.get_by_role("button", name="2023").click()
        expect(form.get_by_role("button", name="2023")).to_have_attribute("aria-pressed", "true")
    else:
        form.get_by_role("button", name="Показать файлы").click()  # nothing chosen yet
        expect(form.get_by_role("alert")).to_have_text("Выберите год.")
        if impl == "select":
            form.get_by_label("Год").select_option("2023")
        else:
            form.get_by_label("2023").click()
        form.get_by_role("button", name="Показать файлы").click()
    expect(page.locator("li.f-file")).to_have_count(3)
    # keyboard: from 2023 to the next year, 2024
    if impl == "buttons":
        page.locator("form.wy button[aria-pressed=true]").focus()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("Enter")
    else:
        control = "select" if impl == "select" else "input:checked"
        page.locator(f"form.wy {control}").focus()
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Файлы за 2024 год")).to_be_visible()
    years = events(hub, tid, "bench_files_select_year")
    assert years == [
        ("bench_files_select_year", {"year": 2023, "widget": impl}),
        ("bench_files_select_year", {"year": 2024, "widget": impl}),
    ]


@pytest.mark.parametrize("impl", ["outline", "solid", "icon", "split"])
def test_buttons_control(page: Page, hub: httpx.Client, impl: str) -> None:
    tid = open_site(page, hub, "files", ui_variants={"buttons": impl}).trajectory_id
    page.goto(f"{page.url}c/manuals?year=2023")
    first = page.locator('li.f-file[data-file-name="Таблица_допусков.csv"]')
    second = page.locator('li.f-file[data-file-name="Инструкция_по_охране_труда.pdf"]')
    # mouse
    with page.expect_download() as mouse:
        if impl == "split":
            first.get_by_role("link", name="Скачать").click()
        elif impl == "icon":
            control = first.get_by_role("link", name="Скачать: Таблица_допусков.csv")
            assert control.inner_text().strip() == ""  # an arrow, no caption
            control.click()
        elif impl == "solid":
            first.get_by_role("button", name="Скачать CSV").click()
        else:
            first.get_by_role("link", name="Скачать").click()
    assert mouse.value.suggested_filename == "Таблица_допусков.csv"
    # keyboard
    with page.expect_download() as keys:
        if impl == "split":
            second.locator(".wb-more").focus()
            page.keyboard.press("ArrowDown")
            expect(second.get_by_role("menuitem", name="Скачать PDF")).to_be_focused()
            page.keyboard.press("Enter")
        else:
            second.locator(".wb-go, a.wb").first.focus()
            page.keyboard.press("Enter")
    assert keys.value.suggested_filename == "Инструкция_по_охране_труда.pdf"
    manuals = {"collection": "manuals", "year": 2023, "widget": impl}
    assert events(hub, tid, "bench_files_download") == [
        ("bench_files_download", {"file_name": "Таблица_допусков.csv", "format": "csv", **manuals}),
        (
            "bench_files_download",
            {"file_name": "Инструкция_по_охране_труда.pdf", "format": "pdf", **manuals},
        ),
    ]


def test_split_menu_copies_the_link(page: Page, hub: httpx.Client) -> None:
    open_site(page, hub, "files", ui_variants={"buttons": "split"})
    page.goto(f"{page.url}c/manuals?year=2024")
    row = page.locator("li.f-file").first
    row.locator(".wb-more").click()
    row.get_by_role("menuitem", name="Скопировать ссылку").click()
    expect(row.get_by_role("menu")).to_be_hidden()
    expect(row.get_by_role("status")).not_to_be_empty()
    page.keyboard.press("Escape")


def test_menus_close_on_a_click_outside(page: Page, hub: httpx.Client) -> None:
    open_site(page, hub, "files", ui_variants={"collections": "compact", "buttons": "split"})
    compact = page.locator(".wc-compact")
    compact.get_by_text("Выбрать коллекцию").click()
    expect(compact.get_by_role("link", name="Руководства")).to_be_visible()
    page.get_by_role("heading", name="Коллекции").click()
    expect(compact.get_by_role("link", name="Руководства")).to_be_hidden()
    page.goto(f"{page.url}c/manuals?year=2024")
    row = page.locator("li.f-file").first
    row.locator(".wb-more").click()
    menu = row.get_by_role("menu")
    download = menu.get_by_role("menuitem", name="Скачать")
    copy = menu.get_by_role("menuitem", name="Скопировать ссылку")
    expect(download).to_be_focused()
    page.keyboard.press("ArrowUp")  # round the top to the last item
    expect(copy).to_be_focused()
    page.keyboard.press("Home")
    expect(download).to_be_focused()
    page.get_by_role("heading", level=1).click()
    expect(menu).to_be_hidden()


def raw_get(url: str, headers: dict[str, str] | None = None) -> int:
    """GET with the path sent verbatim (no client-side normalisation of `..`)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", path, headers=headers or {})
        answer = connection.getresponse()
        body = answer.read()
        assert b"root:" not in body and b"[build-system]" not in body and b"%PDF" not in body
        return answer.status
    finally:
        connection.close()


def test_bad_paths_and_unknown_ids_are_404(stack, hub: httpx.Client, agent: httpx.Client) -> None:
    task = make_task([{"event_name": "bench_files_download"}], domain="files")
    tid = create(hub, task).trajectory_id
    site = stack.processes["site-files"].url
    attempts = [
        "c/manuals/2023/../../../../../etc/passwd",
        "c/manuals/2023/..%2f..%2f..%2f..%2fetc%2fpasswd",
        "c/manuals/2023/%2e%2e/%2e%2e/%2e%2e/pyproject.toml",
        "c/manuals/2023/%2e%2e%2f%2e%2e%2fdata%2fcatalog.json",
        "c/manuals/2023//etc/passwd",
        "c/manuals/2023/%2Fetc%2Fpasswd",
        "c/manuals/2023/..\\..\\..\\etc\\passwd",
        "c/manuals/2023/..%5c..%5cdata%5cfiles%5cf-001.pdf",
        "c/manuals/2023/f-040.csv",
        "c/manuals/2023/C:%5cWindows%5cwin.ini",
        "..%2f..%2fservices%2ffiles%2fapp.py",
    ]
    credential = service_headers(stack.service_token)
    for path in attempts:
        assert raw_get(f"{stack.hub_url}/t/{tid}/files/{path}") == 404, path
        assert raw_get(f"{site}/t/{tid}/files/{path}", credential) == 404, path
    # unknown collection, unknown year, a file of another collection or year
    assert agent.get(f"/t/{tid}/files/c/secret").status_code == 404
    missing_year = agent.get(f"/t/{tid}/files/c/manuals?year=1999")
    assert missing_year.status_code == 404 and "нет файлов за 1999 год" in missing_year.text
    bad_year = agent.get(f"/t/{tid}/files/c/manuals?year=двадцать")
    assert bad_year.status_code == 422 and 'data-field="year"' in bad_year.text
    assert "Год указан неверно" in bad_year.text
    assert agent.get(f"/t/{tid}/files/c/manuals/2024/2024.pdf").status_code == 404
    assert agent.get(f"/t/{tid}/files/c/projects-archive/2023/2024.pdf").status_code == 404
    assert agent.get(f"/t/{tid}/files/c/projects-archive/x/2024.pdf").status_code == 404
    assert agent.get(f"/t/{tid}/files/nowhere").status_code == 404
    # A screen served after them all: once its event is stored, nothing was downloaded.
    assert agent.get(f"/t/{tid}/files/").status_code == 200
    assert events(hub, tid, "state_changed") == [
        ("state_changed", {"new_state": "bench_files_cabinet"})
    ]
    assert events(hub, tid, "bench_files_download", "bench_files_select_year") == []


def test_dark_theme(page: Page, hub: httpx.Client) -> None:
    open_site(
        page, hub, "files", ui_variants={"theme": "dark", "buttons": "split", "years": "buttons"}
    )
    page.goto(f"{page.url}c/projects-archive?year=2024")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 24, 29)"
    row = page.locator("li.f-file").first
    assert (
        page.evaluate("el => getComputedStyle(el).backgroundColor", row.element_handle())
        == "rgb(21, 24, 29)"
    )
    row.locator(".wb-more").click()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "files-dark.png"))


def test_a_collections_years_are_the_years_it_offers(page: Page, hub: httpx.Client) -> None:
    """«Руководства» has no 2022: its card must not say «2021–2025»."""
    open_site(page, hub, "files")
    card = page.get_by_role("article").filter(has=page.get_by_role("link", name="Руководства"))
    expect(card).to_contain_text("Годы: 2021, 2023, 2024, 2025")
    card.get_by_role("link", name="Руководства").click()
    years = page.get_by_role("combobox", name="Год").locator("option:not([value=''])")
    expect(years).to_have_text(["2021", "2023", "2024", "2025"])


def test_cabinet_blocks_open_information_and_leave_the_list_in_place(
    page: Page, hub: httpx.Client
) -> None:
    """The blocks below the collections (docs/sites.md, "Front pages") open the information
    pages; the collections stay the page's first content."""
    open_site(page, hub, "files", path="")
    collections = page.get_by_test_id("collections")
    top = (collections.bounding_box() or {"y": 1e9})["y"]
    assert top < 300
    title = page.get_by_role("heading", level=1)
    for block, link, heading in [
        ("Хранилище отдела", "Сколько хранятся документы", "Политика хранения"),
        ("Работа с документами", "Заказать выгрузку", "Запрос данных"),
        ("Новости кабинета", "Контрольные суммы файлов", "Новости"),
        ("Бланки и шаблоны", "Паспорт открытой таблицы", "Открытые данные"),
        ("Ответственные", "Все контакты отделов", "Контакты отделов"),
    ]:
        page.get_by_role("region", name=block).get_by_role("link", name=link).click()
        expect(title).to_have_text(heading)
        page.go_back()
    expect(page.get_by_role("region", name="Клавиатура").get_by_role("row")).to_have_count(7)
