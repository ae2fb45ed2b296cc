"""Продукты (domain `grocery`): showcase, five-item menu, category pages, cart."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from services.grocery.catalog import Catalog, Product, image_svg, load_catalog
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
CART_OPS = ("add", "inc", "dec", "remove")


def cart_view(catalog: Catalog, cart: dict[str, int]) -> dict[str, Any]:
    lines = [
        (product, amount)
        for item_id, amount in cart.items()
        if amount and (product := catalog.product(item_id)) is not None
    ]
    return {
        "lines": lines,
        "count": sum(amount for _, amount in lines),
        "total": sum(product.price * amount for product, amount in lines),
    }


def create_app(settings: SiteSettings | None = None) -> FastAPI:
    settings = settings or SiteSettings()
    catalog = load_catalog()
    router = APIRouter(prefix=site_prefix(DOMAIN))

    async def page(
        pages: PagesDep,
        trajectory: TrajectoryDep,
        state: StateDep,
        template: str,
        status_code: int = 200,
        **context: Any,
    ) -> HTMLResponse:
        cart = (await state.get("cart")).get("items", {})
        return pages.render(
            trajectory,
            template,
            status_code,
            catalog=catalog,
            cart=cart,
            summary=cart_view(catalog, cart),
            **context,
        )

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

    @router.get("/cart")
    async def cart(
        pages: PagesDep, trajectory: TrajectoryDep, state: StateDep, emit: EmitDep
    ) -> HTMLResponse:
        await emit.screen("bench_grocery_basket")
        return await page(pages, trajectory, state, "cart.html")

    @router.post("/cart/{item_id}")
    async def change_cart(
        item_id: str,
        request: Request,
        state: StateDep,
        emit: EmitDep,
        op: Annotated[str, Form()],
        next: Annotated[str, Form()] = "",
    ) -> Response:
        product = catalog.product(item_id)
        if product is None:
            raise HTTPException(404, f"item_id: no product {item_id!r}")
        if op not in CART_OPS:
            raise HTTPException(422, f"op: expected one of {', '.join(CART_OPS)}")

        def apply(value: dict[str, Any]) -> tuple[int, int]:
            items = value.setdefault("items", {})
            before = int(items.get(item_id, 0))
            after = {"add": before + 1, "inc": before + 1, "dec": before - 1, "remove": 0}[op]
            if after < 0:
                after = 0
            if after > product.stock:
                raise HTTPException(409, f"amount: only {product.stock} in stock")
            if after:
                items[item_id] = after
            else:
                items.pop(item_id, None)
            return before, after

        before, after = await state.update("cart", apply)
        if after != before:
            await emit(
                "basket_add" if after > before else "basket_remove",
                item_id=product.id,
                amount=after,
                title=product.title,
                price=product.price,
            )
        summary = cart_view(catalog, (await state.get("cart")).get("items", {}))
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse(
                {
                    "item_id": item_id,
                    "amount": after,
                    "count": summary["count"],
                    "total": summary["total"],
                }
            )
        base = f"/t/{emit.trajectory.id}/{DOMAIN}"
        return RedirectResponse(next if next.startswith(base + "/") else base + "/", 303)

    assets = APIRouter()

    @assets.get("/img/{item_id}.svg")
    async def image(item_id: str) -> Response:
        product: Product | None = catalog.product(item_id)
        if product is None:
            raise HTTPException(404, f"item_id: no product {item_id!r}")
        return Response(
            image_svg(product),
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    spec = SiteSpec(domain=DOMAIN, root=HERE, ready=lambda: bool(catalog.all()))
    return create_site_app(spec, settings, router, assets)
