"""Продукты' routes: the showcase, category pages, search, product pages and login (the cart,
checkout and suggestions are the kit's)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form
from fastapi.responses import HTMLResponse, Response

from services.core.errors import FieldError
from services.grocery import service
from services.grocery.catalog import Catalog, image_svg
from services.kit.account import check_card, is_declined, log_in, logged_in
from services.kit.catalog import svg_response
from services.kit.commerce import (
    Checkout,
    Commerce,
    CommerceDep,
    cart_router,
    checkout_router,
    redirect_back,
    search_query,
    suggest_router,
)
from services.kit.pictures import ViewQuery
from services.kit.settings import SiteSettings
from services.kit.site import SiteDep, catalog, site_prefix

DOMAIN = "grocery"
router = APIRouter(prefix=site_prefix(DOMAIN))
assets = APIRouter()
CatalogDep = Annotated[Catalog, Depends(catalog)]


def make_commerce(grocery: Catalog, settings: SiteSettings) -> Commerce:
    return Commerce(
        domain=DOMAIN,
        lookup=grocery.product,
        unknown_item="нет такого товара",
        limit=lambda product: product.stock,
        over_limit=lambda product: f"в наличии только {product.stock} шт.",
        screens={
            "basket": "bench_grocery_basket",
            "checkout": "bench_grocery_checkout",
            "search": "bench_grocery_search",
        },
        context={"catalog": grocery, "pay_methods": service.PAY_METHODS, "slots": service.SLOTS},
        suggest=grocery.suggest,
        request_context=logged_in,
        checkout=Checkout(
            methods=service.PAY_METHODS,
            empty_cart="корзина пуста — добавьте продукты",
            check=service.check_order,
            card=lambda form: check_card(form, settings.stand_today()),
            declined=is_declined,
            receipt=service.receipt,
            setup_form=service.SETUP_ORDER,
        ),
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


@router.get("/search")
async def search(site: SiteDep, grocery: CatalogDep, commerce: CommerceDep) -> Response:
    query = search_query(site.request)
    await commerce.search_events(site, query, {}, "popular", list_changed=False)
    found, exact = grocery.search(query)
    return await site.page("search.html", query=query, exact=exact, products=found)


@router.get("/p/{item_id}")
async def product_page(
    item_id: str, site: SiteDep, grocery: CatalogDep, commerce: CommerceDep
) -> Response:
    product = grocery.product(item_id)
    if product is None:
        return await commerce.refuse(site, FieldError("item_id", "нет такого товара", 404))
    await site.emit.screen("bench_grocery_item", item_id=product.id)
    return await site.page(
        "product.html",
        product=product,
        category=grocery.category(product.category),
        companions=grocery.companions(product),
    )


@router.get("/login")
async def login_page(site: SiteDep, next: str = "") -> HTMLResponse:
    await site.emit.screen("bench_grocery_login")
    return await site.page("login.html", next=next, form={})


@router.post("/login")
async def login(
    site: SiteDep,
    phone: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
) -> Response:
    try:
        shown = await log_in(site, phone, password)
    except FieldError as refused:
        form = {"phone": phone[:40]}
        return await site.page("login.html", refused.status, next=next, form=form, error=refused)
    await site.emit("bench_grocery_login", phone=shown)
    return redirect_back(site, next)


@assets.get("/img/{item_id}.svg")
async def image(item_id: str, grocery: CatalogDep, view: ViewQuery = 1) -> Response:
    product = grocery.product(item_id)
    if product is None:
        raise FieldError("item_id", f"no product {item_id!r}", 404)
    return svg_response(image_svg(product, view))


for shared in (cart_router, checkout_router, suggest_router):
    router.include_router(shared)
