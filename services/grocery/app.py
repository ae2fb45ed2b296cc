"""Продукты (domain `grocery`): showcase, five-item menu, category pages, cart."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, HTTPException
from fastapi.responses import HTMLResponse, Response

from services.grocery.catalog import image_svg, load_catalog
from services.kit.catalog import svg_response
from services.kit.commerce import Commerce
from services.kit.settings import SiteSettings
from services.kit.site import (
    EmitDep,
    PagesDep,
    SiteSpec,
    StateDep,
    TrajectoryDep,
    create_site_app,
    site_prefix,
)

DOMAIN = "grocery"
HERE = Path(__file__).parent


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))
    shop = Commerce(
        domain=DOMAIN,
        lookup=catalog.product,
        missing="нет такого товара",
        limit=lambda product: product.stock,
        over=lambda product: f"в наличии только {product.stock} шт.",
        screens={"basket": "bench_grocery_basket"},
        context={"catalog": catalog},
    )
    page = shop.page

    @router.get("/")
    async def main(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_grocery_main")
        return await page(pages, trajectory, state, "main.html", products=catalog.showcase())

    @router.get("/c/{category_id}")
    async def category(
        category_id: str, pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        found = catalog.category(category_id)
        if found is None:
            return await page(pages, trajectory, state, "missing.html", 404)
        await emit.screen("bench_grocery_category", category=found.id)
        return await page(
            pages,
            trajectory,
            state,
            "category.html",
            category=found,
            products=catalog.products_in(found.id),
        )

    shop.add_routes(router)

    assets = APIRouter()

    @assets.get("/img/{item_id}.svg")
    async def image(item_id: str) -> Response:
        product = catalog.product(item_id)
        if product is None:
            raise HTTPException(404, f"item_id: no product {item_id!r}")
        return svg_response(image_svg(product))

    spec = SiteSpec(domain=DOMAIN, root=HERE, ready=lambda: bool(catalog.all()))
    return create_site_app(spec, settings, router, assets)
