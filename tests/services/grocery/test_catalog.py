import re
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

import pytest

from services.grocery import generate
from services.grocery.catalog import Catalog, Product, image_svg, load_catalog

BASE_NAMES = sorted(
    (b.name for bases in generate.BASES.values() for b in bases), key=len, reverse=True
)


def base_of(title: str) -> str:
    """The base product a title starts with (longest match, so «Молоко топлёное» ≠ «Молоко»)."""
    for name in BASE_NAMES:
        if title == name or title.startswith((name + " ", name + ",")):
            return name
    raise AssertionError(f"no base product for {title!r}")


def stem_of(title: str) -> str:
    """Base plus producer: everything up to the closing quote (or the whole base)."""
    return title.split("»")[0] + "»" if "»" in title else base_of(title)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_counts(catalog: Catalog) -> None:
    assert len(catalog.categories) == 5
    assert len(catalog.all()) == 277
    per_category = Counter(p.category for p in catalog.all())
    assert set(per_category) == {c.id for c in catalog.categories}
    assert all(40 <= n <= 70 for n in per_category.values()), per_category
    showcase = catalog.showcase()
    assert len(showcase) == 12
    assert {p.category for p in showcase} == {c.id for c in catalog.categories}
    assert len({base_of(p.title) for p in showcase}) == 12


def test_categories(catalog: Catalog) -> None:
    ids = [c.id for c in catalog.categories]
    assert len(set(ids)) == 5
    for c in catalog.categories:
        assert re.fullmatch(r"[a-z][a-z_-]*", c.id)
        assert re.search(r"[А-Яа-яЁё]", c.name)
        assert len(c.icon) == 1
        assert catalog.category(c.id) is c
    assert catalog.category("nope") is None


def test_unique_ids_and_titles(catalog: Catalog) -> None:
    products = catalog.all()
    ids = [p.id for p in products]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"g-\d{4}", i) for i in ids)
    assert sorted(ids) == [f"g-{n:04d}" for n in range(1, 278)]
    titles = [p.title.casefold() for p in products]
    assert len(set(titles)) == len(titles)


def test_product_fields(catalog: Catalog) -> None:
    for p in catalog.all():
        assert catalog.category(p.category) is not None, p
        assert catalog.product(p.id) is p
        assert isinstance(p.price, int) and 39 <= p.price <= 1490, p
        assert p.unit in {"шт", "кг", "л", "уп"}, p
        assert re.fullmatch(r"\d+(,\d+)? (г|кг|мл|л|шт)", p.weight), p
        assert isinstance(p.stock, int) and 5 <= p.stock <= 60, p
        assert isinstance(p.showcase, bool)
        assert re.fullmatch(r"#[0-9a-f]{6}", p.color), p
        assert p.emoji and len(p.emoji) == 1, p
        assert '"' not in p.title and "." not in p.title, p
        assert "»" not in p.title or "«" in p.title, p
    assert catalog.product("g-9999") is None


def test_products_in_sorted(catalog: Catalog) -> None:
    for c in catalog.categories:
        items = catalog.products_in(c.id)
        assert items and all(p.category == c.id for p in items)
        keys = [p.title.casefold().replace("ё", "е") for p in items]
        assert keys == sorted(keys)
    assert sum(len(catalog.products_in(c.id)) for c in catalog.categories) == 277


def test_producers_are_fictional_and_few() -> None:
    producers = {p for group in generate.PRODUCERS.values() for p in group if p}
    assert 15 <= len(producers) <= 25
    banned = [
        "простоквашино",
        "домик в деревне",
        "вкусвилл",
        "магнит",
        "пятёрочка",
        "агуша",
        "вкуснотеево",
        "савушкин",
        "мираторг",
        "черкизово",
        "дымов",
        "перекрёсток",
    ]
    for name in producers:
        assert not any(b in name.casefold() for b in banned), name


def test_at_least_sixty_base_foods() -> None:
    names = [b.name for bases in generate.BASES.values() for b in bases]
    assert len(set(names)) == len(names) >= 60


def test_committed_file_matches_generator() -> None:
    text = generate.CATALOG_PATH.read_text(encoding="utf-8")
    assert text == generate.dumps(generate.build_catalog()), (
        "catalog.json is stale: run python -m services.grocery.generate"
    )
    assert generate.build_catalog() == generate.build_catalog()
    assert generate.main(["--check"]) == 0


def test_loaded_catalog_matches_generator(catalog: Catalog) -> None:
    fresh = Catalog.from_dict(generate.build_catalog())
    assert fresh.all() == catalog.all()
    assert fresh.categories == catalog.categories


def test_image_svg_is_wellformed(catalog: Catalog) -> None:
    for p in catalog.all():
        svg = image_svg(p)
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.get("width") == "200" and root.get("height") == "150"
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert p.weight in texts and p.emoji not in svg
        assert "href" not in svg and "@import" not in svg and "url(" not in svg


def test_image_svg_escapes_text() -> None:
    p = Product(
        id="g-0000",
        title='Сыр <b>&"x"',
        category="dairy",
        price=100,
        unit="шт",
        weight="1 < 2 & 3",
        stock=5,
        showcase=False,
        color="#ffffff",
        emoji="🧀",
        description="",
        storage="",
        nutrition={"kcal": 0, "protein": 0, "fat": 0, "carbs": 0},
    )
    root = ET.fromstring(image_svg(p))
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "1 < 2 & 3" in texts
    assert root.get("aria-label") == 'Сыр <b>&"x"'


def test_lookalikes_exist(catalog: Catalog) -> None:
    groups: dict[str, list[Product]] = defaultdict(list)
    for p in catalog.all():
        groups[stem_of(p.title)].append(p)
    pairs = [g for g in groups.values() if len(g) >= 2]
    assert len(pairs) >= 2
    titles = {p.title for p in catalog.all()}
    # Fat percentage look-alike and pack-size look-alike, always present.
    assert {"Кефир «Три ракиты» 1%", "Кефир «Три ракиты» 3,2%"} <= titles
    assert {
        "Крупа гречневая ядрица «Крупяной ряд», 900 г",
        "Крупа гречневая ядрица «Крупяной ряд», 450 г",
    } <= titles
    for base, producer, text, weight in generate.LOOKALIKES:
        matches = [
            p
            for p in catalog.all()
            if base_of(p.title) == base
            and (producer is None or f"«{producer}»" in p.title)
            and (producer is not None or "«" not in p.title)
            and p.weight == weight
            and (not text or text in p.title)
        ]
        assert len(matches) == 1, (base, producer, text, weight)
