"""The pictures the sites draw (services/kit/pictures.py): each item's gallery is `VIEWS`
valid, self-contained SVG pictures, the same on every call, named by the item's title,
different from one another, drawn without an emoji; a view beyond them is refused."""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator

import httpx
import pytest

from services.books.catalog import cover_svg
from services.books.catalog import load_catalog as books
from services.grocery.catalog import image_svg as grocery_image
from services.grocery.catalog import load_catalog as grocery
from services.hotels.catalog import image_svg as hotel_image
from services.hotels.catalog import load_catalog as hotels
from services.kit.pictures import KINDS, SHAPES, VIEWS, product_shape, seeded, shade
from services.market.catalog import image_svg as market_image
from services.market.catalog import load_catalog as market

SVG = "{http://www.w3.org/2000/svg}"


def galleries() -> Iterator[tuple[str, str, Callable[[int], str]]]:
    """(site, title, view -> picture) for every item of the four sites that draw them."""
    for p in market().all():
        yield "shop", p.title, functools.partial(market_image, p)
    for g in grocery().all():
        yield "grocery", g.title, functools.partial(grocery_image, g)
    catalog = books()
    for i in catalog.all():
        author = catalog.author(i.author_id)
        assert author is not None
        yield "books", i.title, functools.partial(cover_svg, i, author)
    for h in hotels().hotels:
        yield "hotels", h.name, functools.partial(hotel_image, h)


def is_emoji(char: str) -> bool:
    return ord(char) >= 0x1F000 or (0x2600 <= ord(char) < 0x2700 and char != "★")


def test_every_gallery_is_valid_stable_labelled_and_small() -> None:
    sizes: dict[str, list[int]] = {}
    for site, title, draw in galleries():
        views = [draw(view) for view in range(1, VIEWS + 1)]
        assert views == [draw(view) for view in range(1, VIEWS + 1)], title  # stable
        assert len(set(views)) == VIEWS, title  # the views differ
        for svg in views:
            root = ET.fromstring(svg)
            assert root.tag == f"{SVG}svg"
            assert root.get("aria-label") == title and root.findtext(f"{SVG}title") == title
            assert "href" not in svg and "url(" not in svg and "@import" not in svg
            assert not any(is_emoji(char) for char in svg), (title, svg)
            sizes.setdefault(site, []).append(len(svg.encode()))
    for site, found in sizes.items():
        assert max(found) < 8_000 and sum(found) / len(found) < 3_000, site


def test_products_are_drawn_as_their_kind() -> None:
    assert product_shape("Наушники проводные «Ярогор» Бас-3", "box") == ("headphones", "")
    assert product_shape("Масло сливочное «Ольхов луг» 82,5% 180 г", "bag")[0] == "bar"
    assert product_shape("Масло оливковое «Сытый скворец» 500 мл", "bag")[0] == "bottle"
    assert product_shape("Мёд гречишный «Медовый овраг» 250 г", "bag")[0] == "jar"
    assert product_shape("Что-то новое", "loaf") == ("loaf", "")
    assert {shape for _, shape, _ in KINDS} <= set(SHAPES)
    # Every product of the two shops is some kind's, not the fallback's.
    titles = [p.title for p in market().all()] + [p.title for p in grocery().all()]
    assert all(product_shape(t, "") != ("", "") for t in titles)


def test_seeded_and_shade() -> None:
    assert seeded("m-001").random() == seeded("m-001").random() != seeded("m-002").random()
    assert shade("#808080", 0.5) == "#404040" and shade("#808080", 2) == "#ffffff"


@pytest.mark.parametrize(
    "url",
    [
        "/_site/shop/img/m-001.svg",
        "/_site/grocery/img/g-0001.svg",
        "/_site/books/cover/b-0001.svg",
        "/_site/hotels/img/h-ru-mow-1.svg",
    ],
)
def test_views_are_served_and_checked(agent: httpx.Client, url: str) -> None:
    first = agent.get(url)
    assert first.status_code == 200 and first.headers["content-type"].startswith("image/svg")
    assert "max-age" in first.headers["cache-control"]
    assert agent.get(url, params={"view": 1}).text == first.text
    assert agent.get(url, params={"view": VIEWS}).text != first.text
    for bad in ("0", str(VIEWS + 1), "два"):
        refused = agent.get(url, params={"view": bad})
        assert refused.status_code == 422 and refused.json()["field"] == "view", bad
