"""The market catalog: generated, committed, fictional, with deliberate look-alikes."""

import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from services.market import generate
from services.market.catalog import SORTS, Catalog, Filters, arrange, image_svg, load_catalog


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_counts_and_fields(catalog: Catalog) -> None:
    products = catalog.all()
    assert len(products) == 42
    per_category = Counter(p.category for p in products)
    assert set(per_category) == {"electronics", "pets", "sport", "household", "food"}
    assert all(n >= 8 for n in per_category.values())
    assert sorted(p.id for p in products) == [f"m-{n:03d}" for n in range(1, 43)]
    assert len({p.title.casefold() for p in products}) == 42
    for p in products:
        assert catalog.product(p.id) is p
        assert isinstance(p.price, int) and 100 <= p.price <= 10000
        assert p.old_price is None or p.old_price > p.price
        assert p.deal == bool(p.old_price)
        assert 3.5 <= p.rating <= 5 and p.reviews > 0 and p.stock >= 3
        assert len(p.specs) >= 3 and f"«{p.brand}»" in p.title
    assert len(catalog.showcase()) >= 8 and len(catalog.deals()) >= 4
    assert catalog.product("m-999") is None


def test_lookalikes(catalog: Catalog) -> None:
    titles = {p.title for p in catalog.all()}
    assert {
        "Наушники беспроводные «Тиховей» TW-20",
        "Наушники беспроводные «Тиховей» TW-20 Pro",
        "Корм сухой для кошек «Пёстрый хвост» с индейкой, 400 г",
        "Корм сухой для кошек «Пёстрый хвост» с индейкой, 2 кг",
        "Кофе в зёрнах «Сытая полка» арабика, 250 г",
        "Кофе в зёрнах «Сытая полка» арабика, 1 кг",
    } <= titles


def test_makers_are_invented() -> None:
    makers = {b for group in generate.BRANDS.values() for b in group}
    banned = ["sony", "xiaomi", "samsung", "apple", "purina", "whiskas", "fairy", "ariel", "nike"]
    for maker in makers:
        assert not any(b in maker.casefold() for b in banned)
        assert any("а" <= ch <= "я" for ch in maker.casefold())


def test_committed_file_matches_generator() -> None:
    text = generate.CATALOG_PATH.read_text(encoding="utf-8")
    assert text == generate.dumps(generate.build_catalog()), (
        "catalog.json is stale: run python -m services.market.generate"
    )
    assert generate.main(["--check"]) == 0
    fresh = Catalog.from_dict(generate.build_catalog())
    assert fresh.all() == load_catalog().all()


def test_search_forgives_typos(catalog: Catalog) -> None:
    def ids(query: str) -> list[str]:
        return [p.id for p in catalog.search(query)[0]]

    assert ids("калонка Ярагор Вална") == ["m-004"]
    assert ids("електрочайник Тиховэй") == ["m-009"]
    assert ids("TW-20 Pro") == ["m-002"]
    assert set(ids("наушники")) == {"m-001", "m-002", "m-003"}
    for junk in ("", "   ", "<script>alert(1)</script>", "'; DROP TABLE x; --", "ж" * 5000):
        assert catalog.search(junk)[0] == [] or junk.strip() == ""
    suggestions = catalog.suggest("науш")
    assert suggestions and all("Наушники" in s["text"] for s in suggestions)
    assert catalog.suggest("") == []


def test_filters_and_sorts(catalog: Catalog) -> None:
    pets = catalog.in_category("pets")
    cheap = arrange(pets, Filters(price_max=400), "price_asc")
    assert [p.price for p in cheap] == sorted(p.price for p in cheap) and cheap[-1].price <= 400
    dear = arrange(pets, Filters(brands=("Бодрый лось",)), "price_desc")
    assert {p.brand for p in dear} == {"Бодрый лось"}
    assert [p.price for p in dear] == sorted((p.price for p in dear), reverse=True)
    assert all(p.rating >= 4.5 for p in arrange(pets, Filters(rating="4.5"), "rating"))
    assert next(iter(SORTS)) == "popular"


def test_images_are_wellformed(catalog: Catalog) -> None:
    for p in catalog.all():
        root = ET.fromstring(image_svg(p))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert "href" not in image_svg(p) and "url(" not in image_svg(p)
