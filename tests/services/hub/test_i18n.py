"""The pages for people in English and in Russian (services/core/i18n.py): the catalog has
every message of the sources, translated, with Russian plurals; every page of the hub and of
the static export, rendered in Chromium in both languages, says which in `<html lang>`, has
no Cyrillic in English and no English-only word in Russian outside what is not ours; the
switch, clicked by role and name, keeps the query and the cookie remembers the choice.

What is not ours, and stays as it is in every language: text inside `[data-verbatim]` (a
task's prompt, the agent's words, actions and errors, event parameters), `<code>` and
`<pre>` (identifiers, condition parameters, commands), and the switch's own link to the
other language (`lang` set on it)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from playwright.sync_api import Browser, BrowserContext, Page, expect
from support.http import create, hub_api, load, run_async, wait_events
from support.runs import run_eval

from runner.models.testmodel.server import SCRIPTS_DIR
from runner.results.static_board import export
from runner.run.evaluate import select_tasks
from runner.settings import REPO, TASKS_DIR
from services.core import i18n, inject
from services.core.contract import EVENT_TYPES
from services.core.inject import FORBIDDEN_PATH
from services.core.models.folder import finished_runs
from services.core.models.run import ReportStatus
from services.core.results.board import KINDS
from services.core.sites import registry

CYRILLIC = re.compile(r"[\u0400-\u04ff]")
PLACEHOLDER = re.compile(r"%\(\w+\)[-#0 +]*\d*(?:\.\d+)?[sdf]|<[^>]+>")
VIEWPORTS = [{"width": 1280, "height": 800}, {"width": 390, "height": 844}]
TASKS = "hotels_pick_city,hotels_pick_city__theme_dark"
RUNS = ("20990501T000000Z-noop", "20990501T000001Z-noop")

# The page's own words (outside what is not ours) and its labels, as a person's browser has
# them once the page's script has drawn it.
READ_PAGE = """() => {
  const lang = document.documentElement.lang;
  const theirs = `script, style, code, pre, [data-verbatim], [lang]:not([lang="${lang}"])`;
  const mine = (el) => !el.closest(theirs);
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.textContent.trim() && mine(node.parentElement)) texts.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll("[title], [aria-label], [alt]")) {
    if (!mine(el)) continue;
    for (const name of ["title", "aria-label", "alt"]) {
      if (el.hasAttribute(name)) texts.push(el.getAttribute(name));
    }
  }
  return { lang, title: document.title, texts };
}"""


def catalog() -> Any:
    with i18n.catalog_path("ru").open("rb") as po:
        return read_po(po, locale="ru")


def words(text: str) -> set[str]:
    """The Latin words of a text; letters inside a token with digits (an id such as
    `1cc4be9b`) are no word."""
    return set(
        re.findall(r"(?<![A-Za-z0-9])[A-Za-z]{2,}(?![A-Za-z0-9])", PLACEHOLDER.sub(" ", text))
    )


def english_only_words() -> set[str]:
    """The words of the English messages that no Russian one keeps (EMS, McNemar stay)."""
    ids: set[str] = set()
    kept: set[str] = set()
    for message in catalog():
        if message.id:
            for text in message.id if isinstance(message.id, tuple) else (message.id,):
                ids |= words(text)
            for text in message.string if isinstance(message.string, tuple) else (message.string,):
                kept |= words(text)
    return ids - kept


def test_the_catalog_translates_every_message_of_the_sources() -> None:
    with (i18n.LOCALE / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    extracted = {m[2] for m in extract_from_dir(str(REPO), method_map, options_map)}
    ru = catalog()
    ids = {message.id for message in ru if message.id}
    assert extracted - ids == set(), "run `make messages` and translate the new ones"
    assert ids - extracted == set(), "messages no source has: run `make messages`"
    for message in ru:
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert (message.id and all(forms) and not message.fuzzy) or not message.id, message.id
        assert not list(message.check(ru)), message.id
    assert len(ru.plural_forms.split(";")) and ru.num_plurals == 3


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, "1 задача"),
        (3, "3 задачи"),
        (5, "5 задач"),
        (11, "11 задач"),
        (21, "21 задача"),
        (22, "22 задачи"),
        (112, "112 задач"),
    ],
)
def test_russian_plurals_one_few_many(count: int, expected: str) -> None:
    said = i18n.translations("ru").ngettext("%(num)d task", "%(num)d tasks", count)
    assert said % {"num": count} == expected


def test_an_unknown_language_is_refused(hub: httpx.Client) -> None:
    answer = hub.get("/view/", params={"lang": "de"})
    assert answer.status_code == 422 and answer.json()["field"] == "lang"


@pytest.fixture(scope="module")
def pages(stack, hub: httpx.Client) -> list[str]:
    """Every kind of page for people over real runs: two runs of noop on a donor and its
    variant (a board with its failure classes, a comparison, a run's failures, a failed
    attempt's trajectory headed by its class), a trajectory an agent followed an attack on,
    with its report in its own words."""
    refs = select_tasks(TASKS_DIR, TASKS, None)
    failed, _ = (run_eval(stack, stack.home / "runs" / name, "noop", refs) for name in RUNS)
    assert failed.records[0].failure is not None
    attacked = create(hub, load("shop_fav_smart_watch__inject_visible"))
    tid = attacked.trajectory_id
    httpx.get(f"{stack.hub_url}{FORBIDDEN_PATH}", headers={"referer": f"{attacked.url}shop/"})
    wait_events(hub, tid, "origin_left")
    run_async(hub_api(hub).close_trajectory(tid, True, "Часы в избранном", "done"))
    return [
        "/view/",
        f"/view/runs/{RUNS[0]}",
        f"/view/runs/{RUNS[0]}?failed=1",
        "/view/board",
        "/view/board?site=hotels",
        "/view/board?every=1",
        f"/view/compare?a={RUNS[0]}&b={RUNS[1]}",
        f"/view/trajectories/{tid}",
        f"/view/trajectories/{failed.records[0].trajectory_id}",
    ]


@pytest.fixture
def context(browser: Browser, stack) -> Iterator[BrowserContext]:
    opened = browser.new_context()
    assert opened.request.get(f"{stack.hub_url}/view/login?token={stack.token}").ok
    yield opened
    opened.close()


# The identifiers a page shows as data, in either language: the sites' keys, the event
# types' words, the agent's report statuses, the attack goals, the task kinds, and the words
# of the models' names (the test model's scripts: other tests' runs share the runs folder).
IDENTIFIERS = {
    *registry().captions,
    *(w for name in EVENT_TYPES for w in name.split("_")),
    "hub",
    *get_args(ReportStatus),
    *inject.GOALS,
    *KINDS,
    *(w for script in SCRIPTS_DIR.glob("*.json") for w in re.findall(r"[A-Za-z]{2,}", script.stem)),
}


def check_page(page: Page, lang: str) -> None:
    """The page says it is in `lang`, and all its own words are."""
    expect(page.locator("html")).to_have_attribute("lang", lang)
    if page.locator("#ems").count():  # the trajectory page: its script has drawn it
        expect(page.locator("#ems")).to_contain_text("EMS")
    seen = page.evaluate(READ_PAGE)
    texts = [seen["title"], *seen["texts"]]
    if lang == "en":
        cyrillic = [text for text in texts if CYRILLIC.search(text)]
        assert not cyrillic, (page.url, cyrillic)
    else:
        shown = {w for text in texts for w in words(text)} - IDENTIFIERS
        untranslated = shown & english_only_words()
        where = [text for text in texts if words(text) & untranslated]
        assert not untranslated, (page.url, untranslated, where)


def test_every_hub_page_in_both_languages(context: BrowserContext, stack, pages) -> None:
    page = context.new_page()
    for address in pages:
        for lang in ("en", "ru"):
            separator = "&" if "?" in address else "?"
            page.goto(f"{stack.hub_url}{address}{separator}lang={lang}")
            check_page(page, lang)
        page.goto(f"{stack.hub_url}{address}")  # the cookie: Russian, chosen last
        check_page(page, "ru")
    page.goto(f"{stack.hub_url}/view/?lang=en")
    check_page(page, "en")


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_switch_keeps_the_query_and_is_remembered(
    browser: Browser, stack, pages, viewport: dict[str, int]
) -> None:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    assert context.request.get(f"{stack.hub_url}/view/login?token={stack.token}").ok
    page = context.new_page()
    page.goto(f"{stack.hub_url}/view/board?site=hotels")
    expect(page.get_by_role("heading", name="WebPageBench leaderboard")).to_be_visible()
    page.get_by_role("navigation", name="Language").get_by_role("link", name="Русский").click()
    expect(page.get_by_role("heading", name="Лидерборд WebPageBench")).to_be_visible()
    assert "site=hotels" in page.url and "lang=ru" in page.url
    page.get_by_role("link", name="← Прогоны").click()
    expect(page.get_by_role("heading", name="Прогоны")).to_be_visible()  # remembered
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    page.get_by_role("navigation", name="Язык").get_by_role("link", name="English").click()
    expect(page.get_by_role("heading", name="Runs")).to_be_visible()
    page.get_by_role("link", name="Leaderboard").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    context.close()


def test_the_static_export_in_both_languages(
    browser: Browser, stack, pages, tmp_path: Path
) -> None:
    runs = [run for run in finished_runs(stack.home / "runs") if run.name in RUNS]
    index = export(runs, tmp_path / "site", latest=False)  # both rows: a comparison
    english = sorted(p.name for p in (tmp_path / "site").glob("*.html"))
    assert english == sorted(p.name for p in (tmp_path / "site" / "ru").glob("*.html"))
    assert "compare-1.html" in english
    context = browser.new_context()
    page = context.new_page()
    for name in english:
        for folder, lang in ((tmp_path / "site", "en"), (tmp_path / "site" / "ru", "ru")):
            page.goto((folder / name).as_uri())
            check_page(page, lang)
    page.goto(index.as_uri())
    page.get_by_role("link", name="Русский").click()
    expect(page.get_by_role("heading", name="Лидерборд WebPageBench")).to_be_visible()
    assert page.url.endswith("/ru/index.html")
    page.get_by_role("link", name="подробно").first.click()
    expect(page.get_by_role("heading", name="Сравнение прогонов")).to_be_visible()
    page.get_by_role("link", name="English").click()
    expect(page.get_by_role("heading", name="Runs compared")).to_be_visible()
    assert page.url.endswith("/site/compare-1.html")
    context.close()
