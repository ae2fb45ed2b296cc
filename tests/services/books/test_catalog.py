"""The books catalog: 226 items, 75 authors with case forms, 86 series; generated and committed."""

from collections import Counter, defaultdict

import pytest

from services.books import generate
from services.books.catalog import Catalog, Filters, arrange, load_catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_counts(catalog: Catalog) -> None:
    items = catalog.all()
    assert len(items) == 226 and len(catalog.authors) == 75 and len(catalog.series) == 86
    assert Counter(i.format for i in items) == {"text": 150, "audio": 76}
    assert len({a.name for a in catalog.authors}) == 75
    assert sorted(i.id for i in items) == [f"b-{n:04d}" for n in range(1, 227)]
    assert {i.series_id for i in items} == {s.id for s in catalog.series}
    assert {i.author_id for i in items} == {a.id for a in catalog.authors}
    for i in items:
        assert catalog.series_of(i).author_id == i.author_id
        assert (i.pages is None) == (i.format == "audio") and (i.narrator is None) != (
            i.format == "audio"
        )


def test_one_answer_for_cheapest_and_dearest(catalog: Catalog) -> None:
    by_author: dict[str, list[int]] = defaultdict(list)
    for i in catalog.all():
        by_author[i.author_id].append(i.price)
    for prices in by_author.values():
        assert len(prices) == len(set(prices))


# A sample of authors and their case forms, as a prompt would use them.
CASE_TABLE = {
    "Вера Руднева": {
        "gen": "Веры Рудневой",
        "dat": "Вере Рудневой",
        "acc": "Веру Рудневу",
        "ins": "Верой Рудневой",
        "pre": "Вере Рудневой",
    },
    "Кирилл Шубин": {
        "gen": "Кирилла Шубина",
        "dat": "Кириллу Шубину",
        "acc": "Кирилла Шубина",
        "ins": "Кириллом Шубиным",
        "pre": "Кирилле Шубине",
    },
    "Зоя Тетерина": {
        "gen": "Зои Тетериной",
        "dat": "Зое Тетериной",
        "acc": "Зою Тетерину",
        "ins": "Зоей Тетериной",
        "pre": "Зое Тетериной",
    },
    "Светлана Прудникова": {
        "gen": "Светланы Прудниковой",
        "dat": "Светлане Прудниковой",
        "acc": "Светлану Прудникову",
        "ins": "Светланой Прудниковой",
        "pre": "Светлане Прудниковой",
    },
    "Фёдор Воронин": {
        "gen": "Фёдора Воронина",
        "dat": "Фёдору Воронину",
        "acc": "Фёдора Воронина",
        "ins": "Фёдором Ворониным",
        "pre": "Фёдоре Воронине",
    },
}


@pytest.mark.parametrize("name", sorted(CASE_TABLE))
def test_case_forms(catalog: Catalog, name: str) -> None:
    author = next(a for a in catalog.authors if a.name == name)
    assert author.cases == CASE_TABLE[name]


def test_every_author_declines(catalog: Catalog) -> None:
    for a in catalog.authors:
        assert set(a.cases) == {"gen", "dat", "acc", "ins", "pre"}
        assert a.cases["gen"] != a.name or a.last.endswith(("о", "их", "ых"))
        assert generate.case_forms(a.first, a.last, a.gender) == a.cases


def test_narrators_surnames_agree_with_their_first_names(catalog: Catalog) -> None:
    narrators = {i.narrator for i in catalog.all() if i.narrator}
    assert len(narrators) >= 8
    for name in narrators:
        first, surname = name.split(" ", 1)
        feminine = surname.endswith(("а", "ая"))
        assert feminine == (first in generate.FEMALE), name


def test_search_and_suggestions(catalog: Catalog) -> None:
    found, exact = catalog.search("Веры Рудневой")
    assert exact and {i.author_id for i in found} == {"a-01"}
    assert next(s["text"] for s in catalog.suggest("Рудн")) == "Вера Руднева"
    assert catalog.search("<img src=x onerror=alert(1)>")[0] == []
    audio = arrange(catalog.by_author("a-02"), Filters(format="audio"), "price_asc")
    assert audio and all(i.format == "audio" for i in audio)
    assert [i.price for i in audio] == sorted(i.price for i in audio)


def test_committed_file_matches_generator() -> None:
    text = generate.CATALOG_PATH.read_text(encoding="utf-8")
    assert text == generate.dumps(generate.build_catalog()), (
        "catalog.json is stale: run python -m services.books.generate"
    )
    assert generate.main(["--check"]) == 0
