"""Conditions in words: every condition of every suite (the task files, and a generated
suite of every family) in English and in Russian, with no JSON left and each catalog id
beside what its site calls it."""

from __future__ import annotations

import json

import pytest

from runner.settings import TASKS_DIR
from runner.suite.generate import generate
from services.core.contract import EVENT_TYPES
from services.core.results.wording import EVENTS, Wording, site_names
from services.core.tasks import load_task, task_files

JSON_MARKS = set('{}[]"')


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    generated = tmp_path_factory.mktemp("generated")
    generate(TASKS_DIR, "all", 11, 40, generated)
    paths = task_files(TASKS_DIR) + task_files(generated)
    return [load_task(path)["test_data"] for path in paths]


def test_every_event_of_the_contract_has_words() -> None:
    assert set(EVENTS) == set(EVENT_TYPES)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_condition_of_every_suite_reads_without_json(tasks: list[dict], lang: str) -> None:
    seen = 0
    for task in tasks:
        domain = task["bench_first_domain"]
        say = Wording(lang, domain)
        for condition in task["conditions"]:
            event, parameters = condition["event_name"], condition.get("parameters", {})
            text = say.condition(
                event, parameters, condition.get("forbidden", False), condition.get("group")
            )
            where = f"{domain}: {json.dumps(condition, ensure_ascii=False)} -> {text}"
            assert not JSON_MARKS & set(text), where
            assert event not in text, where  # the event's name in words
            item = parameters.get("item_id")
            if isinstance(item, str):
                assert f"{site_names(domain)[item]} ({item})" in text, where
            seen += 1
    assert seen > 900  # 328 task files and 40 generated instances


def test_the_words_of_one_condition_in_both_languages() -> None:
    kefir = {"item_id": "g-0032", "amount": {"condition": "greater_than_or_equal", "value": 2}}
    title = site_names("grocery")["g-0032"]
    assert Wording("en", "grocery").condition("basket_add", kefir) == (
        f"added to the cart: {title} (g-0032), amount ≥ 2"
    )
    assert Wording("ru", "grocery").condition("basket_add", kefir, forbidden=True) == (
        f"запрещено: добавлено в корзину: {title} (g-0032), количество ≥ 2"
    )
    search = {"value": "*наушник*"}
    assert Wording("ru").condition("submit_search", search, group="query") == (
        "поиск: запрос содержит «наушник» (одно из группы query)"
    )
    dates = {"date": "2026-10-04", "direction": "departure"}
    assert Wording("ru", "rail").condition("select_date", dates) == (
        "выбрана дата: дата: 4 октября 2026, направление: departure"
    )
    assert Wording("en", "rail").condition("select_date", dates) == (
        "chose a date: date: 4 Oct 2026, direction: departure"
    )
    screen = {"new_state": "bench_grocery_category", "category": "dairy"}
    assert Wording("en", "grocery").condition("state_changed", screen) == (
        f"opened: a category's page, category: {site_names('grocery')['dairy']} (dairy)"
    )


def test_what_it_does_not_know_stays_as_it_is() -> None:
    assert Wording("ru").condition("bench_plugin_event", {"knob": 3}) == (
        "bench_plugin_event: knob: 3"
    )
    assert Wording("en").condition("state_changed", {"new_state": "bench_x_lobby"}) == (
        "opened: bench_x_lobby"
    )


def test_for_a_page_the_words_are_escaped_and_the_data_marked() -> None:
    html = Wording("ru", "grocery", html=True).condition(
        "submit_search", {"value": "<b>сыр</b>"}, forbidden=True
    )
    assert html == ("запрещено: поиск: запрос: <span data-verbatim>&lt;b&gt;сыр&lt;/b&gt;</span>")
    less = Wording("en", html=True).condition(
        "basket_add", {"price": {"condition": "less_than", "value": 1000}}
    )
    assert less == "added to the cart: price &lt; <span data-verbatim>1000</span>"
