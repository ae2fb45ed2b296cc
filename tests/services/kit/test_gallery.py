"""An item's gallery (kit/gallery.html) on Маркет's product page, Книги's book page and Отели'
hotel page: each thumbnail, a button named «Фото N из 4», shows its picture in the main
place and stays pressed; the main picture keeps its size and the thumbnails stand beside it,
no taller, so nothing under it moves down."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect
from support.pages import open_site

from services.kit.pictures import VIEWS


@pytest.mark.parametrize(
    ("domain", "path", "picture", "size"),
    [
        ("shop", "p/m-001", "/_site/shop/img/m-001.svg", (360, 270)),
        ("books", "b/b-0002", "/_site/books/cover/b-0002.svg", (200, 300)),
        ("hotels", "hotel/h-ru-mow-1", "/_site/hotels/img/h-ru-mow-1.svg", (240, 150)),
    ],
)
def test_thumbnails_switch_the_picture(
    page: Page, hub: httpx.Client, domain: str, path: str, picture: str, size: tuple[int, int]
) -> None:
    open_site(page, hub, domain, path=path)
    gallery = page.locator(".kit-gallery")
    main = gallery.locator("img.kit-gallery-main")
    thumbs = gallery.get_by_role("group", name="Фотографии")
    expect(thumbs.get_by_role("button")).to_have_count(VIEWS)
    expect(main).to_have_attribute("src", picture)
    first = page.get_by_role("button", name=f"Фото 1 из {VIEWS}")
    expect(first).to_have_attribute("aria-pressed", "true")
    for n in (3, VIEWS, 1):
        page.get_by_role("button", name=f"Фото {n} из {VIEWS}").click()
        expect(main).to_have_attribute("src", picture if n == 1 else f"{picture}?view={n}")
        pressed = gallery.locator('[aria-pressed="true"]')
        expect(pressed).to_have_count(1)
        expect(pressed).to_have_accessible_name(f"Фото {n} из {VIEWS}")
    assert page.evaluate("document.querySelector('.kit-gallery-main').naturalWidth") > 0
    shown, column = main.bounding_box(), thumbs.bounding_box()
    assert shown is not None and column is not None
    assert (round(shown["width"]), round(shown["height"])) == size
    assert column["x"] >= shown["x"] + shown["width"]
    assert column["y"] + column["height"] <= shown["y"] + shown["height"] + 1
