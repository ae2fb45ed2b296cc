"""The front pages' shared blocks (kit/blocks.html; docs/sites.md, "Front pages"), clicked by
role and accessible name: a help answer opens in place and its link opens the site's
information page; the newsletter form sends nothing and opens its slug's page; the app
promo's badges open theirs. No control of a front page's blocks takes a name a task's path
looks for."""

from __future__ import annotations

import json

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.http import wait_events
from support.pages import open_site

from services.core.sites import registry
from services.kit.chrome import RESERVED

# site, (a help question, its link, the page it opens), (the newsletter's block, a topic
# left unticked, the page «Подписаться» opens)
CASES = [
    (
        "rail",
        ("Нужно ли распечатывать билет?", "Об электронной регистрации", "Электронная регистрация"),
        ("Скидки и новые поезда — на почту", "Изменения расписания", "Новости"),
    ),
    (
        "hotels",
        ("Можно ли подарить проживание?", "О подарочных сертификатах", "Подарочные сертификаты"),
        ("Скидки на гостиницы — на почту", "Новые гостиницы", "Программа лояльности"),
    ),
    (
        "grocery",
        ("Как воспользоваться промокодом?", "О промокодах и скидках", "Промокоды и скидки"),
        ("Скидки недели — на почту", "Рецепты", "Промокоды и скидки"),
    ),
    (
        "files",
        ("Как долго хранятся документы?", "Политика хранения", "Политика хранения"),
        ("Уведомления о новых документах", "Инструкции", "Уведомления: 3 новых"),
    ),
]
MAIL = "reader@example.ru"


@pytest.mark.parametrize(("domain", "answer", "newsletter"), CASES)
def test_help_answers_newsletter_and_app(
    page: Page, hub: httpx.Client, domain: str, answer, newsletter
) -> None:
    tid = open_site(page, hub, domain, path="").trajectory_id
    title = page.get_by_role("heading", level=1)
    question, more, heading = answer
    help_answer = page.get_by_role("group").filter(has_text=question)
    expect(help_answer.get_by_role("link", name=more)).to_be_hidden()
    help_answer.get_by_text(question).click()
    help_answer.get_by_role("link", name=more).click()
    expect(title).to_have_text(heading)
    page.go_back()

    block, topic, opened = newsletter
    form = page.get_by_role("region", name=block)
    form.get_by_role("textbox", name="Электронная почта для рассылки").fill(MAIL)
    expect(form.get_by_role("checkbox").first).to_be_checked()
    form.get_by_role("checkbox", name=topic).check()
    form.get_by_role("button", name="Подписаться").click()
    expect(title).to_have_text(opened)
    assert "reader" not in page.url  # the form's fields have no names: nothing is sent
    page.go_back()

    page.get_by_role("main").get_by_role("link", name="Приложение для Android").click()
    expect(title).to_have_text("Приложение для Android")
    events = wait_events(
        hub, tid, lambda e: e["params"].get("category") == "app-android", timeout=10
    )
    assert MAIL not in json.dumps(events, ensure_ascii=False)


@pytest.mark.parametrize("domain", [case[0] for case in CASES])
def test_no_control_of_the_blocks_takes_a_name_a_path_looks_for(
    page: Page, hub: httpx.Client, domain: str
) -> None:
    open_site(page, hub, domain, path="")
    controls = page.locator("main section :is(a, button, summary)")
    captions = [
        caption.casefold()
        for caption in controls.evaluate_all(
            "els => els.filter(el => !el.closest('[data-testid=collections]'))"
            ".map(el => el.getAttribute('aria-label') || el.textContent.trim())"
        )
    ]
    assert len(captions) >= 30
    taken = [*RESERVED, "поиск", "выбрать", "забронировать", "коллекци"]
    taken += [caption.casefold() for caption in registry().captions.values()]
    clashes = [(c, name) for c in captions for name in taken if name in c]
    assert not clashes, clashes
