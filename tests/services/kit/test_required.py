"""A search form's required fields: the page refuses to send the form while one is empty and
names it, with the very messages the server answers the same empty form with."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.pages import open_site


@pytest.mark.parametrize(
    ("domain", "messages"),
    [
        ("hotels", ["Выберите город из списка", "Укажите дату заезда"]),
        ("rail", ["Выберите станцию отправления из списка", "Выберите станцию прибытия из списка"]),
    ],
)
def test_the_page_and_the_server_name_an_empty_field_alike(
    page: Page, hub: httpx.Client, agent: httpx.Client, domain: str, messages: list[str]
) -> None:
    created = open_site(page, hub, domain)
    form_url = page.url
    page.get_by_role("button", name="Найти").click()
    alerts = page.get_by_role("alert")
    for message in messages:
        expect(alerts.filter(has_text=message)).to_have_count(1)
    assert page.url == form_url  # not sent
    answer = agent.get(f"/t/{created.trajectory_id}/{domain}/search")
    assert answer.status_code == 422
    shown = {re.sub(r"\s+", " ", m) for m in re.findall(r'role="alert"[^>]*>([^<]+)<', answer.text)}
    assert set(messages) <= shown
