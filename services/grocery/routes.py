"""Продукты's routes: the showcase and category pages (the cart is the kit's)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse, Response

from services.core.errors import FieldError
from services.grocery.catalog import Catalog, image_svg
from services.kit.catalog import svg_response
from services.kit.commerce import Commerce, cart_router
from services.kit.pictures import ViewQuery
from services.kit.site import SiteDep, catalog, site_prefix

DOMAIN = "grocery"
router = APIRouter(prefix=site_prefix(DOMAIN))
assets = APIRouter()
CatalogDep = Annotated[Catalog, Depends(catalog)]


def make_commerce(grocery: Catalog) -> Commerce:
    return Commerce(
        domain=DOMAIN,
        lookup=grocery.product,
        unknown_item="нет такого товара",
        limit=lambda product: product.stock,
        over_limit=lambda product: f"в наличии только {product.stock} шт.",
        screens={"basket": "bench_grocery_basket"},
        context={"catalog": grocery},
    )


@router.get("/")
async def main(site: SiteDep, grocery: CatalogDep) -> HTMLResponse:
    await site.emit.screen("bench_grocery_main")
    return await site.page("main.html", products=grocery.showcase())


@router.get("/c/{category_id}")
async def category(category_id: str, site: SiteDep, grocery: CatalogDep) -> HTMLResponse:
    found = grocery.category(category_id)
    if found is None:
        return await site.page("missing.html", 404)
    await site.emit.screen("bench_grocery_category", category=found.id)
    return await site.page("category.html", category=found, products=grocery.products_in(found.id))


@assets.get("/img/{item_id}.svg")
async def image(item_id: str, grocery: CatalogDep, view: ViewQuery = 1) -> Response:
    product = grocery.product(item_id)
    if product is None:
        raise FieldError("item_id", f"no product {item_id!r}", 404)
    return svg_response(image_svg(product, view))


router.include_router(cart_router)
