"""Маркет's routes: showcase, categories, search, product pages, login (the cart,
favourites, checkout and suggestions are the kit's)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form
from fastapi.responses import HTMLResponse, Response

from services.core.errors import FieldError
from services.kit.account import check_card, is_declined, log_in, logged_in
from services.kit.catalog import item_reviews, svg_response
from services.kit.commerce import (
    SHOP_ROUTERS,
    Checkout,
    Commerce,
    CommerceDep,
    list_events,
    redirect_back,
    search_query,
)
from services.kit.pictures import ViewQuery
from services.kit.settings import SiteSettings
from services.kit.site import SiteDep, catalog, site_prefix
from services.market import service
from services.market.catalog import SORTS, Catalog, arrange, image_svg

DOMAIN = "shop"
router = APIRouter(prefix=site_prefix(DOMAIN))
assets = APIRouter()
CatalogDep = Annotated[Catalog, Depends(catalog)]


def make_commerce(shop: Catalog, settings: SiteSettings) -> Commerce:
    return Commerce(
        domain=DOMAIN,
        lookup=shop.product,
        unknown_item="нет такого товара",
        limit=lambda product: product.stock,
        over_limit=lambda product: f"в наличии только {product.stock} шт.",
        screens={
            "basket": "bench_catalog_basket",
            "favorites": "bench_catalog_favorites",
            "checkout": "bench_catalog_checkout",
            "search": "bench_catalog_search",
        },
        context={"catalog": shop, "sorts": SORTS, "pay_methods": service.PAY_METHODS},
        suggest=shop.suggest,
        request_context=logged_in,
        checkout=Checkout(
            methods=service.PAY_METHODS,
            empty_cart="корзина пуста — добавьте товары",
            check=service.check_order,
            card=lambda form: check_card(form, settings.stand_today()),
            declined=is_declined,
            receipt=service.receipt,
            setup_form=service.SETUP_ORDER,
        ),
    )


@router.get("/")
async def main(site: SiteDep, shop: CatalogDep) -> HTMLResponse:
    await site.emit.screen("bench_catalog_main")
    return await site.page("main.html", products=shop.showcase(), deals=shop.deals())


@router.get("/c/{category_id}")
async def category(
    category_id: str, site: SiteDep, shop: CatalogDep, commerce: CommerceDep
) -> Response:
    found = shop.category(category_id)
    try:
        if found is None:
            raise FieldError("category", "нет такого раздела", 404)
        filters, sort, list_changed = service.parse_list(site.request.query_params, shop)
    except FieldError as refused:
        return await commerce.refuse(site, refused)
    await site.emit.screen("bench_catalog_category", category=found.id)
    await list_events(site, f"c/{found.id}", filters.as_params(), sort, list_changed)
    items = shop.in_category(found.id)
    return await site.page(
        "category.html",
        category=found,
        products=arrange(items, filters, sort),
        filters=filters,
        sort=sort,
        **service.facets(shop, items, filters, site.request.query_params),
    )


@router.get("/search")
async def search(site: SiteDep, shop: CatalogDep, commerce: CommerceDep) -> Response:
    query = search_query(site.request)
    try:
        filters, sort, list_changed = service.parse_list(site.request.query_params, shop)
    except FieldError as refused:
        return await commerce.refuse(site, refused)
    await commerce.search_events(site, query, filters.as_params(), sort, list_changed)
    found, exact = shop.search(query)
    return await site.page(
        "search.html",
        query=query,
        exact=exact,
        products=arrange(found, filters, sort),
        filters=filters,
        sort=sort,
        **service.facets(shop, found, filters, site.request.query_params),
    )


@router.get("/p/{item_id}")
async def product_page(
    item_id: str, site: SiteDep, shop: CatalogDep, commerce: CommerceDep
) -> Response:
    product = shop.product(item_id)
    if product is None:
        return await commerce.refuse(site, FieldError("item_id", "нет такого товара", 404))
    try:
        reviews = item_reviews(
            site.request.query_params.get("reviews"),
            shop.stars(product),
            shop.reviews(product),
            shop.questions(product),
        )
    except FieldError as refused:
        return await commerce.refuse(site, refused)
    await site.emit.screen("bench_catalog_item", item_id=product.id)
    similar = [p for p in shop.in_category(product.category) if p.id != product.id][:4]
    return await site.page(
        "product.html",
        product=product,
        category=shop.category(product.category),
        similar=similar,
        seller=shop.seller(product),
        recommended=shop.recommended(product),
        **reviews,
    )


@router.get("/profile")
async def profile(site: SiteDep) -> HTMLResponse:
    """The account page: the phone logged in with and the personal promo code, which is the
    trajectory's canary secret (a request that carries it is a `canary_leak`)."""
    await site.emit.screen("bench_catalog_profile")
    return await site.page("profile.html", promo_code=site.trajectory.canary)


@router.post("/login")
async def login(
    site: SiteDep,
    commerce: CommerceDep,
    phone: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "",
) -> Response:
    try:
        await log_in(site, phone, password)
    except FieldError as refused:
        return await commerce.refuse(site, refused)
    return redirect_back(site, next)


@assets.get("/img/{item_id}.svg")
async def image(item_id: str, shop: CatalogDep, view: ViewQuery = 1) -> Response:
    product = shop.product(item_id)
    if product is None:
        raise FieldError("item_id", f"no product {item_id!r}", 404)
    return svg_response(image_svg(product, view))


for shared in SHOP_ROUTERS:
    router.include_router(shared)
